"""Lint every JSONSchemaBench schema: lint time per schema and how often each rule fires.

    python -m bench.lint                      # Markdown summary on stdout
    python -m bench.lint --json               # the same numbers as JSON
    python -m bench.lint --write-docs docs/lint-rules.md
    python -m bench.lint --compile            # include our compiler (compile report, cost estimate)
    python -m bench.lint --with-compiler-run  # plus a third run: gramwright with our compiler

Timing is wall-clock per ``lint_schema`` call after a warm-up (imports and metaschema set-up are
excluded). Without ``--compile`` the compile-report rules (compile/*, size/grammar-budget) are
not run and their cost is excluded; with it, their cost is included and compile time is also
reported on its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from gramwright.lint import LintOptions, lint_schema, load_profile
from gramwright.lint.docs import profiles_markdown, rules_markdown
from gramwright.lint.linter import INTERNAL_RULE

ROOT = Path(__file__).resolve().parents[1]

DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
SPLITS = (
    "Github_easy",
    "Github_medium",
    "Github_trivial",
    "Glaiveai2K",
    "JsonSchemaStore",
    "Kubernetes",
    "Snowplow",
)
PROFILES = ("gramwright", "openai-strict")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load(data: Path, step: int) -> list[tuple[str, Any]]:
    out = []
    for split in SPLITS:
        for path in sorted((data / split).glob("*.json"))[::step]:
            out.append((f"{split}/{path.name}", json.loads(path.read_text("utf-8"))["schema"]))
    return out


def run(
    schemas: list[tuple[str, Any]], profiles: tuple[str, ...], compile_: bool, suffix: str = ""
) -> dict[str, Any]:
    options = LintOptions(compile=compile_, compile_timeout_s=10.0)
    lint_schema({"type": "object", "properties": {"a": {"type": "string"}}}, options=options)  # warm-up
    result: dict[str, Any] = {}
    for name in profiles:
        profile = load_profile(name)
        times: list[float] = []
        compile_ms: list[float] = []
        schemas_with: Counter[str] = Counter()
        diagnostics: Counter[str] = Counter()
        severities: dict[str, Counter[str]] = defaultdict(Counter)
        crashes: list[str] = []
        examples: dict[str, list[str]] = defaultdict(list)
        for file, schema in schemas:
            start = time.perf_counter()
            report = lint_schema(schema, profile=profile, options=options, file=file)
            times.append((time.perf_counter() - start) * 1000)
            if report.cost.compile_ms is not None:
                compile_ms.append(report.cost.compile_ms)
            json.dumps([d.to_dict() for d in report.diagnostics], ensure_ascii=False)
            for d in report.diagnostics:
                diagnostics[d.rule] += 1
                severities[d.rule][d.severity] += 1
                if d.rule == INTERNAL_RULE:
                    crashes.append(f"{file}: {d.message}")
            for rule in {d.rule for d in report.diagnostics}:
                schemas_with[rule] += 1
                if len(examples[rule]) < 3:
                    examples[rule].append(file)
        result[name + suffix] = {
            "profile": profile.label + suffix,
            "lint_ms": {
                "median": round(statistics.median(times), 2),
                "p90": round(_percentile(times, 0.90), 2),
                "p99": round(_percentile(times, 0.99), 2),
                "max": round(max(times), 1),
                "total_s": round(sum(times) / 1000, 1),
            },
            "compile_ms": (
                {
                    "median": round(statistics.median(compile_ms), 2),
                    "p90": round(_percentile(compile_ms, 0.9), 2),
                }
                if compile_ms
                else None
            ),
            "crashes": crashes,
            "rules": {
                rule: {
                    "schemas": schemas_with[rule],
                    "diagnostics": diagnostics[rule],
                    "severity": dict(severities[rule]),
                    "examples": examples[rule],
                }
                for rule in sorted(schemas_with, key=lambda r: (-schemas_with[r], r))
            },
        }
    return result


def frequency_table(result: dict[str, Any], total: int) -> str:
    names = list(result)
    rules = sorted({r for p in result.values() for r in p["rules"]}, key=lambda r: (-max(
        result[p]["rules"].get(r, {"schemas": 0})["schemas"] for p in names), r))  # fmt: skip
    short = {"error": "E", "warn": "W", "info": "I"}
    lines = [
        "| rule | " + " | ".join(f"{result[p]['profile']}: schemas (share) severity" for p in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for rule in rules:
        cells = []
        for p in names:
            info = result[p]["rules"].get(rule)
            if info is None:
                cells.append("–")
                continue
            sev = "/".join(short[s] for s in ("error", "warn", "info") if s in info["severity"])
            cells.append(f"{info['schemas']} ({100 * info['schemas'] / total:.1f}%) {sev}")
        lines.append(f"| `{rule}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def timing_table(result: dict[str, Any]) -> str:
    lines = [
        "| run | median ms | p90 ms | p99 ms | max ms | total s | compile ms median / p90 | crashes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in result.values():
        t = p["lint_ms"]
        c = p["compile_ms"]
        compile_cell = f"{c['median']} / {c['p90']}" if c else "not run"
        cells = [
            p["profile"],
            t["median"],
            t["p90"],
            t["p99"],
            t["max"],
            t["total_s"],
            compile_cell,
            len(p["crashes"]),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


DOC_HEAD = """# Schema lint rules

`gramwright lint` checks a JSON Schema for everything that hurts constrained decoding, for one target
engine or provider at a time. Engines and providers fail in three ways on the same schema: they
**reject** it (error), they **silently drop or change** a keyword (warn: the output can violate the
schema while everything looks fine), or they accept it but it is **costly or risky** to decode (warn)
or of lower quality (info).

```
gramwright lint SCHEMA... [--profile P] [--format human|json|sarif] [--fail-on error|warn|info]
                          [--ignore RULE]... [--max-tokens N] [--tokenizer MODEL] [--no-compile]
gramwright lint --list-rules            # this document's rule section
```

Exit codes: 0 nothing at or above `--fail-on` (default `error`), 1 something is, 2 usage error or an
unreadable / non-JSON input (`schema.json:3:5: invalid JSON: ...`). `--format json` prints a list of
diagnostics `{rule, severity, message, pointer, profile, hint, fix, file}` (`pointer` is an RFC 6901
JSON Pointer, `fix` a JSON Patch when a mechanical fix exists); `--format sarif` prints SARIF 2.1.0
with line/column regions for CI annotations. The human format also prints the cost estimate: nesting
depth, optional properties, largest enum, worst-case output tokens (with `--tokenizer`, or bytes/3.5
flagged `≈`), and our compiler's grammar rules, GBNF bytes and compile time.

With the `gramwright` profile the compile report of our own compiler is authoritative: every keyword
it approximates or discards is reported with its pointer (`compile/uncompilable-keyword`: checked
after generation only), and generic capability rules stay silent where that report speaks.

## Target profiles

Profiles are versioned data files in `toolchain/lint/profiles/` (limits, supported keywords and
formats, per-rule severities; `_base.json` holds the shared decoding-risk thresholds). Select a
dated version with `NAME@VERSION` (a prefix is enough): `openai-strict@2024-08` has the launch
limits (100 properties, 5 levels, 15,000 characters, 500 enum values), `openai-strict` the current
ones (5,000, 10, 120,000, 1,000). Provider profiles encode the providers' documented behaviour as of
each version's date; they were written from documentation and were not checked against the live APIs.

"""


def write_docs(path: Path, result: dict[str, Any], total: int, command: str, compile_: bool) -> None:
    if compile_:
        note = "Lint time includes our compiler (compile report and cost estimate)."
    else:
        note = (
            "The profile runs exclude our compiler (the compile-report rules `compile/*` and "
            "`size/grammar-budget` were not run); a `+ compiler` run includes it, with the compiler's own "
            "time shown separately."
        )
    text = (
        DOC_HEAD
        + profiles_markdown()
        + f"\n## Rule frequency over JSONSchemaBench\n\nAll {total} schemas of the 7 splits in "
        "`../shared/data/jsonschemabench` (Github_easy, Github_medium, Github_trivial, Glaiveai2K, "
        "JsonSchemaStore, Kubernetes, Snowplow), linted under two profiles (and, where listed, once more "
        "under `gramwright` with our compiler, which adds the `compile/*` rows). Produced by:\n\n"
        f"```\n{command}\n```\n\n"
        "A cell is the number of schemas with at least one finding of the rule, its share of all schemas, "
        "and the severities seen (E/W/I).\n\n"
        + frequency_table(result, total)
        + f"\n\nLint time per schema (2 shared CPU cores, wall clock). {note}\n\n"
        + timing_table(result)
        + "\n\n## Rules\n\n"
        + rules_markdown()
        + "\n"
    )
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--data", type=Path, default=DATA, help="the jsonschemabench folder")
    parser.add_argument("--step", type=int, default=1, help="lint every Nth schema of each split")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated profiles")
    parser.add_argument("--compile", action="store_true", help="run our compiler as part of lint")
    parser.add_argument(
        "--with-compiler-run", action="store_true", help="add a gramwright run with our compiler"
    )
    parser.add_argument("--write-docs", type=Path, help="write the rule documentation with these numbers")
    args = parser.parse_args()
    if not args.data.is_dir():
        parser.error(f"{args.data}: no such folder")
    schemas = load(args.data, args.step)
    profiles = tuple(p.strip() for p in args.profiles.split(",") if p.strip())
    result = run(schemas, profiles, args.compile)
    if args.with_compiler_run and not args.compile:
        result.update(run(schemas, ("gramwright",), True, suffix=" + compiler"))
    command = "python -m bench.lint " + " ".join(sys.argv[1:])
    if args.write_docs:
        write_docs(args.write_docs, result, len(schemas), command.strip(), args.compile)
        print(f"wrote {args.write_docs}", file=sys.stderr)
    if args.json:
        print(json.dumps({"command": command.strip(), "schemas": len(schemas), "profiles": result}, indent=2))
    else:
        print(f"{len(schemas)} schemas\n\n{timing_table(result)}\n\n{frequency_table(result, len(schemas))}")


if __name__ == "__main__":
    main()
