"""The seed case study's table on the embedded model: ≥ 20 purchase requests (tests/data, Chinese and
English, some with missing information) → the purchase-order schema, in four modes:

  unconstrained   one attempt, no mask; the raw text must parse as it is
  constrained     one attempt under the mask
  retry           constrained + validation + retry with error feedback (no rules, no salvage)
  full            the whole pipeline: x-runtime policy, the rules file, partial and salvage

Per mode: json_valid_rate (the result rests on a complete JSON document), schema_pass_rate (the
returned value validates), rules_pass_rate (… and passes every error rule of the rules file, also
checked for the modes that do not use rules), attempts mean, degraded share, tokens per request.
Greedy decoding is deterministic, so an attempt with the same prompt and limit is generated once
and reused across modes (the first constrained attempt of modes 2–4, the raised-limit attempt of
modes 3–4); its recorded cost is counted in every mode that uses it.

    python -m bench.pipeline --json [--limit N] [--max-tokens 160] [--token-budget 480]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = ROOT / "tests/data/purchase_requests.jsonl"
SCHEMA = ROOT / "docs/examples/purchase_order.json"
RULES = ROOT / "docs/examples/purchase_order.rules.json"
MODES = ("unconstrained", "constrained", "retry", "full")


class CachingBackend:
    """The real backend, each (prompt, limit, mask) generated once (greedy: the same output)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cache: dict[tuple[str, int, bool], Any] = {}
        self.generated_tokens = 0

    def generate(self, request: Any) -> Any:
        key = (request.prompt, request.max_tokens, request.constrain)
        if key not in self.cache:
            out = self.inner.generate(request)
            self.generated_tokens += out.output_tokens
            self.cache[key] = out
        return self.cache[key]


def _policy(mode: str, base: Any, args: argparse.Namespace) -> Any:
    budget = {
        "max_tokens": args.max_tokens,
        "token_budget": args.token_budget,
        "time_budget_s": args.time_budget,
    }
    if mode == "retry":
        return base.with_overrides(max_attempts=3, feedback_on_fail=True, fallback="none", **budget)
    if mode == "full":
        return base.with_overrides(**budget)  # the schema's x-runtime: retry 2, partial_ok, RULE_ENGINE
    return base.with_overrides(max_attempts=1, fallback="none", **budget)


def _row(mode: str, request: dict[str, Any], result: Any, rules: Any, schema: Any) -> dict[str, Any]:
    from gramwright.pipeline.cel_eval import evaluate_rules
    from gramwright.validate import validate_value

    value = result.value
    schema_pass = value is not None and not validate_value(value, schema)
    rules_pass = schema_pass and not [o for o in evaluate_rules(rules, value) if o.severity == "error"]
    source = result.attempts[result.source_attempt] if result.source_attempt is not None else None
    return {
        "mode": mode,
        "id": request["id"],
        "complete_request": request["complete"],
        "status": result.status,
        "json_valid": bool(source and source.parsed and result.status != "failed") or result.status == "ok",
        "schema_pass": schema_pass,
        "rules_pass": rules_pass,
        "attempts": len(result.attempts),
        "finish_reasons": [a.finish_reason for a in result.attempts],
        # the masks close a constrained attempt as its limit nears: complete, values maybe cut short
        "budget_closed": [a.closed_by_budget for a in result.attempts],
        "degraded": result.degraded,
        "output_tokens": result.output_tokens,
        "seconds": round(result.seconds, 2),
        "cause": result.cause,
        "errors": [e.to_dict() for e in result.errors][:4],
        "value": result.to_dict()["value"],
    }


def _unconstrained(request: dict[str, Any], generator: Any, source: Any, args: argparse.Namespace) -> Any:
    """One attempt without a mask; the text must parse as it is (no extraction, no repair)."""
    from gramwright.generation import SamplingOptions
    from gramwright.pipeline.result import Attempt, ResultError, StructuredResult
    from gramwright.validate import validate_output

    started = time.perf_counter()
    gen = generator.run(source, request["prompt"], sampling=SamplingOptions(args.max_tokens), constrain=False)
    seconds = time.perf_counter() - started
    v = validate_output(gen.text.strip(), source.schema, gen.finish_reason, registry=source.registry)
    errors = [ResultError(i.pointer, i.keyword, i.message) for i in v.issues]
    attempt = Attempt(
        0, 0, gen.tokens, seconds, gen.finish_reason, gen.text, args.max_tokens, errors, v.parsed, v.valid
    )
    status = "ok" if v.valid else "failed"
    value, layer = (v.value if v.parsed else None), (1 if v.valid else None)
    confidence, cause = (1.0, "valid") if v.valid else (0.0, "invalid")
    result = StructuredResult(value, status, layer, [attempt], errors, confidence, False, cause)
    result.source_attempt = 0 if v.parsed else None
    return result


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows) or 1
    return {
        "requests": len(rows),
        "json_valid_rate": round(sum(r["json_valid"] for r in rows) / n, 3),
        "schema_pass_rate": round(sum(r["schema_pass"] for r in rows) / n, 3),
        "rules_pass_rate": round(sum(r["rules_pass"] for r in rows) / n, 3),
        "ok_rate": round(sum(r["status"] == "ok" for r in rows) / n, 3),
        "partial_share": round(sum(r["status"] == "partial" for r in rows) / n, 3),
        "degraded_share": round(sum(r["degraded"] for r in rows) / n, 3),
        "attempts_mean": round(sum(r["attempts"] for r in rows) / n, 2),
        "tokens_per_request": round(sum(r["output_tokens"] for r in rows) / n, 1),
        "length_finishes": sum(f == "length" for r in rows for f in r["finish_reasons"]),
        "first_attempt_complete_rate": round(
            sum(bool(r["finish_reasons"]) and r["finish_reasons"][0] == "stop" for r in rows) / n, 3
        ),
        "budget_closes": sum(sum(r.get("budget_closed", [])) for r in rows),
        "first_attempt_budget_closed": sum(
            bool(r.get("budget_closed")) and r["budget_closed"][0] for r in rows
        ),
        "seconds": round(sum(r["seconds"] for r in rows), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="only the first N requests")
    parser.add_argument("--max-tokens", type=int, default=160, help="the first attempt's limit")
    parser.add_argument(
        "--token-budget", type=int, default=480, help="output tokens per request, all attempts"
    )
    parser.add_argument(
        "--time-budget", type=float, default=600.0, help="seconds per request, all attempts (a slow machine)"
    )
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--rows", type=Path, help="also append every row to this JSONL file as it is done")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from gramwright.generation import Generator
    from gramwright.pipeline import GeneratorBackend, Policy, run
    from gramwright.pipeline.rules import load_rules
    from gramwright.sources import load_source

    requests = [
        json.loads(line) for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    requests = requests[: args.limit] if args.limit else requests
    source = load_source(str(SCHEMA))
    rules = load_rules(RULES, schema=source.schema)
    generator = Generator()
    backend = CachingBackend(GeneratorBackend(generator))
    base = Policy.from_schema(source.schema)
    modes = [m for m in args.modes.split(",") if m]
    rows: list[dict[str, Any]] = []
    for mode in modes:
        policy = _policy(mode, base, args)
        for i, request in enumerate(requests):
            if mode == "unconstrained":
                result = _unconstrained(request, generator, source, args)
            else:
                result = run(source, request["prompt"], policy=policy, backend=backend,
                             rules=rules if mode == "full" else None)  # fmt: skip
            rows.append(_row(mode, request, result, rules, source.schema))
            if args.rows:
                with open(args.rows, "a", encoding="utf-8") as fh:
                    fh.write(
                        json.dumps(
                            {**rows[-1], "texts": [a.text for a in result.attempts]}, ensure_ascii=False
                        )
                        + "\n"
                    )
            print(f"[{mode} {i + 1}/{len(requests)}] {result.status} attempts={len(result.attempts)} "
                  f"{[a.finish_reason for a in result.attempts]}", file=sys.stderr, flush=True)  # fmt: skip
    report = {
        "model": generator.load_model().name,
        "requests": len(requests),
        "max_tokens": args.max_tokens,
        "token_budget": args.token_budget,
        "generated_tokens": backend.generated_tokens,
        "modes": {m: _summary([r for r in rows if r["mode"] == m]) for m in modes},
        "rows": rows,
    }
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for mode, s in report["modes"].items():
            print(mode, s)


if __name__ == "__main__":
    main()
