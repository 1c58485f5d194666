"""The pipeline over many rows in batched rounds (``pipeline/rounds.py``, ``extract --batch``):
every row's result equals the one-row pipeline's, retries of failed rows share rounds with new
rows' first attempts, budgets hold per row, and the CLI refuses what it cannot batch. Scripted
backend (deterministic, no model); the real model is in ``test_rounds_model.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gramwright.errors import BudgetTooSmall
from gramwright.pipeline import ScriptedBackend, run
from gramwright.pipeline.backend import AttemptOutput, AttemptRequest
from gramwright.pipeline.rounds import Row, run_rows
from gramwright.sources import load_source

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "docs/examples/purchase_order.json")
RULES = str(ROOT / "docs/examples/purchase_order.rules.json")
GOOD = '{"supplier":"联想","items":[{"name":"笔记本","qty":2,"unit_price":5999}],"total_amount":11998}'
WRONG = '{"supplier":"联想","items":[{"name":"笔记本","qty":2,"unit_price":5999}],"total_amount":1}'

SCRIPTS: list[dict[str, Any]] = [
    {"match": "#1;", "outputs": [{"text": WRONG}, {"text": GOOD}]},  # a rule fails, then ok
    {"match": "#2;", "outputs": [{"text": GOOD[:40], "finish_reason": "length"}]},  # cut twice
    {"match": "#3;", "outputs": [{"text": WRONG}]},  # wrong every time: salvage
    {"match": "#4;", "outputs": [{"text": WRONG, "seconds": 0.6}, {"text": GOOD, "seconds": 0.6}]},
    {"outputs": [{"text": GOOD}]},
]


class Batching:
    """A backend that generates a round in one call, as ``GeneratorBackend.generate_many`` does,
    the outputs coming from a scripted backend (so what each round held can be checked)."""

    def __init__(self, scripted: ScriptedBackend) -> None:
        self.scripted = scripted
        self.calls: list[list[str]] = []  # per call: the requests' "row;attempt"

    def generate_many(self, requests: Sequence[AttemptRequest]) -> list[AttemptOutput | BudgetTooSmall]:
        self.calls.append([f"{r.request};{r.attempt}" for r in requests])
        return [self.scripted.generate(r) for r in requests]


def _rows(n: int) -> list[Row]:
    return [Row(f"row-{i}", f"Extract the order #{i};") for i in range(n)]


@pytest.mark.parametrize("window", [1, 2, 8])
def test_every_row_equals_the_one_row_pipeline_whatever_the_window(window: int) -> None:
    source = load_source(SCHEMA)
    rows = _rows(7)
    policy: dict[str, Any] = {"rules": RULES, "time_budget_s": 1.0}
    one = [run(source, r.prompt, backend=ScriptedBackend(SCRIPTS), **policy).to_dict() for r in rows]
    finished: list[str] = []
    batched = run_rows(
        source,
        rows,
        backend=Batching(ScriptedBackend(SCRIPTS)),
        window=window,
        on_result=lambda row, _result: finished.append(row.key),
        **policy,
    )
    assert [r.to_dict() for r in batched.results] == one
    assert sorted(finished) == [r.key for r in rows]
    statuses = [r["status"] for r in one]
    assert statuses[1] == "ok" and statuses[0] == "ok" and statuses[3] != "ok"  # the script's rows
    # row 4: its second attempt had 0.4 s of its own 1 s left: the budget is the row's
    assert one[4]["cause"] == "time budget" and one[4]["attempts"][1]["finish_reason"] == "timeout"


def test_retries_share_a_round_with_new_rows_first_attempts() -> None:
    source = load_source(SCHEMA)
    backend = Batching(ScriptedBackend(SCRIPTS))
    done = run_rows(source, _rows(7), backend=backend, window=4, rules=RULES, max_attempts=3)
    # rows 0-3 first; then row 1's retry with rows 4-6 (rows 0, 2 done: two places freed, ...)
    assert backend.calls[0] == [f"Extract the order #{i};;0" for i in range(4)]
    second = backend.calls[1]
    assert "Extract the order #1;;1" in second and "Extract the order #4;;0" in second
    assert len(second) <= 4
    assert done.attempts_per_round == [len(c) for c in backend.calls]
    assert sum(done.attempts_per_round) == sum(len(r.attempts) for r in done.results)


def test_a_backend_without_generate_many_runs_the_rounds_request_by_request() -> None:
    source = load_source(SCHEMA)
    scripted = ScriptedBackend(SCRIPTS)
    done = run_rows(source, _rows(3), backend=scripted, rules=RULES)
    assert [r.status == "ok" for r in done.results] == [True, True, False]  # row 2: cut twice
    assert [r.attempt for r in scripted.requests] == [0, 0, 0, 1, 1]


def _inputs(tmp: Path, n: int) -> Path:
    path = tmp / "in.jsonl"
    rows = [{"id": f"row-{i:02d}", "text": f"order #{i};"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _extract(tmp: Path, out: str, *more: str) -> subprocess.CompletedProcess[str]:
    script = tmp / "script.json"
    script.write_text(json.dumps({"scripts": SCRIPTS}), encoding="utf-8")
    args = [
        sys.executable, "-m", "gramwright.cli.main", "extract", "--schema", SCHEMA, "--rules", RULES,
        "--input", str(tmp / "in.jsonl"), "--output", str(tmp / out), "--prompt-template",
        "Extract the order {text}", "--backend", f"scripted:{script}", "--format", "json", *more,
    ]  # fmt: skip
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def test_extract_batch_writes_the_rows_and_summary_of_batch_1(tmp_path: Path) -> None:
    _inputs(tmp_path, 9)
    one = _extract(tmp_path, "one.jsonl")
    four = _extract(tmp_path, "four.jsonl", "--batch", "4")
    assert one.returncode == four.returncode == 1, four.stderr  # some rows are not ok
    assert json.loads(four.stdout) == json.loads(one.stdout)  # the summary, same shape and numbers

    def read(name: str) -> dict[str, Any]:
        lines = (tmp_path / name).read_text("utf-8").splitlines()
        return {row["id"]: row for row in map(json.loads, lines)}

    assert read("four.jsonl") == read("one.jsonl")


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (["--server", "http://127.0.0.1:9"], "with --server give --concurrency"),
        (["--stream"], "give --batch 1 with --stream"),
        (["--backend", "llama-cpp"], "--batch needs the transformers backend"),
    ],
)
def test_extract_batch_refuses_what_it_cannot_batch_in_one_line(
    tmp_path: Path, more: list[str], said: str
) -> None:
    _inputs(tmp_path, 2)
    args = [
        sys.executable, "-m", "gramwright.cli.main", "extract", "--schema", SCHEMA, "--input",
        str(tmp_path / "in.jsonl"), "--output", str(tmp_path / "out.jsonl"), "--batch", "2", *more,
    ]  # fmt: skip
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and said in proc.stderr
    assert not (tmp_path / "out.jsonl").exists()
