"""bench/edits.py: the summary counts what a user gets, and the gold control passes (no model)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT.parent / "shared" / "data" / "edits" / "cases.jsonl"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_edits", ROOT / "bench" / "edits.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(finish: str, applies: bool, passed: bool | None = None) -> dict[str, object]:
    row: dict[str, object] = {"finish_reason": finish, "tokens": 10, "seconds": 1.0, "parsed": True}
    row["applies"] = applies
    if passed is not None:
        row["tests_passed"] = passed
    return row


def test_truncated_outputs_are_counted_apart_and_never_as_applied() -> None:
    runs = [run("stop", True, True), run("stop", True, False), run("length", True), run("length", False)]
    got = bench().summarise(runs)
    assert (got["finished_stop"], got["truncated_length"]) == (2, 2)
    assert got["apply_rate_of_stop"] == 1.0 and got["tests_pass_rate_of_stop"] == 0.5
    assert got["applied_rate_of_all"] == 0.5  # the truncated one whose hunks would apply is not applied
    assert got["tests_pass_rate_of_all"] == 0.25
    assert got["truncated_prefix_applies"] == 1


def test_summarise_reads_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "runs.jsonl"
    rows = [
        {"key": "udiff/constrained", **run("stop", True, True)},
        {"key": "udiff/constrained", **run("length", False)},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bench().main(["--summarise", str(log)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["udiff/constrained"]["runs"] == 2 and got["udiff/constrained"]["applied_rate_of_all"] == 0.5


@pytest.mark.skipif(not CASES.exists(), reason="../shared/data/edits/cases.jsonl is absent")
@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_the_gold_patches_apply_and_pass_their_tests(tmp_path: Path) -> None:
    """The control of the benchmark, on its first cases: every gold patch applies through the
    benchmark's path and the case's tests pass after it (the full 34 run in the benchmark)."""
    module = bench()
    rows = [json.loads(line) for line in CASES.read_text().splitlines()[:3] if line.strip()]
    for row in rows:
        for fmt in ("search-replace", "udiff"):
            got = module.gold_control(row, fmt, tmp_path, 120.0)
            assert got["applied"] and got["tests_passed"], (row["id"], fmt, got, sys.executable)
