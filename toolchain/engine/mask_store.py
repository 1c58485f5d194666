"""The per-tokenizer mask store on disk: content-signed local masks kept across processes.

The masks whose keys are content signatures (string bodies, numbers, literals, key starts, the
bundled grammars' lexical states — ``VocabularyTables.shared_masks`` and ``suffix_masks``) mean
the same in every grammar on a tokenizer. Attached behind those two stores, a ``MaskStore``
answers their misses from disk and collects what a process computes; ``flush()`` writes the new
masks as one more immutable segment (``store_format.py``).

Layout: ``<root>/masks/<fingerprint[:32]>-<engine version>/seg-*.gwm`` (root:
``$GRAMWRIGHT_CACHE`` or ``~/.cache/gramwright``). Concurrency: segments are written to a temp file
and renamed (``fsutil``), never changed after; two processes flushing at once write two
segments; compaction (more than ``MAX_SEGMENTS``) writes the merged segment before unlinking its
parts, so a reader sees whole files only and a vanished one is a miss. Damage (bad magic, header,
length, checksum) or staleness (another engine version) removes the file: its masks are
recomputed and written again, never trusted. Bound: ``$GRAMWRIGHT_CACHE_MAX_MB`` (default 256) over
all tokenizers; past it the least recently written segments go first.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Hashable
from pathlib import Path

from gramwright.engine import bitset
from gramwright.engine.local_masks import LocalMask
from gramwright.engine.matcher import ENGINE_VERSION
from gramwright.engine.store_format import Entry, Segment, StoreFormatError, digest, encode_segment
from gramwright.fsutil import atomic_write_bytes, atomic_write_text, cache_root

MAX_MB_ENV = "GRAMWRIGHT_CACHE_MAX_MB"
DEFAULT_MAX_MB = 256
MAX_SEGMENTS = 8  # more than this many segments in one store: they are merged into one
SUFFIX = ".gwm"


def max_bytes() -> int:
    try:
        return int(float(os.environ.get(MAX_MB_ENV, DEFAULT_MAX_MB)) * 1024 * 1024)
    except ValueError:
        return DEFAULT_MAX_MB * 1024 * 1024


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):  # another process removed it first
        path.unlink()


class MaskStore:
    """The on-disk masks of one tokenizer (``fingerprint``) at this engine version."""

    def __init__(self, fingerprint: str, vocab_size: int, root: Path | None = None) -> None:
        self.fingerprint = fingerprint
        self.vocab_size = vocab_size
        self.words = bitset.num_words(vocab_size)
        self.root = (root or cache_root()) / "masks"
        self.dir = self.root / f"{fingerprint[:32]}-{ENGINE_VERSION}"
        self._segments: list[Segment] | None = None
        self._new: dict[bytes, Entry] = {}
        # computed by this process, named (digested) only when written: a new grammar's masks
        # are all misses, and naming each on the way would put a digest in every cold mask
        self._unnamed: dict[tuple[str, Hashable], Entry] = {}
        self._from_disk: set[bytes] = set()
        self._names: dict[tuple[str, Hashable], bytes] = {}
        self.hits = 0
        self.misses = 0
        self.damaged = 0

    # -- reading -----------------------------------------------------------------------------
    def segments(self) -> list[Segment]:
        """The readable segments, opened on first use; damaged or stale ones are removed."""
        if self._segments is None:
            self._segments = []
            for path in sorted(self.dir.glob(f"*{SUFFIX}"), reverse=True):  # newest first
                self._open(path)
        return self._segments

    def _open(self, path: Path) -> None:
        assert self._segments is not None
        try:
            seg = Segment(
                path, engine=ENGINE_VERSION, fingerprint=self.fingerprint, vocab_size=self.vocab_size
            )
        except FileNotFoundError:
            return  # compacted away since the listing
        except (StoreFormatError, OSError, KeyError, TypeError, ValueError):
            self.damaged += 1
            _remove(path)
            return
        self._segments.append(seg)

    def _name(self, namespace: str, key: Hashable) -> bytes | None:
        """The key's digest, once per process (asked for by a lookup, or at ``flush`` for masks added)."""
        memo = (namespace, key)
        name = self._names.get(memo)
        if name is None:
            try:
                name = digest(namespace, key)
            except TypeError:
                return None  # not plain data: never stored
            self._names[memo] = name
        return name

    def load(self, namespace: str, key: Hashable) -> LocalMask | None:
        got = self._unnamed.get((namespace, key))  # added by this process: no digest, no count
        if got is None:
            got = self._read(namespace, key)
            if got is None:
                return None
        return LocalMask(got.accepted, bitset.nonempty(got.accepted), got.pending_ids, got.pending_offsets)

    def _read(self, namespace: str, key: Hashable) -> Entry | None:
        """The entry under the key's digest, from this process's named masks or the segments
        (counted as a hit or a miss)."""
        name = self._name(namespace, key)
        if name is None:
            return None
        got = self._new.get(name)
        if got is None:
            for seg in list(self.segments()):
                try:
                    got = seg.read(name)
                except (StoreFormatError, OSError):
                    self._drop(seg)
                    continue
                if got is not None:
                    break
        if got is None:
            self.misses += 1
            return None
        self.hits += 1
        self._from_disk.add(name)
        return got

    def _drop(self, seg: Segment) -> None:
        """A segment found damaged while reading: removed, its masks recomputed on demand."""
        self.damaged += 1
        assert self._segments is not None
        self._segments.remove(seg)
        seg.close()
        _remove(seg.path)

    def added(self, namespace: str, key: Hashable, value: LocalMask) -> None:
        self._unnamed[(namespace, key)] = Entry(value.accepted, value.pending_ids, value.pending_offsets)

    def _name_new(self) -> None:
        """Digest the masks added since the last flush (keys that are not plain data are dropped,
        as are masks that came from disk)."""
        for (namespace, key), entry in self._unnamed.items():
            name = self._name(namespace, key)
            if name is not None and name not in self._from_disk:
                self._new[name] = entry
        self._unnamed = {}

    @property
    def pending(self) -> int:
        """Masks computed by this process and not written yet."""
        return len(self._new) + len(self._unnamed)

    # -- writing -----------------------------------------------------------------------------
    def flush(self) -> Path | None:
        """Write the masks computed since the last flush as a new segment (atomically), merge
        segments past MAX_SEGMENTS, keep the whole cache under its bound, and record hit counts."""
        written: Path | None = None
        self._name_new()
        if self._new:
            self.dir.mkdir(parents=True, exist_ok=True)
            written = self.dir / f"seg-{time.time_ns():020d}-{os.getpid()}{SUFFIX}"
            atomic_write_bytes(written, self._encode(self._new.items()))
            self._from_disk.update(self._new)
            self._new = {}
            if self._segments is not None:
                self._open(written)
        if written is not None:
            self._compact()
            evict(max_bytes(), keep=written, root=self.root.parent)
            _remove_stale(self.root, self.fingerprint)
        if written is not None or ((self.hits or self.misses) and self.dir.is_dir()):
            self._record()  # a run served wholly from disk writes nothing but counts its hits
        return written

    def _encode(self, entries: object) -> bytes:
        return encode_segment(
            entries,  # type: ignore[arg-type]  # an iterable of (key, Entry) pairs
            engine=ENGINE_VERSION,
            fingerprint=self.fingerprint,
            vocab_size=self.vocab_size,
            words=self.words,
        )

    def compact(self) -> None:
        """Merge every segment into one (``gramwright warm`` ends with it: a lookup that misses
        searches every segment's index, newest first)."""
        self._compact(limit=1)

    def _compact(self, limit: int = MAX_SEGMENTS) -> None:
        paths = sorted(self.dir.glob(f"*{SUFFIX}"))
        if len(paths) <= limit:
            return
        merged: dict[bytes, Entry] = {}
        for path in paths:
            try:
                seg = Segment(
                    path, engine=ENGINE_VERSION, fingerprint=self.fingerprint, vocab_size=self.vocab_size
                )
            except (StoreFormatError, OSError, KeyError, TypeError, ValueError):
                continue
            try:
                for key in seg.names():
                    got = seg.read(key)
                    if got is not None:
                        merged.setdefault(key, got)
            except (StoreFormatError, OSError):
                pass  # a damaged part: what it held is recomputed when asked for
            finally:
                seg.close()
        target = self.dir / f"seg-{time.time_ns():020d}-{os.getpid()}-merged{SUFFIX}"
        atomic_write_bytes(target, self._encode(merged.items()))
        for path in paths:
            _remove(path)
        self._reopen()

    def _reopen(self) -> None:
        for seg in self._segments or []:
            seg.close()
        self._segments = None

    def _record(self) -> None:
        """Add this process's hits and misses to the store's stats file (read, add, atomic write:
        two processes at once may lose one's counts, never corrupt the file)."""
        path = self.dir / "stats.json"
        stats = read_stats(path)
        stats["hits"] += self.hits
        stats["misses"] += self.misses
        stats["flushes"] += 1
        atomic_write_text(path, json.dumps(stats))
        self.hits = self.misses = 0


def read_stats(path: Path) -> dict[str, int]:
    out = {"hits": 0, "misses": 0, "flushes": 0}
    try:
        got = json.loads(path.read_text())
        for k in out:
            if isinstance(got.get(k), int):
                out[k] = got[k]
    except (OSError, ValueError, AttributeError):
        pass
    return out


def evict(limit: int, keep: Path | None = None, root: Path | None = None) -> int:
    """Remove the least recently written segments of every store until the cache is within
    ``limit`` bytes (``keep`` stays: the segment just written). Returns the bytes removed."""
    root = (root or cache_root()) / "masks"
    segs = []
    for path in root.glob(f"*/*{SUFFIX}"):
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        segs.append((st.st_mtime_ns, st.st_size, path))
    total = sum(size for _, size, _ in segs)
    removed = 0
    for _, size, path in sorted(segs):
        if total <= limit:
            break
        if path == keep:
            continue
        _remove(path)
        total -= size
        removed += size
    return removed


def _remove_stale(root: Path, fingerprint: str) -> None:
    """Stores of this tokenizer written by another engine version can never be read again."""
    for other in root.glob(f"{fingerprint[:32]}-*"):
        if other.name.endswith(ENGINE_VERSION):
            continue
        for path in other.iterdir():
            _remove(path)
        with contextlib.suppress(OSError):  # a writer of that version put a file there meanwhile
            other.rmdir()
