"""Batch extraction: one output row per input row, resumable after a crash (SIGKILL through the real
CLI process, scripted backend), a torn last line redone, the summary consistent with the rows; and
`validate` / `report` from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gramwright.errors import PipelineError
from gramwright.pipeline import ScriptedBackend, run
from gramwright.pipeline.batch import read_done, read_inputs, run_batch
from gramwright.pipeline.metrics import read_metrics, summarize
from gramwright.sources import load_source

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "docs/examples/purchase_order.json")
RULES = str(ROOT / "docs/examples/purchase_order.rules.json")
GOOD = '{"supplier":"联想","items":[{"name":"笔记本","qty":2,"unit_price":5999}],"total_amount":11998}'
WRONG = '{"supplier":"联想","items":[{"name":"笔记本","qty":2,"unit_price":5999}],"total_amount":1}'


def _script(tmp: Path, sleep: float = 0.0) -> Path:
    scripts = [
        {"match": "#3;", "outputs": [{"text": WRONG}, {"text": GOOD}], "sleep": sleep},  # ok after one retry
        {"match": "#7;", "outputs": [{"text": GOOD[:40], "finish_reason": "length"}], "sleep": sleep},
        {"outputs": [{"text": GOOD}], "sleep": sleep},
    ]
    path = tmp / "script.json"
    path.write_text(json.dumps({"scripts": scripts}), encoding="utf-8")
    return path


def _inputs(tmp: Path, n: int) -> Path:
    path = tmp / "in.jsonl"
    rows = [{"id": f"row-{i:02d}", "text": f"order #{i};"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gramwright.cli.main", *args]


def _extract_args(tmp: Path, script: Path) -> list[str]:
    return _cli(
        "extract", "--schema", SCHEMA, "--rules", RULES, "--input", str(tmp / "in.jsonl"),
        "--output", str(tmp / "out.jsonl"), "--metrics", str(tmp / "m.jsonl"),
        "--prompt-template", "Extract the order: {text}", "--backend", f"scripted:{script}",
        "--format", "json",
    )  # fmt: skip


def test_extract_killed_halfway_and_rerun_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    _inputs(tmp_path, 50)
    script = _script(tmp_path, sleep=0.08)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(_extract_args(tmp_path, script), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 20:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the batch finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_rows = read_done(out)
    assert 20 <= len(killed_rows) < 50
    rerun = subprocess.run(_extract_args(tmp_path, script), capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 1, rerun.stderr  # row 7 is not ok: findings
    assert "resuming" in rerun.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    ids = [r["id"] for r in rows]
    assert len(rows) == 50 and len(set(ids)) == 50 and set(ids) == {f"row-{i:02d}" for i in range(50)}
    assert rows[: len(killed_rows)] == killed_rows  # nothing rewritten
    by_id = {r["id"]: r for r in rows}
    assert by_id["row-03"]["status"] == "ok" and by_id["row-03"]["layer"] == 2
    assert by_id["row-07"]["status"] != "ok"
    # the summary printed, the metrics file and `report` agree with the rows
    summary = json.loads(rerun.stdout)
    metrics = read_metrics(tmp_path / "m.jsonl")
    assert len(metrics) == 50 and {m["id"] for m in metrics} == set(ids)
    assert summary == summarize(metrics)
    statuses = [r["status"] for r in rows]
    assert summary["status"] == {s: statuses.count(s) for s in ("ok", "partial", "degraded", "failed")}
    # row 3: one retry; row 7: cut, max_tokens raised once, cut again
    assert summary["attempts_histogram"] == {"1": 48, "2": 2}
    report = subprocess.run(
        _cli("report", str(tmp_path / "m.jsonl"), "--format", "json"), capture_output=True, text=True
    )
    assert report.returncode == 0 and json.loads(report.stdout) == summary


def test_a_torn_last_line_is_redone_and_metrics_resync(tmp_path: Path) -> None:
    source = load_source(SCHEMA)
    inputs = read_inputs(_inputs(tmp_path, 4), "{text}")
    out, metrics = tmp_path / "out.jsonl", tmp_path / "m.jsonl"
    backend = ScriptedBackend.of(GOOD)
    solve = lambda item: run(source, item.prompt, backend=backend)  # noqa: E731
    run_batch(inputs[:2], out, solve, metrics=metrics)
    with open(out, "a", encoding="utf-8") as fh:
        fh.write('{"id": "row-02", "status": "o')  # the process died mid-write
    metrics.write_text(metrics.read_text("utf-8").splitlines(keepends=True)[0], encoding="utf-8")  # lost one
    rows = run_batch(inputs, out, solve, metrics=metrics)
    assert [r["id"] for r in rows] == ["row-00", "row-01", "row-02", "row-03"]
    assert [json.loads(x)["id"] for x in out.read_text("utf-8").splitlines()] == [r["id"] for r in rows]
    assert sorted(m["id"] for m in read_metrics(metrics)) == [r["id"] for r in rows]


def test_bad_inputs_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": 1, "text": "a"}\n{"id": 1, "text": "b"}\n', encoding="utf-8")
    with pytest.raises(PipelineError, match="duplicate id") as info:
        read_inputs(path)
    assert info.value.where.endswith(":2")
    path.write_text('{"id": 1, "text": "a", "prompt": "b"}\n', encoding="utf-8")
    with pytest.raises(PipelineError, match=r"\{id, prompt\} or \{id, text\}"):
        read_inputs(path)
    path.write_text('{"id": 1, "text": "a"}\n', encoding="utf-8")
    with pytest.raises(PipelineError, match="prompt-template"):
        read_inputs(path, "{body}")


def test_validate_command_on_text_jsonl_and_stdin(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(
        "Sure:\n```json\n" + GOOD.replace('"supplier"', "'supplier'") + "\n```", encoding="utf-8"
    )
    args = _cli("validate", "--schema", SCHEMA, "--rules", RULES, str(answer), "--format", "json")
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["status"] == "ok" and result["repaired"] and result["reading"]["extracted"] == "fence"
    lines = tmp_path / "outs.jsonl"
    rows = [{"id": "a", "text": GOOD}, {"id": "b", "text": GOOD[:50], "finish_reason": "length"}]
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    both = subprocess.run(_cli("validate", "--schema", SCHEMA, str(lines)), capture_output=True, text=True)
    assert both.returncode == 1 and "a: ok (layer 2)" in both.stdout and "b: failed" in both.stdout
    piped = subprocess.run(
        _cli("validate", "--schema", SCHEMA, "-"), input="no json at all", capture_output=True, text=True
    )
    assert piped.returncode == 1 and "failed" in piped.stdout
    missing = subprocess.run(
        _cli("validate", "--schema", SCHEMA, str(tmp_path / "nope.txt")), capture_output=True, text=True
    )
    assert missing.returncode == 2 and missing.stderr.startswith("error:")


def test_unknown_x_runtime_keys_are_warned_about(tmp_path: Path) -> None:
    schema = json.loads(Path(SCHEMA).read_text("utf-8"))
    schema["x-runtime"]["retries"] = 5
    path = tmp_path / "po.json"
    path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    done = subprocess.run(
        _cli("validate", "--schema", str(path), "-"), input=GOOD, capture_output=True, text=True
    )
    assert (
        done.returncode == 0 and "warning: x-runtime /x-runtime/retries: unknown x-runtime key" in done.stderr
    )
