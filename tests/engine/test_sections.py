"""A bounded reasoning section then the constrained value (engine/sections.py, reasoning.py):
random walks never take more than N tokens in the section and always end in a valid value."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest

from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.sections import SectionedEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.engine.walks import uniform_token
from gramwright.errors import EngineError
from gramwright.reasoning import Reasoning, ReasoningError, split_reasoning
from gramwright.schema import compile_schema

SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
    },
    "required": ["answer", "tags"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def vocab(smol: tuple[Any, TokenVocabulary]) -> TokenVocabulary:
    return smol[1]


@pytest.fixture(scope="module")
def value(vocab: TokenVocabulary) -> GrammarEngine:
    return GrammarEngine(compile_schema(SCHEMA).grammar, vocab)


@pytest.mark.parametrize(
    ("bound", "markers"),
    [(15, ("<think>", "</think>")), (24, ("<think>", "</think>")), (64, ("<reasoning>", "</reasoning>"))],
)
def test_reasoning_walks_stay_within_the_bound_and_end_valid(
    vocab: TokenVocabulary, value: GrammarEngine, bound: int, markers: tuple[str, str]
) -> None:
    reasoning = Reasoning(bound, *markers)
    engine = SectionedEngine(GrammarEngine(reasoning.grammar(), vocab), value, bound)
    rng = random.Random(bound)
    shortest = engine.shortest_output()
    assert shortest is not None
    lengths = []
    for _ in range(40):
        budget = rng.randint(shortest, shortest + 2 * bound)
        matcher = engine.matcher(budget)
        while not matcher.is_terminated():
            matcher.consume(uniform_token(matcher, rng))
        assert matcher.section_consumed <= bound
        assert matcher.consumed <= budget
        thought, answer = split_reasoning(matcher.output.decode(), reasoning)
        assert thought is not None and markers[1] not in thought
        jsonschema.validate(json.loads(answer), SCHEMA)
        lengths.append(matcher.section_consumed)
    assert max(lengths) > bound // 2  # the section was used, not skipped


def test_the_section_is_closed_by_its_own_budget(vocab: TokenVocabulary, value: GrammarEngine) -> None:
    reasoning = Reasoning(20)
    engine = SectionedEngine(GrammarEngine(reasoning.grammar(), vocab), value, 20)
    rng = random.Random(7)
    closed = 0
    for _ in range(20):
        matcher = engine.matcher(200)
        while not matcher.is_terminated():
            matcher.consume(uniform_token(matcher, rng))
        closed += matcher.section_closed_by_budget
        assert matcher.section_consumed <= 20
    assert closed > 0  # uniform draws never write </think> by chance: the budget closed it


def test_a_bound_below_the_markers_is_refused(vocab: TokenVocabulary, value: GrammarEngine) -> None:
    with pytest.raises(EngineError, match="needs 15 tokens at least") as err:
        SectionedEngine(GrammarEngine(Reasoning(5).grammar(), vocab), value, 5)
    assert err.value.hint == "give --reasoning 15 or more"


def test_the_total_budget_leaves_room_for_the_value(vocab: TokenVocabulary, value: GrammarEngine) -> None:
    reasoning = Reasoning(100)
    engine = SectionedEngine(GrammarEngine(reasoning.grammar(), vocab), value, 100)
    value_shortest = value.shortest_output()
    assert value_shortest is not None
    rng = random.Random(1)
    budget = 16 + value_shortest + 3  # the section gets what the value does not need
    matcher = engine.matcher(budget)
    while not matcher.is_terminated():
        matcher.consume(uniform_token(matcher, rng))
    assert matcher.section_consumed <= budget - value_shortest
    json.loads(split_reasoning(matcher.output.decode(), reasoning)[1])


def test_rollback_crosses_the_boundary(vocab: TokenVocabulary, value: GrammarEngine) -> None:
    reasoning = Reasoning(30)
    engine = SectionedEngine(GrammarEngine(reasoning.grammar(), vocab), value, 30)
    rng = random.Random(2)
    matcher = engine.matcher(120)
    while matcher.in_section:
        matcher.consume(uniform_token(matcher, rng))
    section = matcher.section_consumed
    matcher.consume(uniform_token(matcher, rng))
    matcher.rollback(2)
    assert matcher.in_section and matcher.consumed == section - 1


def test_markers_and_bounds_are_checked() -> None:
    with pytest.raises(ReasoningError, match="1 or more"):
        Reasoning(0)
    with pytest.raises(ReasoningError, match="first character"):
        Reasoning(10, "<t>", "<</t>")
    assert split_reasoning("no section", Reasoning(20)) == (None, "no section")
    assert split_reasoning("<think>a</think>{}", Reasoning(20)) == ("a", "{}")
