"""The closing zone (engine/budget.py, recognizer/shortest.py): shortest completions, the budget
check, exact closing masks, and masks untouched while the budget is ample — real tokenizers."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.errors import BudgetTooSmall
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.schema import compile_schema

BENCH = Path(__file__).resolve().parents[2] / "bench" / "budget.py"


def _engine(gbnf: str, vocab: TokenVocabulary) -> GrammarEngine:
    return GrammarEngine(parse_gbnf(gbnf), vocab)


def test_shortest_output_counts_bytes_and_eos(smol: tuple[Any, TokenVocabulary]) -> None:
    # "x" then three digits (4 bytes) beats "hello" (5): 4 tokens and EOS
    engine = _engine('root ::= "hello" | "x" [0-9]{3} | "long-" [a-z]+', smol[1])
    assert engine.shortest_output() == 5
    # through a rule and a repetition: "[" item ("," item){2,} "]" with item ::= [0-9]
    engine = _engine('root ::= "[" item ("," item){2,5} "]"\nitem ::= [0-9] | "ten"', smol[1])
    assert engine.shortest_output() == 7 + 1


def test_a_budget_below_the_shortest_output_is_refused_in_one_line(smol: tuple[Any, TokenVocabulary]) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    engine = GrammarEngine(compile_schema(schema).grammar, smol[1])
    shortest = engine.shortest_output()
    assert shortest == len('{"name":""}') + 1
    with pytest.raises(BudgetTooSmall) as err:
        engine.matcher(shortest - 1)
    assert (
        str(err.value)
        .splitlines()[0]
        .startswith(
            f"the shortest output this grammar accepts is {shortest} tokens; --max-tokens is {shortest - 1}"
        )
    )
    engine.matcher(shortest)  # exactly enough is fine


def test_a_vocabulary_without_a_byte_counts_only_paths_it_can_write() -> None:
    # no "c" token of its own: "cc" cannot be counted on, the longer "aaa" can
    vocab = TokenVocabulary([b"a", b"b", b"cc", b"<eos>"], special_ids=[3], eos_ids=[3])
    engine = GrammarEngine(parse_gbnf('root ::= "cc" | "aaa"'), vocab)
    assert engine.shortest_output() == 3 + 1
    only_c = GrammarEngine(parse_gbnf('root ::= "cc"'), vocab)
    assert only_c.shortest_output() is None
    with pytest.raises(BudgetTooSmall, match="single-byte tokens"):
        only_c.matcher(10)


def test_closing_masks_are_exact(smol: tuple[Any, TokenVocabulary]) -> None:
    """In the closing zone a token is allowed iff today's mask allows it and, after it, the
    shortest completion (EOS counted) fits in what is left — checked token by token."""
    engine = _engine(
        'root ::= "{" ws "\\"k\\":" ws "[" (num ("," num)*)? "]" ws "}"\nnum ::= [0-9]{1,6}\nws ::= [ ]?',
        smol[1],
    )
    zone = engine.closing
    rng = random.Random(3)
    vocab = engine.vocab
    checked = 0
    for _ in range(20):
        budget = rng.randint(engine.shortest_output() or 0, 40)
        m = engine.matcher(budget)
        while not m.is_terminated():
            left = m.remaining
            assert left is not None
            today = set(engine.allowed_ids(m.config).tolist())
            allowed = set(m.allowed_token_ids().tolist())
            assert allowed <= today
            for t in today - set(vocab.eos_ids):
                fits = zone.need_after(m.config, vocab.token_bytes[t]) <= left - 1
                assert (t in allowed) == fits, (m.output, vocab.token_bytes[t], left)
                checked += 1
            m.consume(rng.choice(sorted(allowed)))
        assert m.is_accepting() and m.consumed <= budget
    assert checked > 1000


def test_try_consume_refuses_a_token_that_leaves_no_room(smol: tuple[Any, TokenVocabulary]) -> None:
    engine = _engine('root ::= "a" | "b" [0-9]{4}', smol[1])
    m = engine.matcher(2)  # "a" + EOS fits; "b" needs 4 more digits
    b = smol[1].token_bytes.index(b"b")
    assert not m.try_consume(b)
    assert m.try_consume(smol[1].token_bytes.index(b"a"))


@pytest.mark.parametrize("name", ["json", "arithmetic", "kv-config"])
def test_ample_budgets_leave_masks_untouched(smol: tuple[Any, TokenVocabulary], name: str) -> None:
    """Far from the budget the matcher hands out the engine's own masks, byte for byte."""
    engine = GrammarEngine(load_bundled(name), smol[1])
    rng = random.Random(5)
    for _ in range(6):
        plain, budgeted = engine.matcher(), engine.matcher(10_000)
        for _ in range(25):
            if plain.is_terminated():
                break
            assert np.array_equal(plain.bitmask(), budgeted.bitmask())
            assert budgeted.mask_state() == (plain.config, -1)
            ids = plain.allowed_token_ids()
            token = int(ids[rng.randrange(ids.size)])
            plain.consume(token)
            budgeted.consume(token)
        assert not budgeted.closed_by_budget


def test_max_need_is_finite_without_recursion_and_bounds_every_state(
    smol: tuple[Any, TokenVocabulary],
) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"enum": ["xy", "zzzz"]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    engine = GrammarEngine(compile_schema(schema).grammar, smol[1])
    zone = engine.closing
    assert not math.isinf(zone.max_need)
    json_zone = GrammarEngine(load_bundled("json"), smol[1]).closing
    assert math.isinf(json_zone.max_need)  # nesting can always need more
    rng = random.Random(2)
    for _ in range(10):
        m = engine.matcher()
        while not m.is_terminated():
            assert zone.need(m.config) <= zone.max_need
            ids = m.allowed_token_ids()
            m.consume(int(ids[rng.randrange(ids.size)]))


def test_random_budgeted_walks_end_complete() -> None:
    """The CI slice of ``python -m bench.budget``: budgets between the shortest output and 3×, uniform
    draws; 0 walks end without accepting, outputs parse/validate/apply, ample masks unchanged."""
    spec = importlib.util.spec_from_file_location("budget_bench", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(walks=160, digest_walks=12, seed=7, edit_files=3)
    assert result["walks"] == 160
    assert result["accepting"] == 160, result["failures"]
    assert result["empty_masks"] == result["not_accepting"] == 0
    assert result["parse_failed"] == result["invalid_exact"] == result["edit_failed"] == 0, result["failures"]
    assert result["parsed"] == 160
    assert result["validated"] >= 60 and result["edits_applied"] >= 5
    assert result["closed_by_budget"] >= 100  # uniform draws never finish: the zone is exercised
    assert result["digest_equal"] and result["digest_masks"] >= 100
