"""Runs near the end of a repetition: bytes that step every remaining copy alike.

Near the end of ``char{0,n}`` each copy is its own local state, so the masks there are walked
per position (``masks.py``'s length bands). But a string's ordinary characters step each
remaining copy alike — one byte, one copy, no return — until the last copy, where none of them
is allowed. A token made only of such bytes is therefore decided by its length: alive while it
fits in the copies left, dead past them. ``near_run`` finds such a run from a local state (by
its transitions, not by knowing what a string is), ``pure_tokens`` the tokens made of its bytes,
``run_split`` a length band's tokens by them.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable

import numpy as np
import numpy.typing as npt

from gramwright.engine.bitset import IntArray
from gramwright.engine.byte_sets import byte_mask, tail_inside
from gramwright.engine.local import LocalAutomaton
from gramwright.engine.vocab import TokenVocabulary

# A run is only looked for over at least this many bytes (a string's ordinary characters: 94).
RUN_MIN_BYTES = 32

Run = tuple[int, int]  # (bytes as an int bit set, how many copies they can still step)


def near_run(local: LocalAutomaton, lid: int, memo: dict[int, Run | None]) -> Run | None:
    """``(bytes, k)`` when ``lid`` is followed by exactly ``k`` states that every byte of
    ``bytes`` (the largest set of bytes leading from ``lid`` to one state, at least RUN_MIN_BYTES
    of them) steps through alike, one byte each, never returning below the key, and the state
    after them is dead on all of them. None when not — including a loop (``k`` would pass the
    horizon): that is a loop set's case. Results go to ``memo`` (per local state), for the
    states on the way too: each starts a shorter run over the same bytes."""
    if lid in memo:
        return memo[lid]
    groups: dict[int, int] = {}
    for lo, hi, out in local.classes(lid):
        if out >= 2 and not out & 1:
            groups[out] = groups.get(out, 0) | ((1 << hi) - (1 << lo))  # bits lo..hi-1
    loop = max(groups.values(), key=int.bit_count, default=0)
    chain: list[int] = []
    found = False
    if loop.bit_count() >= RUN_MIN_BYTES:
        members = _members(loop)
        cur = lid
        while len(chain) <= (local.horizon or 0):
            code = _common_code(local, cur, members)
            if code == 0:
                found = True
                break
            if code is None or code & 1:
                break
            chain.append(cur)
            cur = (code >> 1) - 1
    if not found:
        memo[lid] = None
        return None
    for i, state in enumerate(chain):
        memo.setdefault(state, (loop, len(chain) - i))
    return memo[lid]


def pure_tokens(vocab: TokenVocabulary, loop: int) -> npt.NDArray[np.bool_]:
    """Per token id: whether the token has bytes and every one of them is in ``loop`` (an int bit
    set). Kept in the vocabulary's tables per byte set (a few: every string shares one)."""
    store = vocab.tables.pure
    got = store.get(loop)
    if got is None:
        inside = byte_mask(_members(loop))
        first = vocab.byte_matrix[:, 0]
        got = tail_inside(vocab.tables.tail_sets(), loop) & inside[first] & (vocab.lengths > 0)
        store.put(loop, got)
    return got


def run_split(
    vocab: TokenVocabulary, loop: int, candidates: IntArray, band: Hashable
) -> tuple[IntArray, IntArray, IntArray]:
    """``candidates`` (the length band named ``band``) split by the run's bytes ``loop``: the
    other tokens, and the pure ones sorted by length with their lengths, so the ones that fit in
    ``k`` copies are a prefix. Kept per (bytes, band) in the vocabulary's tables: every position
    near a bounded string's end asks, and recomputing it was ~0.4 ms of boolean gathers over a
    40k-token band."""
    store = vocab.tables.run_splits
    got = store.get((loop, band))
    if got is None:
        pure = pure_tokens(vocab, loop)[candidates]
        mine = candidates[pure]
        lengths = vocab.lengths[mine]
        order = np.argsort(lengths, kind="stable")
        got = store.put((loop, band), (candidates[~pure], mine[order], lengths[order]))
    return got


def _common_code(local: LocalAutomaton, lid: int, members: list[int]) -> int | None:
    """The transition every byte of ``members`` (sorted) takes from ``lid``, or None if they
    differ: one class step per byte class met (a string's ordinary characters are ~3 classes),
    not the state's whole row (which would build the states of every UTF-8 lead byte too)."""
    code: int | None = None
    i = 0
    while i < len(members):
        _, hi, got = local.class_step(lid, members[i])
        if code is None:
            code = got
        elif got != code:
            return None
        i = bisect.bisect_left(members, hi, i)
    return code


def _members(bits: int) -> list[int]:
    return [b for b in range(256) if bits >> b & 1]
