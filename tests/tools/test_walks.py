"""Random constrained walks over eleven tools with nested arguments (SmolLM2's vocabulary): every
call names an offered tool, its arguments validate against exactly that tool's schema, no more
calls than --parallel, a named tool_choice calls only that tool, none never calls.
``bench/tools.py`` runs the same checks at scale (≥ 1,000 walks)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.tools import load_tools, prepare_tools
from gramwright.tools.walks import tool_walk, walk_problems

TRAVEL = Path(__file__).resolve().parents[1] / "fixtures" / "tools" / "travel.json"


@pytest.mark.parametrize(
    ("choice", "parallel", "walks"),
    [
        ("auto", 3, 80),
        ("required", None, 80),
        ("required", 1, 60),
        ("book_flight", 1, 40),
        ("create_itinerary", 2, 40),
        ("none", None, 40),
    ],
)
def test_random_walks_keep_every_promise(
    smol: tuple[Any, TokenVocabulary], choice: str, parallel: int | None, walks: int
) -> None:
    tools = load_tools(TRAVEL)
    assert len(tools.tools) >= 10
    session = prepare_tools(tools, choice=choice, parallel=parallel)
    engine = GrammarEngine(session.grammar.grammar, smol[1])
    rng = random.Random(f"{choice}-{parallel}")
    shortest = engine.shortest_output()
    assert shortest is not None
    seen: Counter[str] = Counter()
    for _ in range(walks):
        walk = tool_walk(
            engine, session.grammar, rng, rng.randint(max(shortest, 40), max(shortest, 40) + 120)
        )
        assert walk_problems(walk, session.grammar) == [], walk.text
        seen["calls"] += len(walk.output.tool_calls)
        seen["text"] += bool(walk.output.content)
        seen.update(c.name for c in walk.output.tool_calls)
        if parallel is not None:
            assert len(walk.output.tool_calls) <= parallel
        if choice not in ("auto", "required", "none"):
            assert {c.name for c in walk.output.tool_calls} == {choice}
    if choice == "none":
        assert seen["calls"] == 0 and seen["text"] > 0
    else:
        assert seen["calls"] > 0
    if choice == "required":
        assert len([n for n in seen if n in tools.names]) >= 5  # many tools were called, not one
    if choice == "auto":
        assert seen["text"] > 0  # both branches taken


def test_a_walk_that_breaks_a_promise_is_caught(smol: tuple[Any, TokenVocabulary]) -> None:
    # the checker itself: a call to a tool that was not offered, and too many calls
    session = prepare_tools(str(TRAVEL), choice="get_time", parallel=1)
    engine = GrammarEngine(prepare_tools(str(TRAVEL), choice="required").grammar.grammar, smol[1])
    rng = random.Random(3)
    found: set[str] = set()
    for _ in range(30):
        walk = tool_walk(engine, session.grammar, rng, 200)
        walk.output = session.parse(walk.text)
        found.update(p.split(" ")[0] for p in walk_problems(walk, session.grammar))
    assert found  # calls to other tools than get_time were flagged
