"""The mask store's file format: data, not code — loading a file can never run anything.

A *segment* is one immutable file of local masks for one tokenizer and engine version::

    b"GWMASK01"                      magic (format 1)
    u32 little-endian                length of the JSON header
    JSON header                      format, engine, fingerprint, vocab_size, words, count,
                                     index_offset, data_offset, length, index_crc
    index at index_offset            ``count`` records (key 16 bytes, offset u64, pending u32,
                                     crc32 u32), sorted by key: a binary search, no parsing
    data at data_offset              per entry: the accepted bitset (``words`` uint32), then the
                                     pending token ids and their offsets (int32 each)

Keys are 128-bit BLAKE2b digests of a canonical encoding of the in-memory key (content
signatures: tuples, frozensets, strings, ints). A file whose header, length or index checksum is
wrong is rejected whole; an entry whose crc32 is wrong is a miss. Entries are read with
``os.pread`` as they are asked for, so a process pays for the masks it uses (and a file damaged
under a reader cannot fault it, as a memory map could).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gramwright.engine.bitset import IntArray, Words
from gramwright.errors import EngineError

MAGIC = b"GWMASK01"
FORMAT = 1
INDEX_DTYPE = np.dtype([("key", "S16"), ("offset", "<u8"), ("pending", "<u4"), ("crc", "<u4")])


class StoreFormatError(EngineError):
    """A store file that is not what it claims (truncated, foreign, stale, damaged)."""


def encode_key(obj: object) -> bytes:
    """A canonical byte string for a mask key (frozensets sorted): equal keys, equal bytes, in
    every process. Raises TypeError for anything that is not plain data."""
    # the exact types first (one ``is`` each, a list not a generator: a key is named on every
    # store lookup); subclasses fall through to the isinstance checks, which encode alike
    if type(obj) is tuple:
        return b"(" + b",".join([encode_key(x) for x in obj]) + b")"
    if type(obj) is int:
        return b"i%d" % obj
    if type(obj) is str:
        raw = obj.encode()
        return b"s%d:" % len(raw) + raw
    if isinstance(obj, tuple):
        return b"(" + b",".join(encode_key(x) for x in obj) + b")"
    if isinstance(obj, frozenset):
        return b"{" + b",".join(sorted(encode_key(x) for x in obj)) + b"}"
    if isinstance(obj, str):
        raw = obj.encode()
        return b"s%d:" % len(raw) + raw
    if isinstance(obj, bool):
        return b"T" if obj else b"F"
    if isinstance(obj, int):
        return b"i%d" % obj
    if obj is None:
        return b"N"
    raise TypeError(f"not a storable key part: {type(obj).__name__}")


def digest(namespace: str, key: Hashable) -> bytes:
    return hashlib.blake2b(namespace.encode() + b"\0" + encode_key(key), digest_size=16).digest()


@dataclass(frozen=True)
class Entry:
    accepted: Words
    pending_ids: IntArray
    pending_offsets: IntArray


def _entry_bytes(entry: Entry) -> bytes:
    return (
        np.ascontiguousarray(entry.accepted, dtype="<u4").tobytes()
        + np.ascontiguousarray(entry.pending_ids, dtype="<i4").tobytes()
        + np.ascontiguousarray(entry.pending_offsets, dtype="<i4").tobytes()
    )


def encode_segment(
    entries: Iterable[tuple[bytes, Entry]], *, engine: str, fingerprint: str, vocab_size: int, words: int
) -> bytes:
    """One segment file's bytes (entries with equal keys: the first one is kept)."""
    unique: dict[bytes, Entry] = {}
    for key, entry in entries:
        if entry.accepted.size != words:
            raise StoreFormatError(f"a mask of {entry.accepted.size} words in a store of {words}")
        unique.setdefault(key, entry)
    keys = sorted(unique)
    index = np.zeros(len(keys), dtype=INDEX_DTYPE)
    blobs: list[bytes] = []
    offset = 0
    for i, key in enumerate(keys):
        blob = _entry_bytes(unique[key])
        index[i] = (key, offset, unique[key].pending_ids.size, zlib.crc32(blob))
        blobs.append(blob)
        offset += len(blob)
    index_raw = index.tobytes()
    header = {
        "format": FORMAT,
        "engine": engine,
        "fingerprint": fingerprint,
        "vocab_size": vocab_size,
        "words": words,
        "count": len(keys),
        "index_crc": zlib.crc32(index_raw),
        "index_offset": 0,
        "data_offset": 0,
        "length": 0,
    }
    # the header states offsets into the file, which depend on the header's own length: fixed
    # width numbers make one pass enough
    for field in ("index_offset", "data_offset", "length"):
        header[field] = 10**15
    head_len = len(json.dumps(header).encode())
    start = len(MAGIC) + 4 + head_len
    index_offset = (start + 7) // 8 * 8
    data_offset = index_offset + len(index_raw)
    header.update(index_offset=index_offset, data_offset=data_offset, length=data_offset + offset)
    head = json.dumps(header).encode().ljust(head_len)
    out = MAGIC + struct.pack("<I", head_len) + head
    return out.ljust(index_offset, b"\0") + index_raw + b"".join(blobs)


class Segment:
    """One segment file opened for lookups (header and index read, entries on demand)."""

    def __init__(self, path: Path, *, engine: str, fingerprint: str, vocab_size: int) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        try:
            size = os.fstat(self._fd).st_size
            self.size = size
            lead = os.pread(self._fd, len(MAGIC) + 4, 0)
            if len(lead) < len(MAGIC) + 4 or lead[: len(MAGIC)] != MAGIC:
                raise StoreFormatError("not a mask store segment", where=str(path))
            (head_len,) = struct.unpack("<I", lead[len(MAGIC) :])
            if head_len > 4096 or len(MAGIC) + 4 + head_len > size:
                raise StoreFormatError("truncated header", where=str(path))
            try:
                head = json.loads(os.pread(self._fd, head_len, len(MAGIC) + 4))
            except ValueError as exc:
                raise StoreFormatError("unreadable header", where=str(path)) from exc
            expect = {"format": FORMAT, "engine": engine, "fingerprint": fingerprint}
            if not isinstance(head, dict) or any(head.get(k) != v for k, v in expect.items()):
                raise StoreFormatError("stale or foreign segment", where=str(path))
            if head.get("vocab_size") != vocab_size or head.get("length") != size:
                raise StoreFormatError("wrong vocabulary size or length", where=str(path))
            self.words = int(head["words"])
            self.count = int(head["count"])
            self._data_offset = int(head["data_offset"])
            raw = os.pread(self._fd, self.count * INDEX_DTYPE.itemsize, int(head["index_offset"]))
            if len(raw) != self.count * INDEX_DTYPE.itemsize or zlib.crc32(raw) != head["index_crc"]:
                raise StoreFormatError("damaged index", where=str(path))
            self.index = np.frombuffer(raw, dtype=INDEX_DTYPE)
            self._keys = self.index["key"]
            # the other fields as their own arrays: an entry's fields read with ``item`` (a
            # structured element unpacked into a tuple is ~3 µs a lookup)
            self._offsets = self.index["offset"]
            self._pending = self.index["pending"]
            self._crcs = self.index["crc"]
        except BaseException:
            os.close(self._fd)
            raise

    def close(self) -> None:
        os.close(self._fd)

    def names(self) -> list[bytes]:
        return [bytes(k) for k in self._keys]

    def read(self, key: bytes) -> Entry | None:
        """The entry under ``key``; None when absent. Raises StoreFormatError when damaged."""
        i = int(np.searchsorted(self._keys, key))
        if i >= self.count or self._keys[i] != key:
            return None
        n = self._pending.item(i)
        length = self.words * 4 + n * 8
        blob = os.pread(self._fd, length, self._data_offset + self._offsets.item(i))
        if len(blob) != length or zlib.crc32(blob) != self._crcs.item(i):
            raise StoreFormatError("damaged entry", where=str(self.path))
        accepted = np.frombuffer(blob, dtype="<u4", count=self.words).astype(np.uint32, copy=False)
        pend = np.frombuffer(blob, dtype="<i4", offset=self.words * 4).astype(np.int32, copy=False)
        # frombuffer over bytes is read-only: a mask from disk cannot be changed in place
        return Entry(accepted, pend[:n], pend[n:])
