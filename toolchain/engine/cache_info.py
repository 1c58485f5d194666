"""What the on-disk cache holds, and clearing it: the data behind ``gramwright cache info|clear``.

The cache root (``$GRAMWRIGHT_CACHE`` or ``~/.cache/gramwright``) holds the mask stores
(``masks/<tokenizer>-<engine version>/``, ``mask_store.py``) beside the model loader's converted
GGUF files (``models/<gguf stem>-<key>/``, listed here by folder, never read); ``engine/`` is
where the old pickled engine cache lived (never read now, removed by ``clear``). Plain data out,
no printing.
"""

from __future__ import annotations

import json
import shutil
import struct
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gramwright.engine import native
from gramwright.engine.mask_store import SUFFIX, max_bytes, read_stats
from gramwright.engine.matcher import ENGINE_VERSION
from gramwright.engine.store_format import MAGIC
from gramwright.fsutil import cache_root

_COUNT_AT = len(MAGIC) + 4  # the header follows the magic and its length


@dataclass(frozen=True)
class StoreInfo:
    name: str  # <tokenizer fingerprint prefix>-<engine version>
    current: bool  # written by this engine version (else stale: removed at the next flush)
    segments: int
    entries: int  # masks, counted over segments (a mask in two segments counts twice)
    bytes: int
    hits: int  # lookups answered from disk, summed over the processes that flushed
    misses: int

    @property
    def hit_rate(self) -> float | None:
        asked = self.hits + self.misses
        return self.hits / asked if asked else None


@dataclass(frozen=True)
class ConversionInfo:
    """One converted model under ``models/``: its folder name and what it holds."""

    name: str  # <gguf stem>-<content and converter key>
    bytes: int
    weights: bool  # float32 weights (``model/``), not only the tokenizer


@dataclass(frozen=True)
class CacheInfo:
    root: str
    limit_bytes: int
    engine_version: str
    stores: list[StoreInfo] = field(default_factory=list)
    legacy_bytes: int = 0  # the old pickled engine cache, if one is still there
    conversions: list[ConversionInfo] = field(default_factory=list)
    mask_core: str = field(default_factory=lambda: native.core_name())  # native or python

    @property
    def bytes(self) -> int:
        """The mask stores' bytes (what ``GRAMWRIGHT_CACHE_MAX_MB`` bounds and ``clear`` removes)."""
        return sum(s.bytes for s in self.stores) + self.legacy_bytes

    @property
    def conversion_bytes(self) -> int:
        return sum(c.bytes for c in self.conversions)

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["bytes"] = self.bytes
        out["conversion_bytes"] = self.conversion_bytes
        for store, info in zip(out["stores"], self.stores, strict=True):
            store["hit_rate"] = info.hit_rate
        return out


def _entries(path: Path) -> int:
    """A segment's entry count, from its header (0 if unreadable)."""
    try:
        with path.open("rb") as fh:
            lead = fh.read(_COUNT_AT)
            if lead[: len(MAGIC)] != MAGIC:
                return 0
            (n,) = struct.unpack("<I", lead[len(MAGIC) :])
            head = json.loads(fh.read(min(n, 4096)))
        count = head.get("count", 0)
        return count if isinstance(count, int) else 0
    except (OSError, ValueError, struct.error):
        return 0


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def cache_info(root: Path | None = None) -> CacheInfo:
    root = root or cache_root()
    stores: list[StoreInfo] = []
    masks = root / "masks"
    for folder in sorted(p for p in masks.glob("*") if p.is_dir()):
        segs = sorted(folder.glob(f"*{SUFFIX}"))
        stats = read_stats(folder / "stats.json")
        stores.append(
            StoreInfo(
                name=folder.name,
                current=folder.name.endswith(f"-{ENGINE_VERSION}"),
                segments=len(segs),
                entries=sum(_entries(p) for p in segs),
                bytes=_size(folder),
                hits=stats["hits"],
                misses=stats["misses"],
            )
        )
    conversions = [
        ConversionInfo(folder.name, _size(folder), (folder / "model").is_dir())
        for folder in sorted((root / "models").glob("*"))
        if folder.is_dir() and not folder.name.startswith(".")
    ]
    return CacheInfo(str(root), max_bytes(), ENGINE_VERSION, stores, _size(root / "engine"), conversions)


def clear_cache(root: Path | None = None) -> int:
    """Remove every mask store (and the old engine cache); the model conversions stay. Returns
    the bytes removed. A process using a store meanwhile keeps its open files and recomputes
    what it no longer finds."""
    root = root or cache_root()
    removed = 0
    for sub in (root / "masks", root / "engine"):
        removed += _size(sub)
        shutil.rmtree(sub, ignore_errors=True)
    return removed
