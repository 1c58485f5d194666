"""Differential benchmark: gramwright apply against the real ``git apply`` on generated patches.

Each case is an original tree, an edited tree (LF / CRLF / mixed files, tabs, blank and repeated
lines, with and without a final newline, non-ASCII, a lone CR; edits, creations, deletions) and a
target tree — the original, or the original with one mutation so that some patches should not
apply. ``git diff --no-index`` writes the patch; ``git apply`` and ``gramwright`` apply it to
copies of the target. They must end with identical trees (bytes and mode bits) or both refuse;
every other outcome is a disagreement, unless it is a difference docs/patches.md documents.
The generator is bench/patch_cases.py, the same one the CI test drives through hypothesis.

    python -m bench.apply --json [--cases 1000] [--seed 0] [--show 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any


def run(cases: int, seed: int, show: int) -> dict[str, Any]:
    from bench.patch_cases import generate, run_case

    rng = random.Random(seed)
    verdicts: Counter[str] = Counter()
    documented: Counter[str] = Counter()
    mutations: Counter[str] = Counter()
    disagreements: list[dict[str, Any]] = []
    git_times: list[float] = []
    our_times: list[float] = []
    started = time.perf_counter()
    for index in range(cases):
        case = generate(lambda lo, hi: rng.randint(lo, hi))
        outcome = run_case(case)
        mutations[case.mutation] += 1
        git_times.append(outcome.git_seconds)
        our_times.append(outcome.our_seconds)
        verdict = ("both applied" if outcome.git_applied else "both refused") if outcome.agree else "disagree"
        verdicts[verdict] += 1
        if not outcome.agree:
            kind = outcome.documented
            if kind:
                documented[kind] += 1
            elif len(disagreements) < show:
                disagreements.append(
                    {
                        "case": index,
                        "mutation": case.mutation,
                        "git_applied": outcome.git_applied,
                        "ours_applied": outcome.ours_applied,
                        "crashed": outcome.crashed,
                        "patch": outcome.patch,
                        "git_error": outcome.git_error,
                        "our_error": outcome.our_error,
                    }
                )
    undocumented = verdicts["disagree"] - sum(documented.values())
    return {
        "cases": cases,
        "seed": seed,
        "both_applied_identical_trees": verdicts["both applied"],
        "both_refused": verdicts["both refused"],
        "documented_differences": dict(documented),
        "undocumented_disagreements": undocumented,
        "mutations": dict(mutations),
        "git_apply_ms_median": round(statistics.median(git_times) * 1000, 2),
        "gramwright_apply_ms_median": round(statistics.median(our_times) * 1000, 2),
        "gramwright_apply_ms_p99": round(sorted(our_times)[int(0.99 * (len(our_times) - 1))] * 1000, 2),
        "wall_s": round(time.perf_counter() - started, 1),
        "first_disagreements": disagreements,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="undocumented disagreements to include")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    result = run(args.cases, args.seed, args.show)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for key, value in result.items():
            if key != "first_disagreements":
                print(f"{key}: {value}")
        for item in result["first_disagreements"]:
            verdicts = f"git {item['git_applied']}, ours {item['ours_applied']}"
            print(f"--- case {item['case']} ({item['mutation']}): {verdicts}")
            print(item["patch"])
    sys.exit(1 if result["undocumented_disagreements"] else 0)


if __name__ == "__main__":
    main()
