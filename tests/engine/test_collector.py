"""The collector around cold masks (engine/collector.py): untouched unless the application opts in."""

from __future__ import annotations

import gc

from gramwright.engine.collector import (
    cold_work,
    freeze_after_cold_masks,
    freezes_after_cold_masks,
    frozen_after_cold_masks,
)
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar, alt, literal, seq
from gramwright.recognizer import compile_grammar

VOCAB = TokenVocabulary([b"a", b"b", b"ab", b"c", b"abc"])


def _cold_mask() -> None:
    grammar = Grammar({"root": seq(literal("a"), alt(literal("b"), literal("bc")))})
    engine = GrammarEngine(compile_grammar(grammar), VOCAB)
    assert engine.masks.misses == 0
    engine.bitmask(engine.compiled.initial)
    assert engine.masks.misses == 1  # a cold computation ran


def test_a_cold_mask_leaves_the_collector_alone_by_default() -> None:
    assert not freezes_after_cold_masks()
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    _cold_mask()
    assert gc.get_freeze_count() == frozen and gc.isenabled() == enabled


def test_the_opt_in_pauses_then_freezes_and_is_scoped() -> None:
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    seen: list[bool] = []
    try:
        with frozen_after_cold_masks():
            assert freezes_after_cold_masks()
            with cold_work():
                seen.append(gc.isenabled())
            _cold_mask()
            assert gc.get_freeze_count() > frozen
            assert gc.isenabled() == enabled
        assert not freezes_after_cold_masks()
        assert seen == [False]
        freeze_after_cold_masks()
        assert freezes_after_cold_masks()
    finally:
        freeze_after_cold_masks(False)
        gc.unfreeze()  # leave the process as it was for the tests after this one


def test_a_failing_cold_mask_still_restores_the_collector() -> None:
    enabled = gc.isenabled()
    try:
        with frozen_after_cold_masks():
            try:
                with cold_work():
                    assert not gc.isenabled()
                    raise ValueError("a cold mask failed")
            except ValueError:
                pass
            assert gc.isenabled() == enabled
    finally:
        gc.unfreeze()
