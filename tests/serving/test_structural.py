"""Tool-set and reasoning exports load in the engine each targets and agree with our recognizer:
structural tags through XGrammar's structural-tag compiler, llama.cpp's (lazy) grammar through
XGrammar's and llguidance's GBNF readers. Documents: walks of our engine with SmolLM2's tokens,
random derivations of the turn grammar, and one-character mutants of both."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.sections import SectionedEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.engine.walks import uniform_token
from gramwright.reasoning import Reasoning
from gramwright.schema import compile_schema
from gramwright.serving.samples import mutate, sample_document
from gramwright.serving.structural import load_turn_exports
from gramwright.tools import prepare_tools
from gramwright.tools.export import export_turn
from gramwright.tools.walks import tool_walk

pytest.importorskip("xgrammar")
pytest.importorskip("llguidance")
pytestmark = pytest.mark.bench

TRAVEL = Path(__file__).resolve().parents[1] / "fixtures" / "tools" / "travel.json"
ALPHABET = '"{}[],:0aA \\\n-.<>/t_'
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
    "required": ["n"],
}
CASES = [
    ("auto", None, None),
    ("auto", 2, 40),
    ("required", None, None),
    ("required", 1, 24),
    ("book_flight", 1, None),
    ("search_restaurants", 3, 64),
    ("none", None, None),
    ("none", None, 20),
]


@pytest.mark.parametrize(("choice", "parallel", "bound"), CASES)
def test_tool_exports_load_and_agree(
    smol: tuple[Any, TokenVocabulary], choice: str, parallel: int | None, bound: int | None
) -> None:
    session = prepare_tools(str(TRAVEL), choice=choice, parallel=parallel)
    reasoning = Reasoning(bound) if bound else None
    exports = load_turn_exports(session.grammar, reasoning)
    assert exports.load_errors == {}
    assert len(exports.loaded) == 4
    rng = random.Random(f"{choice}{parallel}{bound}")
    docs = []
    # what our engine generates (real tokens, the budget closing the section and the calls)
    engine = GrammarEngine(session.grammar.grammar, smol[1])
    for _ in range(6):
        if reasoning is None:
            docs.append(tool_walk(engine, session.grammar, rng, rng.randint(120, 220)).text)
            continue
        sectioned = SectionedEngine(GrammarEngine(reasoning.grammar(), smol[1]), engine, reasoning.max_tokens)
        matcher = sectioned.matcher(rng.randint(180, 260))
        while not matcher.is_terminated():
            matcher.consume(uniform_token(matcher, rng))
        docs.append(matcher.output.decode())
    docs += [sample_document(exports.grammar, rng.randrange) for _ in range(40)]
    docs += [mutate(d, rng.randrange, ALPHABET) for d in list(docs) for _ in range(2)]
    docs += ["", "plain text", "text <tool_call> not a call", '<tool_call>\n{"name": "nope"}']
    accepted = 0
    for doc in docs:
        case = exports.judge(doc.encode())
        assert case.disagreeing() == [], (doc, case.ours, case.theirs)
        accepted += case.ours
    assert 0 < accepted < len(docs)  # both verdicts were exercised


@pytest.mark.parametrize("bound", [16, 100])
def test_reasoning_before_a_schema_exports_load_and_agree(bound: int) -> None:
    output = compile_schema(SCHEMA).grammar
    exports = load_turn_exports(reasoning=Reasoning(bound), output=output)
    assert exports.load_errors == {}
    rng = random.Random(bound)
    docs = [sample_document(exports.grammar, rng.randrange) for _ in range(60)]
    docs += [mutate(d, rng.randrange, ALPHABET) for d in list(docs)]
    for doc in docs:
        case = exports.judge(doc.encode())
        assert case.disagreeing() == [], (doc, case.ours, case.theirs)


def test_the_bodies_say_what_the_servers_read() -> None:
    session = prepare_tools(str(TRAVEL), choice="auto", parallel=1)
    vllm = export_turn("vllm-request", tools=session.grammar, reasoning=Reasoning(50)).body
    assert vllm["response_format"]["type"] == "structural_tag"
    section, answer = vllm["response_format"]["format"]["elements"]
    assert answer["elements"][0] == {"type": "any_text", "excludes": ["<tool_call>"]}
    assert section["begin"] == "<think>" and section["content"]["max_tokens"] == 50
    assert vllm["example"]["thinking_token_budget"] == 50
    assert vllm["example"]["parallel_tool_calls"] is False and vllm["example"]["tool_choice"] == "auto"
    llama = export_turn("llamacpp-request", tools=session.grammar).body["body"]
    assert llama["grammar_lazy"] is True
    assert llama["grammar_triggers"] == [{"type": 1, "value": "<tool_call>"}]
    assert llama["grammar"].startswith("root ::= tool-calls")
    named = prepare_tools(str(TRAVEL), choice="get_time")
    body = export_turn("sglang-request", tools=named.grammar).body
    assert body["example"]["tool_choice"] == {"type": "function", "function": {"name": "get_time"}}
    tags = json.dumps(body["response_format"])
    assert "get_time" in tags and "get_weather" not in tags  # only the chosen tool
