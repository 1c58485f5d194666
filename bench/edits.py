"""The edit benchmark: does the model's patch apply, and do the case's tests pass after it?

For each case of ../shared/data/edits/cases.jsonl (or ``--cases FILE`` in that format) and each
format, the same model, prompt and greedy decoding twice: constrained by the file-aware grammar
and unconstrained. Each output goes through the same path — parse, ``check_patch``, apply in a
temporary directory holding the case's file, tests and support files — and then the case's
``test_command`` runs there with a timeout. The gold patches go through the same path as the
control (they must all apply and pass).

Truncated outputs (``finish_reason`` ``length``) are counted apart: the apply rate of the
constrained mode is over the outputs that finished (``stop``), where it must be 100%. A
constrained output always finishes (the masks close it as ``--max-tokens`` nears); those the
budget closed early are counted (``budget_closed``): they apply, but their last block's new text
may be cut, which their tests then show. As in
``gramwright edit --apply``, a truncated output is never applied (its tests are not run); whether
its hunks so far would apply is reported as ``truncated_prefix_applies``.

    python -m bench.edits --json [--cases FILE] [--limit N] [--formats search-replace,udiff]
                          [--max-tokens 256] [--timeout 60] [--model M] [--log runs.jsonl]
                          [--modes constrained,unconstrained] [--max-replace-lines N]
    python -m bench.edits --summarise runs.jsonl
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT.parent / "shared" / "data" / "edits" / "cases.jsonl"


def case_dir(row: dict[str, Any], base: Path) -> Path:
    """A fresh directory with the case's file (original), tests and support files."""
    d = Path(tempfile.mkdtemp(prefix="case-", dir=base))
    files = {row["file_path"]: row["original"], **row.get("test_files", {}), **row.get("support_files", {})}
    for rel, text in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return d


def run_tests(row: dict[str, Any], d: Path, timeout: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    why: int | str
    try:
        done = subprocess.run(
            shlex.split(row["test_command"]),
            cwd=d,
            capture_output=True,
            timeout=timeout,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            check=False,
        )
        passed, why = done.returncode == 0, done.returncode
    except subprocess.TimeoutExpired:
        passed, why = False, "timeout"
    return {"tests_passed": passed, "tests_exit": why, "tests_s": round(time.perf_counter() - t0, 2)}


def _line_ended(text: str) -> str:
    """A section as SEARCH/REPLACE writes it: a file's last line without a newline gets one
    (the format cannot spell its absence; the grammar writes it so, and locating tolerates it)."""
    return text if not text or text.endswith("\n") else text + "\n"


def python_parses(path: Path) -> bool | None:
    """Whether a written Python file still parses (None: not a Python file)."""
    if path.suffix != ".py":
        return None
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return False
    return True


def gold_text(row: dict[str, Any], fmt: str) -> str:
    if fmt == "udiff":
        return str(row["gold_unified_diff"])
    return "".join(
        f"{row['file_path']}\n<<<<<<< SEARCH\n{_line_ended(b['search'])}=======\n"
        f"{_line_ended(b['replace'])}>>>>>>> REPLACE\n"
        for b in row["gold_search_replace"]
    )


def gold_control(row: dict[str, Any], fmt: str, base: Path, timeout: float) -> dict[str, Any]:
    from gramwright.editors import apply_patch, parse_patch

    d = case_dir(row, base)
    result = apply_patch(parse_patch(gold_text(row, fmt), fmt), d)
    out: dict[str, Any] = {"applied": result.applied}
    if result.applied:
        out["parses_after"] = python_parses(d / row["file_path"])
        out.update(run_tests(row, d, timeout))
    return out


def one(
    row: dict[str, Any],
    fmt: str,
    constrain: bool,
    gen: Any,
    sampling: Any,
    base: Path,
    timeout: float,
    max_new_lines: int | None = None,
    fast_forward: bool = True,
) -> dict[str, Any]:
    from gramwright.editors import EditFormat, apply_patch
    from gramwright.editors.generate.edit import generate_edit

    d = case_dir(row, base)
    t0 = time.perf_counter()
    result = generate_edit(
        [d / row["file_path"]],
        row["prompt"],
        fmt=EditFormat(fmt),
        root=d,
        constrain=constrain,
        mode="check",
        sampling=sampling,
        generator=gen,
        max_replace_lines=max_new_lines,
        fast_forward=fast_forward,
    )
    m = result.generation.metrics
    out: dict[str, Any] = {
        "finish_reason": result.finish_reason,
        "tokens": result.generation.tokens,
        "seconds": round(time.perf_counter() - t0, 2),
        "parsed": result.patch is not None,
        "parse_error": result.parse_error,
        # the check alone (a truncated output's hunks so far, too); `applicable` adds "finished"
        "applies": result.report is not None and result.report.ok,
        "refused_syntax": result.report is not None
        and any(p.reason == "syntax" for p in result.report.problems),
        # every edit located exactly (no tolerant level), as `gramwright apply --check` reports
        "check_exact": bool(
            result.applicable and result.report and all(e.status == "exact" for e in result.report.edits)
        ),
        "closed_by_budget": result.closed_by_budget,
        "cut": result.cut,
        "grammar_ms": round(result.grammar_ms, 1),
        "engine_ms": round(result.engine_ms, 1),
        "forward_ms_median": m.get("forward_ms_median"),
        "tokens_per_s": m.get("tokens_per_s"),
        "forced_tokens": m.get("forced_tokens"),
        "forced_accepted_tokens": m.get("forced_accepted_tokens"),
        "accepted_tokens": m.get("accepted_tokens"),
        "forward_passes": m.get("forward_passes"),
        "mask_ms_mean": result.metrics.get("mask_ms_mean"),
        "mask_share_of_forward": result.metrics.get("mask_share_of_forward"),
        "failures": None if result.report is None or result.report.ok else result.report.feedback()[:400],
        "text": result.generation.text,
    }
    # as `gramwright edit --apply`: a truncated output is never applied, even where its hunks so
    # far would apply (counted apart as ``truncated_prefix_applies``)
    if result.applicable and result.patch is not None and result.finish_reason == "stop":
        applied = apply_patch(result.patch, d)
        out["applied"] = applied.applied
        if applied.applied:
            out["parses_after"] = python_parses(d / row["file_path"])
            out.update(run_tests(row, d, timeout))
    return out


def gold_summary(control: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per format: how many gold patches applied and passed, and which did not."""
    return {
        fmt: {
            "applied": sum(g["applied"] for g in runs),
            "tests_passed": sum(bool(g.get("tests_passed")) for g in runs),
            "unparseable_after": sum(g.get("parses_after") is False for g in runs),
            "cases": len(runs),
            "failed": [g["id"] for g in runs if not (g["applied"] and g.get("tests_passed"))],
        }
        for fmt, runs in control.items()
    }


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def rate(num: int, den: int) -> float | None:
        return round(num / den, 3) if den else None

    stop = [r for r in runs if r["finish_reason"] == "stop"]
    shares = [r["mask_share_of_forward"] for r in runs if r.get("mask_share_of_forward") is not None]
    masks = [r["mask_ms_mean"] for r in runs if r.get("mask_ms_mean") is not None]
    total = sum(r["tokens"] / r["tokens_per_s"] for r in runs if r.get("tokens_per_s"))
    tokens = sum(r["tokens"] for r in runs if r.get("forward_passes"))
    passes = sum(r["forward_passes"] for r in runs if r.get("forward_passes"))
    return {
        "runs": len(runs),
        "finished_stop": len(stop),
        "truncated_length": len(runs) - len(stop),
        "parsed_of_stop": rate(sum(r["parsed"] for r in stop), len(stop)),
        "apply_rate_of_stop": rate(sum(r["applies"] for r in stop), len(stop)),
        "tests_pass_rate_of_stop": rate(sum(bool(r.get("tests_passed")) for r in stop), len(stop)),
        # what a user gets per request: a truncated output is not applied, so it passes nothing
        "applied_rate_of_all": rate(sum(r["applies"] for r in stop), len(runs)),
        "tests_pass_rate_of_all": rate(sum(bool(r.get("tests_passed")) for r in stop), len(runs)),
        "truncated_prefix_applies": sum(r["applies"] for r in runs if r["finish_reason"] != "stop"),
        # applied outputs whose Python file no longer parses (the syntax check refuses those)
        "applied_unparseable": sum(r.get("parses_after") is False for r in runs),
        "refused_syntax": sum(bool(r.get("refused_syntax")) for r in runs),
        "check_exact_rate_of_stop": rate(sum(bool(r.get("check_exact")) for r in stop), len(stop)),
        "budget_closed": sum(bool(r.get("closed_by_budget")) for r in runs),
        "tests_passed_of_budget_closed": sum(
            bool(r.get("tests_passed")) for r in runs if r.get("closed_by_budget")
        ),
        "tokens_mean": round(sum(r["tokens"] for r in runs) / len(runs), 1) if runs else None,
        "seconds_mean": round(sum(r["seconds"] for r in runs) / len(runs), 1) if runs else None,
        "mask_ms_mean": round(sum(masks) / len(masks), 3) if masks else None,
        "mask_share_of_forward_mean": round(sum(shares) / len(shares), 4) if shares else None,
        # output tokens over the time of the whole run, and forward passes per output token
        "tokens_per_s": round(sum(r["tokens"] for r in runs) / total, 2) if total else None,
        "forward_passes_per_token": round(passes / tokens, 3) if tokens and passes else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cases", default=str(CASES))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--formats", default="search-replace,udiff")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--model", default=None)
    ap.add_argument("--no-gold", action="store_true")
    ap.add_argument("--log", default=None, help="append each run as one JSON line here as it ends")
    ap.add_argument("--summarise", default=None, metavar="LOG", help="only summarise a --log file")
    ap.add_argument("--start", type=int, default=0, help="skip the first N cases (resume a --log run)")
    ap.add_argument("--gold-only", action="store_true", help="only the gold control (no model)")
    ap.add_argument("--modes", default="constrained,unconstrained")
    ap.add_argument(
        "--no-fast-forward", action="store_true", help="decode forced text step by step (constrained runs)"
    )
    ap.add_argument(
        "--max-replace-lines", type=int, default=None, help="as gramwright edit's (constrained runs only)"
    )
    args = ap.parse_args(argv)
    if args.summarise:
        logged: dict[str, list[dict[str, Any]]] = {}
        for line in Path(args.summarise).read_text().splitlines():
            row = json.loads(line)
            logged.setdefault(row.pop("key"), []).append(row)
        print(json.dumps({key: summarise(runs) for key, runs in logged.items()}, indent=2))
        return 0
    path = Path(args.cases)
    if not path.exists():
        print(f"error: {path}: no such file", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if args.limit:
        rows = rows[: args.limit]
    rows = rows[args.start :]
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    fast_forward = not args.no_fast_forward
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if args.gold_only:
        with tempfile.TemporaryDirectory() as tmp:
            control = {
                f: [{"id": r["id"], **gold_control(r, f, Path(tmp), args.timeout)} for r in rows]
                for f in formats
            }
        print(json.dumps({"cases": len(rows), "gold": gold_summary(control)}, indent=2))
        return 0
    from gramwright.engine.collector import freeze_after_cold_masks
    from gramwright.generation import Generator, SamplingOptions

    freeze_after_cold_masks()  # as the CLI's generation path does (a process that owns its heap)
    gen = Generator(args.model)
    sampling = SamplingOptions(max_tokens=args.max_tokens, temperature=0.0)
    per: dict[str, list[dict[str, Any]]] = {}
    gold: dict[str, list[dict[str, Any]]] = {f: [] for f in formats}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for i, row in enumerate(rows):
            for fmt in formats:
                if not args.no_gold:
                    gold[fmt].append({"id": row["id"], **gold_control(row, fmt, base, args.timeout)})
                for constrain in [m == "constrained" for m in modes]:
                    key = f"{fmt}/{'constrained' if constrain else 'unconstrained'}"
                    cap = args.max_replace_lines if constrain else None
                    got = {
                        "id": row["id"],
                        **one(row, fmt, constrain, gen, sampling, base, args.timeout, cap, fast_forward),
                    }
                    per.setdefault(key, []).append(got)
                    if args.log:
                        with open(args.log, "a", encoding="utf-8") as fh:
                            fh.write(json.dumps({"key": key, **got}) + "\n")
                    print(
                        f"[{i + 1}/{len(rows)}] {key} {row['exercise']}: {got['finish_reason']}"
                        f" applies={got['applies']} tests={got.get('tests_passed')}",
                        file=sys.stderr,
                    )
    out = {
        "cases": len(rows),
        "formats": formats,
        "max_tokens": args.max_tokens,
        "max_replace_lines": args.max_replace_lines,
        "fast_forward": not args.no_fast_forward,
        "model": args.model or "embedded SmolLM2-135M-Instruct",
        "seconds": round(time.perf_counter() - t0, 1),
        "summary": {key: summarise(runs) for key, runs in per.items()},
        "gold": gold_summary(gold),
        "runs": per,
    }
    print(json.dumps(out, indent=2) if args.json else json.dumps(out["summary"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
