"""Soundness: random constrained walks over the fixture schemas with the real SmolLM2 vocabulary.

Tokens are drawn uniformly from each mask (EOS included when allowed), with a length budget.
Checked: no walk ever meets an empty mask; every walk that ends is accepting; and every ended
walk's output validates with jsonschema whenever the schema's compile report has no approximated
or discarded keyword (otherwise validation failures are counted as "reported").

    python -m bench.soundness --json [--walks 10000] [--budget 48]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "schemas"


def run(walks: int, budget: int, seed: int = 0) -> dict[str, Any]:
    import jsonschema

    from gramwright.engine.matcher import EmptyMaskError, GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.engine.walks import random_walk
    from gramwright.models.loader import load_tokenizer
    from gramwright.schema import compile_schema

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    rng = random.Random(seed)
    schemas = []
    for path in sorted(FIXTURES.glob("*.json")):
        schema = json.loads(path.read_text())
        try:
            compiled = compile_schema(schema, base_uri=path.resolve().as_uri())
        except Exception:  # noqa: BLE001 - a refused fixture is simply not walked
            continue
        exact = all(e.status == "exact" for e in compiled.report.entries)
        cls = jsonschema.validators.validator_for(schema)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        schemas.append((path.stem, GrammarEngine(compiled.grammar, vocab), exact, validator))
    counts = {
        "walks": 0,
        "ended": 0,
        "ended_accepting": 0,
        "empty_masks": 0,
        "validated": 0,
        "invalid_exact": 0,
        "invalid_reported": 0,
        "validator_crashes": 0,
    }
    failures: list[str] = []
    t0 = time.perf_counter()
    for i in range(walks):
        name, engine, exact, validator = schemas[i % len(schemas)]
        counts["walks"] += 1
        try:
            walk = random_walk(engine, rng, budget)
        except EmptyMaskError as exc:
            counts["empty_masks"] += 1
            failures.append(f"{name}: {exc}")
            continue
        if not walk.ended:
            continue
        counts["ended"] += 1
        counts["ended_accepting"] += walk.accepting
        if not walk.accepting:
            failures.append(f"{name}: ended without accepting: {walk.output[:80]!r}")
            continue
        # JSON numbers are exact decimals; parsing them as floats would turn 5e-2087 into 0 and
        # make the validator disagree with the schema's mathematics, so validate Decimals.
        try:
            value = json.loads(walk.output, parse_float=Decimal)
        except ArithmeticError:  # an exponent beyond even Decimal's range: the validator can't parse
            counts["validator_crashes"] += 1
            continue
        try:
            try:
                valid = validator.is_valid(value)
            except TypeError:  # e.g. Decimal % float for a float multipleOf: validate floats then
                valid = validator.is_valid(json.loads(walk.output))
        except Exception as exc:  # noqa: BLE001 - e.g. isoduration overflows on huge durations
            counts["validator_crashes"] += 1
            failures.append(f"{name}: jsonschema failed ({type(exc).__name__}) on {walk.output[:80]!r}")
            continue
        if valid:
            counts["validated"] += 1
        elif exact:
            counts["invalid_exact"] += 1
            failures.append(f"{name}: exact grammar produced an invalid instance: {walk.output[:120]!r}")
        else:
            counts["invalid_reported"] += 1
    return {
        **counts,
        "schemas": len(schemas),
        "budget": budget,
        "seconds": round(time.perf_counter() - t0, 1),
        "failures": failures[:20],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--walks", type=int, default=10_000)
    parser.add_argument("--budget", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.walks, args.budget, args.seed)
    print(json.dumps(result, indent=2) if args.json else result)
    if result["empty_masks"] or result["invalid_exact"] or result["ended"] != result["ended_accepting"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
