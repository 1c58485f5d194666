"""bench/fuzz.py, a slice in CI: a few hundred generated schemas, GBNF texts and patches through
lint, compile, check and the patch checker end in a result or a one-line error within the limit,
with no traceback and no file touched (the campaign itself: ``python -m bench.fuzz --json``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_fuzz", ROOT / "bench" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_fuzz"] = module
    spec.loader.exec_module(module)
    return module


def test_every_generated_input_ends_in_a_result_or_one_line(fuzz: ModuleType) -> None:
    report = fuzz.run_campaign({"schema": 70, "gbnf": 60, "patch": 70}, seed=20261204, limit_s=20.0)
    assert report["examples"] == [], report["examples"]
    assert report["hangs"] == report["tracebacks"] == report["other_errors"] == report["files_changed"] == 0
    doors = report["doors"]
    assert doors["lint"]["runs"] == 70 and doors["compile"]["runs"] == doors["check"]["runs"] == 130
    assert doors["patch"]["runs"] == 70
    # the inputs reach past the readers: some compile, some are refused for what they say
    for door in ("lint", "compile", "check", "patch"):
        assert doors[door]["results"] > 0, (door, doors[door])
    for door in ("compile", "check", "patch"):  # lint reports most bad schemas as findings
        assert doors[door]["one_line_errors"] > 0, (door, doors[door])


def test_the_judge_calls_a_traceback_a_hang_and_a_multi_line_error_failures(fuzz: ModuleType) -> None:
    ok = {"code": 2, "stderr": "error: x.json: empty\n", "stdout_has_traceback": False, "exception": None}
    assert fuzz.verdict(ok, context_allowed=False) == "one-line"
    assert fuzz.verdict(None, context_allowed=False) == "hang"
    assert fuzz.verdict({**ok, "exception": "KeyError: 'x'"}, context_allowed=False) == "traceback"
    boxed = {**ok, "stderr": "Usage: gramwright lint\n╭─ Error ─╮\n│ bad │\n"}
    assert fuzz.verdict(boxed, context_allowed=False) == "other"
    caret = {**ok, "stderr": "error: g.gbnf:1:3: bad\nroot ::= (\n         ^\n"}
    assert fuzz.verdict(caret, context_allowed=True) == "one-line"
    assert fuzz.verdict(caret, context_allowed=False) == "other"
    assert fuzz.verdict({**ok, "code": 0, "stderr": "accepted\n"}, context_allowed=False) == "result"
