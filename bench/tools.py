"""Tool calling, reasoning sections and their exports: random constrained walks (SmolLM2 vocabulary).

Tools: the eleven tools of ``tests/fixtures/tools/travel.json`` (nested objects, arrays of
objects, ``$ref``, two different ``$defs/address``, patterns, enums, strict and non-strict).
Each walk picks a ``tool_choice`` (auto, required, none, or one tool's name) and a ``parallel``
(unbounded, 1, 2 or 3), a budget of 40-200 tokens, and draws tokens uniformly from each mask
(``auto`` walks are steered to spell the trigger at a random step 70% of the time, so both
branches are taken). Checked on every walk (``gramwright.tools.walks.walk_problems``): the walk
ends accepted; every call names an offered tool and its arguments validate against exactly that
tool's schema; calls never exceed ``parallel``; a named choice calls only that tool; ``none``
never calls; the calls block always parses.

Reasoning: walks with ``--reasoning N`` (N from 15 to 120) before a schema-constrained value and
before a tool turn: the section never takes more than N tokens, and the value always validates.

Exports: for each configuration, the vLLM/SGLang structural tags loaded by XGrammar's
structural-tag compiler and the llama.cpp grammar by XGrammar's and llguidance's GBNF readers,
judged against the recognizer on the walks' outputs, random derivations and one-character
mutants: disagreements must be 0.

    python -m bench.tools --json [--walks 1200] [--reasoning-walks 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRAVEL = ROOT / "tests" / "fixtures" / "tools" / "travel.json"
VALUE_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "integer", "minimum": 0},
        "why": {"type": "string", "maxLength": 40},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3},
    },
    "required": ["answer", "tags"],
    "additionalProperties": False,
}
PARALLEL = (None, 1, 2, 3)
ALPHABET = '"{}[],:0aA \\\n-.<>/t_'


def _walk_tools(walks: int, rng: random.Random, vocab: Any) -> dict[str, Any]:
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.tools import load_tools, prepare_tools
    from gramwright.tools.walks import tool_walk, walk_problems

    toolset = load_tools(TRAVEL)
    choices = ["auto", "required", "none", *toolset.names]
    sessions: dict[tuple[str, int | None], Any] = {}
    counts: Counter[str] = Counter()
    by_choice: Counter[str] = Counter()
    called: Counter[str] = Counter()
    failures: list[str] = []
    for _ in range(walks):
        choice = rng.choice(choices[:3] * 4 + choices[3:])  # the three modes more often than one name
        parallel = rng.choice(PARALLEL)
        key = (choice, parallel)
        if key not in sessions:
            session = prepare_tools(toolset, choice=choice, parallel=parallel)
            sessions[key] = (session, GrammarEngine(session.grammar.grammar, vocab))
        session, engine = sessions[key]
        shortest = engine.shortest_output()
        walk = tool_walk(
            engine, session.grammar, rng, rng.randint(max(shortest, 40), max(shortest, 40) + 160)
        )
        problems = walk_problems(walk, session.grammar)
        counts["walks"] += 1
        by_choice["named" if choice not in ("auto", "required", "none") else choice] += 1
        counts["calls"] += len(walk.output.tool_calls)
        counts["with_text"] += bool(walk.output.content)
        counts["closed_by_budget"] += walk.closed_by_budget
        counts["tokens"] += walk.tokens
        called.update(c.name for c in walk.output.tool_calls)
        if parallel is not None and len(walk.output.tool_calls) == parallel:
            counts["at_parallel_limit"] += 1
        if problems:
            counts["failed"] += 1
            failures.append(f"{choice}/{parallel}: {problems[0]}: {walk.text[:160]!r}")
    return {
        "tools": len(toolset.tools),
        "walks": counts["walks"],
        "failed": counts["failed"],
        "walks_by_choice": dict(by_choice),
        "calls": counts["calls"],
        "tools_called": len(called),
        "walks_with_text": counts["with_text"],
        "walks_at_parallel_limit": counts["at_parallel_limit"],
        "closed_by_budget": counts["closed_by_budget"],
        "tokens_mean": round(counts["tokens"] / max(counts["walks"], 1), 1),
        "failures": failures[:10],
    }


def _walk_reasoning(walks: int, rng: random.Random, vocab: Any) -> dict[str, Any]:
    import jsonschema

    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.sections import SectionedEngine
    from gramwright.engine.walks import uniform_token
    from gramwright.reasoning import Reasoning, split_reasoning
    from gramwright.schema import compile_schema
    from gramwright.tools import prepare_tools
    from gramwright.tools.walks import ToolWalk, walk_problems

    value = GrammarEngine(compile_schema(VALUE_SCHEMA).grammar, vocab)
    tools = prepare_tools(str(TRAVEL), choice="required", parallel=2)
    tool_engine = GrammarEngine(tools.grammar.grammar, vocab)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    most = 0
    for _ in range(walks):
        bound = rng.randint(15, 120)
        reasoning = Reasoning(bound)
        with_tools = rng.random() < 0.4
        main = tool_engine if with_tools else value
        engine = SectionedEngine(GrammarEngine(reasoning.grammar(), vocab), main, bound)
        shortest = engine.shortest_output() or 0
        matcher = engine.matcher(rng.randint(shortest, shortest + 2 * bound + 60))
        while not matcher.is_terminated():
            matcher.consume(uniform_token(matcher, rng))
        counts["walks"] += 1
        counts["section_closed_by_budget"] += matcher.section_closed_by_budget
        most = max(most, matcher.section_consumed - bound)
        thought, rest = split_reasoning(matcher.output.decode(), reasoning)
        problem = ""
        if matcher.section_consumed > bound:
            problem = f"section {matcher.section_consumed} tokens > {bound}"
        elif thought is None:
            problem = "no section"
        elif with_tools:
            out = tools.parse(rest)
            walk = ToolWalk(rest, matcher.consumed, matcher.is_accepting(), out, False)
            problems = walk_problems(walk, tools.grammar)
            problem = problems[0] if problems else ""
        else:
            try:
                jsonschema.validate(json.loads(rest), VALUE_SCHEMA)
            except (ValueError, jsonschema.ValidationError) as exc:
                problem = f"value: {exc}"
        if problem:
            counts["failed"] += 1
            failures.append(f"--reasoning {bound}: {problem}: {matcher.output[:160]!r}")
    return {
        "walks": counts["walks"],
        "failed": counts["failed"],
        "section_closed_by_budget": counts["section_closed_by_budget"],
        "most_over_bound": most,  # max(section tokens - N): must be <= 0
        "failures": failures[:10],
    }


def _exports(rng: random.Random, docs_per_config: int) -> dict[str, Any]:
    from gramwright.reasoning import Reasoning
    from gramwright.schema import compile_schema
    from gramwright.serving.samples import mutate, sample_document
    from gramwright.serving.structural import load_turn_exports
    from gramwright.tools import prepare_tools

    configs: list[tuple[str, Any, Any]] = []
    for choice in ("auto", "required", "none", "book_flight", "create_itinerary"):
        for parallel in PARALLEL:
            for bound in (None, 40):
                session = prepare_tools(str(TRAVEL), choice=choice, parallel=parallel)
                reasoning = Reasoning(bound) if bound else None
                configs.append((f"{choice}/{parallel}/{bound}", session.grammar, reasoning))
    output = compile_schema(VALUE_SCHEMA).grammar
    counts: Counter[str] = Counter(disagreements=0)
    disagreements: list[str] = []
    load_errors: list[str] = []
    for name, grammar, reasoning in [*configs, ("schema/-/40", None, Reasoning(40))]:
        exports = (
            load_turn_exports(grammar, reasoning)
            if grammar is not None
            else load_turn_exports(reasoning=reasoning, output=output)
        )
        counts["configurations"] += 1
        counts["bodies_loaded"] += len(exports.loaded)
        load_errors += [f"{name} {pair}: {err}" for pair, err in exports.load_errors.items()]
        docs = [sample_document(exports.grammar, rng.randrange) for _ in range(docs_per_config)]
        docs += [mutate(d, rng.randrange, ALPHABET) for d in list(docs)]
        for doc in docs:
            case = exports.judge(doc.encode())
            counts["documents"] += 1
            counts["accepted"] += case.ours
            counts["judgements"] += len(case.theirs)
            for pair in case.disagreeing():
                counts["disagreements"] += 1
                disagreements.append(f"{name} {pair}: ours={case.ours} {doc[:120]!r}")
    return {**dict(counts), "load_errors": load_errors[:10], "disagreement_examples": disagreements[:10]}


def run(walks: int, reasoning_walks: int, docs: int, seed: int) -> dict[str, Any]:
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    rng = random.Random(seed)
    t0 = time.perf_counter()
    tools = _walk_tools(walks, rng, vocab)
    t1 = time.perf_counter()
    reasoning = _walk_reasoning(reasoning_walks, rng, vocab)
    t2 = time.perf_counter()
    exports = _exports(rng, docs)
    t3 = time.perf_counter()
    return {
        "tools": tools,
        "reasoning": reasoning,
        "exports": exports,
        "seconds": {"tools": round(t1 - t0, 1), "reasoning": round(t2 - t1, 1), "exports": round(t3 - t2, 1)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--walks", type=int, default=1200)
    parser.add_argument("--reasoning-walks", type=int, default=300)
    parser.add_argument("--docs", type=int, default=60, help="derivations per export configuration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.walks, args.reasoning_walks, args.docs, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for part, values in result.items():
            print(f"{part}: {values}")
    bad = (
        result["tools"]["failed"] + result["reasoning"]["failed"] + result["reasoning"]["most_over_bound"] > 0
    )
    bad = bad or result["exports"].get("disagreements", 0) > 0 or bool(result["exports"]["load_errors"])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
