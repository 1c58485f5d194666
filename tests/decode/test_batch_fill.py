"""The batched loop's mask fill (``decode/rows.py``) without a model: an empty mask raises its
diagnosis from the fill (never a silent EOS), and each row's fill time is kept for its step's
``mask_us``."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt
import pytest

from gramwright.decode.rows import BatchRequest, Row, fill_bitmask, timed_fill
from gramwright.engine.matcher import EmptyMaskError, GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar, literal


def dead_end() -> tuple[GrammarEngine, Row]:
    # no token spells "c": after "a" the engine's own mask is empty (a budget would have
    # refused "a"; the fill must still say so rather than hand out an empty row)
    vocab = TokenVocabulary([b"a", b"b", b""], eos_ids=[2])
    engine = GrammarEngine(Grammar({"root": literal("ac")}), vocab)
    matcher = engine.matcher()
    matcher.consume(0)
    return engine, Row(1, BatchRequest("p", engine), matcher, 4)


def test_an_empty_mask_raises_its_diagnosis_from_the_fill_inline_and_from_the_worker() -> None:
    engine, bad = dead_end()
    good = Row(0, BatchRequest("p", engine), engine.matcher(), 4)
    with pytest.raises(EmptyMaskError, match="rule stacks") as err:
        fill_bitmask([good, bad], 1)
    assert err.value.prefix == b"a"
    with ThreadPoolExecutor(max_workers=1) as pool:  # the overlapped fill: re-raised on result()
        pending = pool.submit(timed_fill, [good, bad], 1)
        with pytest.raises(EmptyMaskError, match="rule stacks"):
            pending.result()


class SlowMasker:
    def fill(self, words: npt.NDArray[np.int32], row: int) -> None:
        time.sleep(0.02)
        words[row] = -1

    def consume(self, token: int) -> None:
        pass

    def is_terminated(self) -> bool:
        return False


def test_each_rows_fill_time_is_kept_for_its_step() -> None:
    vocab = TokenVocabulary([b"a", b"b", b""], eos_ids=[2])
    engine = GrammarEngine(Grammar({"root": literal("ab")}), vocab)
    fast = Row(0, BatchRequest("p", engine), engine.matcher(), 4)
    slow = Row(1, BatchRequest("p", masker=SlowMasker()), None, 4)
    words, total = timed_fill([fast, slow], 1)
    assert words[0, 0] == 1 and words[1, 0] == -1
    assert slow.mask_wait_s >= 0.02 > fast.mask_wait_s > 0
    assert total >= slow.mask_wait_s + fast.mask_wait_s
