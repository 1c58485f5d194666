"""A batch's masks in one ``(rows, ceil(V/32))`` int32 bitset, the rows filled together.

Per row, what its mask is the union of is gathered first (with the GIL: a dict lookup for a
configuration met before, the local masks and checked pending tokens of a new one, which may
walk the vocabulary); then every row's union is written at once — by the compiled core on
``threads`` native threads with the GIL released (``_native.c``), else row by row in numpy.
A new configuration's mask is kept in its engine's cache as ``allowed_bits`` would keep it, so
the next request that reaches it reads it. The bits are those of ``Matcher.bitmask`` row by row:
EOS in an accepting state, nothing after EOS, narrowed in the closing zone when ``budget``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gramwright.engine import bitset
from gramwright.engine.bitset import IntArray, Words
from gramwright.engine.collector import cold_work
from gramwright.engine.matcher import EmptyMaskError, Matcher
from gramwright.engine.native import CORE

# Below this many words in all (rows × words per row), one thread fills the batch: starting a
# thread costs about as much as copying ~16k words.
PARALLEL_MIN_WORDS = 65536
THREADS_ENV = "GRAMWRIGHT_MASK_THREADS"


def default_threads() -> int:
    """Native threads for a batch fill: ``GRAMWRIGHT_MASK_THREADS``, else the CPUs this process
    may run on (at most 8: a fill is memory-bound well before that)."""
    got = os.environ.get(THREADS_ENV, "").strip()
    if got.isdigit() and int(got) > 0:
        return int(got)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


Parts = tuple[tuple[Words, ...], tuple[IntArray, ...]]


def fill_batch(
    matchers: Sequence[Matcher | None],
    out: npt.NDArray[np.int32],
    threads: int | None = None,
    budget: bool = True,
) -> None:
    """Write row ``r`` of ``out`` from ``matchers[r]`` (None: every bit set, a row without a
    grammar). Raises EmptyMaskError, as ``Matcher.bitmask`` does, for a row where nothing is
    allowed."""
    words = int(out.shape[1])
    rows: list[Parts] = []
    cold: dict[tuple[int, int], list[int]] = {}  # (engine, configuration) → its rows
    engines: dict[int, Matcher] = {}
    everything = np.full(words, -1, dtype=np.int32)
    for r, matcher in enumerate(matchers):
        if matcher is None:
            rows.append(((everything.view(np.uint32),), ()))
            continue
        parts = _warm_parts(matcher, budget)
        if parts is None:
            masks = matcher.engine.masks
            masks.misses += 1
            with cold_work():
                bits, checked = masks.parts(matcher.config)
            parts = (tuple(bits), tuple(checked))
            cold.setdefault((id(matcher.engine), matcher.config), []).append(r)
            engines[id(matcher.engine)] = matcher
        rows.append(parts)
    _fill(out, rows, words, threads)
    for (engine_id, config), at in cold.items():
        matcher = engines[engine_id]
        engine = matcher.engine
        size = engine.vocab.size
        own = out[at[0]].view(np.uint32)[: bitset.num_words(size)].copy()
        engine.masks.store(config, own)
        for r in at:
            m = matchers[r]
            assert m is not None
            # the row as ``Matcher.bitmask`` has it: EOS where accepting, empty is a bug
            if engine.compiled.config_accepting[config] and engine.eos.size:
                bitset.add(out[r].view(np.uint32), engine.eos, size)
            elif config in engine.masks.empty:
                raise EmptyMaskError(config, m.output, engine.compiled.stack_rules(config))


def _warm_parts(matcher: Matcher, budget: bool) -> Parts | None:
    """A row whose mask needs no union: its matcher's own bitset (met before, stopped, or
    narrowed by the budget); None for a configuration this engine has not met."""
    engine = matcher.engine
    # a matcher that computes its own mask (a reasoning or tool section before the grammar) has a
    # configuration that is not the engine's: only its own bitmask is right for it
    if type(matcher).bitmask is not Matcher.bitmask:
        return (matcher.bitmask(budget).view(np.uint32),), ()
    if matcher.stopped or matcher.config in engine.masks.cache:
        return (matcher.bitmask(budget).view(np.uint32),), ()
    if budget and matcher.mask_state(True)[1] >= 0:  # in the closing zone: narrowed per budget
        return (matcher.bitmask(budget).view(np.uint32),), ()
    return None


def _fill(out: npt.NDArray[np.int32], rows: list[Parts], words: int, threads: int | None) -> None:
    if CORE is not None:
        count = threads if threads is not None else default_threads()
        if len(rows) * words < PARALLEL_MIN_WORDS:
            count = 1
        CORE.fill_batch(out, rows, count)
        return
    for r, (bits, ids) in enumerate(rows):
        row = out[r].view(np.uint32)
        if len(bits) == 1 and bits[0].size == words and not ids:
            row[:] = bits[0]
            continue
        # a row wider or narrower than the engine's bitset (a model's padded vocabulary)
        row[:] = 0
        for more in bits:
            n = min(words, more.size)
            row[:n] |= more[:n]
        if ids:
            bitset.add(row, np.concatenate(ids) if len(ids) > 1 else ids[0], words * 32)
