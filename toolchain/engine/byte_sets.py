"""Per-token byte sets: which bytes a token holds after its first, as 256-bit masks.

Built once per vocabulary (kept in its ``VocabularyTables``). They answer "does this token's rest
stay inside a set of bytes?" for thousands of tokens with four word-wise ANDs: a string body's
loop (``local_masks.py``) and a run near a repetition's end (``runs.py``) both accept tokens that
way without walking them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from gramwright.engine.bitset import IntArray

TailSets = npt.NDArray[np.uint64]  # four rows (bytes 0–63, 64–127, …), one column per token id
_WORD = 0xFFFFFFFFFFFFFFFF


def byte_mask(members: Iterable[int]) -> npt.NDArray[np.bool_]:
    """A set of bytes as a 256-entry bool array (a fresh one: callers may change it)."""
    got = np.zeros(256, dtype=bool)
    got[np.fromiter(members, dtype=np.intp)] = True
    return got


def build_tail_sets(token_bytes: Sequence[bytes]) -> TailSets:
    """Per token, the set of bytes after its first one, as a 256-bit mask: four uint64 rows
    (bytes 0–63, 64–127, …), one entry per token."""
    size = len(token_bytes)
    tails = [b[1:] for b in token_bytes]
    present = np.zeros((size, 256), dtype=bool)
    rows = np.repeat(np.arange(size), [len(t) for t in tails])
    present[rows, np.frombuffer(b"".join(tails), dtype=np.uint8)] = True
    # column-major: one uint64 column per 64 bytes, gathered one at a time
    got: TailSets = np.ascontiguousarray(np.packbits(present, axis=1, bitorder="little").view(np.uint64).T)
    return got


def tail_inside(tail_sets: TailSets, allowed: int, ids: IntArray | None = None) -> npt.NDArray[np.bool_]:
    """Per token of ``ids`` (default: every token id), whether every byte after its first is in
    ``allowed`` (an int bit set of bytes)."""
    outside = ~allowed & ((1 << 256) - 1)
    clash: npt.NDArray[np.uint64] | None = None
    for w in range(4):
        bits = (outside >> (64 * w)) & _WORD
        if not bits:
            continue
        col = tail_sets[w] if ids is None else tail_sets[w].take(ids)
        part = col & np.uint64(bits)
        clash = part if clash is None else clash | part
    size = tail_sets.shape[1] if ids is None else ids.size
    if clash is None:
        return np.ones(size, dtype=bool)
    inside: npt.NDArray[np.bool_] = clash == 0
    return inside
