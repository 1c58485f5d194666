"""Grounded soundness: random constrained walks over grounded schemas with random sources.

Sources mix CJK, Latin, Cyrillic and emoji text, digits with separators (``1,299``, ``2.50``,
full-width ``３４``, ``-7``), quotes, backslashes, tabs, newlines and other control characters
that JSON must escape. For each source every schema below is grounded in it and walked under a
random token budget (the budget-aware masks: every walk ends), tokens drawn uniformly from each
mask over the SmolLM2 vocabulary. Checked for every walk: no empty mask, the output ends
accepting, it validates against the schema, and every grounded value occurs in the source
(strings as substrings that start and end at word boundaries, numbers among the source's numbers
after ``source_numbers``' normalisation).

    python -m bench.grounded_soundness --json [--walks 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

SCHEMAS: dict[str, dict[str, Any]] = {
    "contact": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-grounded": True},
            "city": {"type": ["string", "null"], "x-grounded": True, "maxLength": 6},
            "age": {"type": ["integer", "null"], "x-grounded": True, "minimum": 0},
            "price": {"type": ["number", "null"], "x-grounded": True},
        },
        "required": ["name", "city", "age", "price"],
    },
    "tags": {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "x-grounded": True,
                "items": {"type": "string", "minLength": 1, "maxLength": 8},
                "maxItems": 3,
            },
            "codes": {"type": "array", "x-grounded": True, "items": {"type": "integer"}, "maxItems": 2},
        },
        "required": ["tags", "codes"],
    },
    "ground-all": {
        # grounded by ``ground_all`` (the --ground option), except the pattern-bound code
        "type": "object",
        "properties": {
            "supplier": {"type": "string"},
            "note": {"type": ["string", "null"], "minLength": 2, "maxLength": 12},
            "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
            "value": {"anyOf": [{"type": "number", "x-grounded": True}, {"type": "null"}]},
        },
        "required": ["supplier", "note", "code", "value"],
    },
}

_PIECES = [
    "上海",
    "北京市朝阳区",
    "张伟",
    "采购部",
    "数量",
    "单价",
    "元",
    "Zürich",
    "São Paulo",
    "Москва",
    "ACME Ltd.",
    "O'Brien",
    'the "best" one',
    "C:\\temp\\x",
    "a\\\\b",
    "\t",
    "\n",
    "\r\n",
    "\x01",
    "\x1f",
    "😀",
    "1,299",
    "2.50",
    "３４",
    "-7",
    "2024-12-04",
    "007",
    "12",
    "3.5kg",
    "，",
    "。",
    " ",
    " ",
    ":",
    "/",
]


def random_source(rng: random.Random) -> str:
    n = rng.randint(0, 14)
    parts = [rng.choice(_PIECES) for _ in range(n)]
    if rng.random() < 0.3:
        parts.append("".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(1, 6))))
    return "".join(parts)


def run(walks: int, seed: int = 0, per_source: int = 6) -> dict[str, Any]:
    import jsonschema

    from gramwright.engine.matcher import EmptyMaskError, GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.errors import SourceError
    from gramwright.grammar.substrings import word_occurrences
    from gramwright.models.loader import load_tokenizer
    from gramwright.schema.grounding import grounded_values
    from gramwright.sources import load_source

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    rng = random.Random(seed)
    compiled = {}
    for name, schema in SCHEMAS.items():
        source = load_source(f"{name}.json", text=json.dumps(schema), ground=name == "ground-all")
        compiled[name] = source
    counts = {
        "walks": 0,
        "sources": 0,
        "refused_sources": 0,
        "empty_masks": 0,
        "ended_accepting": 0,
        "valid": 0,
        "grounded_values": 0,
        "grounded_in_source": 0,
        "grounded_nonempty": 0,  # strings of one character or more, and numbers
        "strings_at_word_boundaries": 0,  # of the non-empty strings
        "strings_nonempty": 0,
        "over_budget": 0,
    }
    failures: list[str] = []
    build_ms: list[float] = []
    t0 = time.perf_counter()
    while counts["walks"] < walks:
        text = random_source(rng)
        counts["sources"] += 1
        for name, base in compiled.items():
            try:
                grounded = base.with_source(text)
            except SourceError:
                # no value of this source fits a required member: refused before generation
                counts["refused_sources"] += 1
                continue
            build_ms.append(grounded.ground_ms)
            engine = GrammarEngine(grounded.grammar, vocab)
            shortest = engine.shortest_output() or 1
            validator = jsonschema.Draft202012Validator(base.schema)
            for _ in range(per_source):
                if counts["walks"] >= walks:
                    break
                counts["walks"] += 1
                budget = rng.randint(shortest, 3 * shortest + 20)
                matcher = engine.matcher(budget)
                try:
                    while True:
                        ids = matcher.allowed_token_ids()
                        token = int(ids[rng.randrange(ids.size)])
                        matcher.consume(token)
                        if token in vocab.eos_ids or matcher.is_terminated():
                            break
                        if matcher.consumed > budget:
                            counts["over_budget"] += 1
                            break
                except EmptyMaskError as exc:
                    counts["empty_masks"] += 1
                    failures.append(f"{name} {text!r}: {exc}")
                    continue
                if not matcher.is_accepting():
                    failures.append(f"{name} {text!r}: ended without accepting: {matcher.output[:80]!r}")
                    continue
                counts["ended_accepting"] += 1
                out = matcher.output.decode("utf-8")
                doc = json.loads(out)
                errors = [e.message for e in validator.iter_errors(doc)]
                if errors:
                    failures.append(f"{name} {text!r}: {out} invalid: {errors[0]}")
                else:
                    counts["valid"] += 1
                for value in grounded_values(doc, base.schema, text):
                    counts["grounded_values"] += 1
                    counts["grounded_nonempty"] += value.value != ""
                    if value.found:
                        counts["grounded_in_source"] += 1
                    else:
                        failures.append(f"{name} {text!r}: {value.pointer}={value.value!r} not in the source")
                    if isinstance(value.value, str) and value.value:
                        counts["strings_nonempty"] += 1
                        if word_occurrences(text, value.value):
                            counts["strings_at_word_boundaries"] += 1
                        else:
                            failures.append(f"{name} {text!r}: {value.pointer}={value.value!r} cuts a word")
    build_ms.sort()
    return {
        **counts,
        "schemas": len(compiled),
        "seconds": round(time.perf_counter() - t0, 1),
        "build_ms_p50": round(build_ms[len(build_ms) // 2], 2) if build_ms else None,
        "build_ms_max": round(build_ms[-1], 2) if build_ms else None,
        "failures": failures[:20],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--walks", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.walks, args.seed)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    ok = (
        not result["failures"]
        and result["grounded_values"] == result["grounded_in_source"]
        and result["strings_nonempty"] == result["strings_at_word_boundaries"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
