"""How `gramwright cache info`, `cache clear` and `warm` print: the stores and conversions, what
was removed, what was warmed. The JSON forms are ``CacheInfo.as_dict`` and the dicts below."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gramwright.engine.cache_info import CacheInfo
    from gramwright.engine.warm import WarmReport


def mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"


def info_lines(got: CacheInfo) -> list[str]:
    """The cache root and its size, each mask store, an old pickled cache, the model conversions."""
    from gramwright.engine.native import core_line

    lines = [f"cache: {got.root} ({mb(got.bytes)} of {mb(got.limit_bytes)})", core_line()]
    if not got.stores:
        lines.append("no mask stores (run `gramwright warm`, or any `gramwright generate`)")
    for s in got.stores:
        rate = "no lookups yet" if s.hit_rate is None else f"hit rate {s.hit_rate:.1%}"
        state = "" if s.current else " [stale: another engine version]"
        lines.append(
            f"  {s.name}{state}: {s.entries} masks in {s.segments} segment(s), {mb(s.bytes)}, "
            f"{rate} ({s.hits} hits, {s.misses} misses)"
        )
    if got.legacy_bytes:
        lines.append(f"  old pickled engine cache: {mb(got.legacy_bytes)} (never read; `cache clear`)")
    if got.conversions:
        lines.append(
            f"model conversions: {got.root}/models ({mb(got.conversion_bytes)}, shared by every"
            " virtualenv; `cache clear` keeps them)"
        )
    for c in got.conversions:
        what = "weights and tokenizer" if c.weights else "tokenizer"
        lines.append(f"  {c.name}: {what}, {mb(c.bytes)}")
    return lines


def clear_data(root: Path, removed: int) -> dict[str, Any]:
    return {"root": str(root), "removed_bytes": removed}


def clear_line(root: Path, removed: int) -> str:
    return f"removed {mb(removed)} from {root}"


def warm_data(report: WarmReport, store_bytes: int) -> dict[str, Any]:
    return {
        "store": str(report.store),
        "grammars": report.grammars,
        "masks_walked": report.masks,
        "seconds": round(report.seconds, 2),
        "store_bytes": store_bytes,
    }


def warm_line(report: WarmReport, store_bytes: int) -> str:
    return (
        f"warmed {report.store} in {report.seconds:.1f}s: {report.grammars} grammars, "
        f"{report.masks} masks walked, store {mb(store_bytes)}"
    )
