"""Token sets as bitsets: 32-bit words, bit ``i % 32`` of word ``i // 32`` set when token ``i`` is in.

This is the layout the peers (llguidance, XGrammar) hand to their logits kernels, one row of a
``(batch, ceil(V/32))`` int32 array. The engine keeps every mask in it: a union of the local masks
of a configuration is a handful of word-wise ORs over ~1.5k words, not a scatter over ~49k token
ids, and a cached mask is 6 KB instead of up to 200 KB of ids. Token ids are derived only where a
caller asks for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gramwright.engine.native import CORE

Words = npt.NDArray[np.uint32]
IntArray = npt.NDArray[np.int32]

# Setting bits: one by one in Python up to _FEW ids, by one ``bitwise_or.at`` up to _SOME, else by
# packing a copy (a 49k-entry bool array and ``packbits``: a constant ~7 µs, measured).
_FEW = 12
_SOME = 192
_ONE = np.uint32(1)


def num_words(vocab_size: int) -> int:
    return (vocab_size + 31) // 32


def pack(ids: IntArray, vocab_size: int) -> Words:
    """The bitset of ``ids`` (each below ``vocab_size``)."""
    bits = np.zeros(num_words(vocab_size) * 32, dtype=bool)
    # numpy indexes with intp: an int32 index array is converted element by element on the way
    # (~3x the time of converting it first, measured on 20k ids)
    bits[ids.astype(np.intp)] = True
    return np.packbits(bits, bitorder="little").view(np.uint32)


def unpack(words: Words | npt.NDArray[np.int32], vocab_size: int) -> IntArray:
    """The sorted ids set in ``words`` (below ``vocab_size``)."""
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:vocab_size].view(bool)
    return np.flatnonzero(bits).astype(np.int32)


def add(words: Words, ids: IntArray, vocab_size: int) -> None:
    """Set the bits of ``ids`` in ``words`` (in place)."""
    if CORE is not None and ids.size > _FEW:
        # one pass over the ids in C (numpy's ``bitwise_or.at`` or a pack costs several)
        CORE.union_into(words, (words,), (_int32(ids),))
    elif ids.size <= _FEW:
        for i in ids.tolist():
            words[i >> 5] |= 1 << (i & 31)
    elif ids.size <= _SOME:
        np.bitwise_or.at(words, ids >> 5, np.left_shift(_ONE, (ids & 31).astype(np.uint32)))
    else:
        words |= pack(ids, vocab_size)


def union(bits: Sequence[Words], ids: Sequence[IntArray], vocab_size: int) -> Words:
    """A fresh bitset: the union of ``bits`` and the bits of ``ids`` (a configuration's local
    masks and its checked pending tokens)."""
    out = np.empty(num_words(vocab_size), dtype=np.uint32)
    union_into(out, bits, ids, vocab_size)
    return out


def union_into(out: Words, bits: Sequence[Words], ids: Sequence[IntArray], vocab_size: int) -> None:
    """Write the union of ``bits`` and the bits of ``ids`` over ``out`` (compiled: one pass,
    the GIL released)."""
    if CORE is not None:
        CORE.union_into(out, tuple(bits), tuple(_int32(i) for i in ids))
        return
    if bits:
        out[:] = bits[0]
        for more in bits[1:]:
            out |= more
    else:
        out[:] = 0
    if ids:
        add(out, np.concatenate(ids) if len(ids) > 1 else ids[0], vocab_size)


def _int32(ids: IntArray) -> IntArray:
    """``ids`` as a C-contiguous int32 array (the compiled core reads the buffer as is)."""
    if ids.dtype == np.int32 and ids.flags.c_contiguous:
        return ids
    return np.ascontiguousarray(ids, dtype=np.int32)


def nonempty(array: npt.NDArray[np.generic]) -> bool:
    """Whether any element of ``array`` is set: ``count_nonzero`` is one C call, where
    ``ndarray.any()`` goes through numpy's Python-level reduction wrapper (~3× the time on a mask's
    1.5k words, and a cold mask asks several times)."""
    return bool(np.count_nonzero(array))


def pack_bools(bits: npt.NDArray[np.bool_]) -> Words:
    """The bitset of a boolean array over token ids (padded to whole words)."""
    padded = np.zeros(num_words(bits.size) * 32, dtype=bool)
    padded[: bits.size] = bits
    return np.packbits(padded, bitorder="little").view(np.uint32)


def contains(words: Words, ids: IntArray) -> npt.NDArray[np.bool_]:
    """Per id of ``ids``, whether its bit is set in ``words``."""
    got: npt.NDArray[np.bool_] = ((words.take(ids >> 5) >> (ids & 31).astype(np.uint32)) & 1).astype(bool)
    return got
