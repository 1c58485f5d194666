"""`check --stream`, `extract --stream` and `generate --stream` from the command line: NDJSON on
stdout, each event written when it happens (real processes and pipes where timing matters)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "n": {"type": "integer", "maximum": 5}},
    "required": ["name", "n"],
}
runner = CliRunner()


def _schema(tmp: Path) -> str:
    path = tmp / "s.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return str(path)


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gramwright.cli.main", *args]


def test_check_stream_complete_and_valid_exits_0(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["check", "--stream", _schema(tmp_path), "--format", "json"], input=b'{"name":"a","n":3}\n'
    )
    assert result.exit_code == 0, result.output
    events = _lines(result.stdout)
    assert events[0]["event"] == "progress" and events[-1]["event"] == "end"
    assert events[-1]["accepted"] and events[-1]["final_newline_ignored"]


def test_check_stream_reports_the_whole_document_checks_offset(tmp_path: Path) -> None:
    schema = _schema(tmp_path)
    doc = b'{"name":"a","n":7}'
    result = runner.invoke(app, ["check", "--stream", schema, "--format", "json"], input=doc)
    assert result.exit_code == 1
    events = _lines(result.stdout)
    [rejected] = [e for e in events if e["event"] == "rejected"]
    (tmp_path / "doc.json").write_bytes(doc)
    whole = runner.invoke(app, ["check", schema, str(tmp_path / "doc.json"), "--format", "json"])
    expected = json.loads(whole.stdout)
    for key in ("offset", "line", "column", "allowed", "schema_pointers"):
        assert rejected[key] == expected[key], key
    assert events[-1]["event"] == "end" and events[-1]["offset"] == expected["offset"]
    human = runner.invoke(app, ["check", "--stream", schema], input=doc)
    assert human.exit_code == 1 and "rejected at byte 16 (line 1:17)" in human.stderr


def test_check_stream_incomplete_at_the_end_exits_1(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", "--stream", _schema(tmp_path)], input=b'{"name":"a"')
    assert result.exit_code == 1
    assert "incomplete so far: 11 bytes (line 1:12)" in result.stderr
    assert "incomplete: more input expected at byte 11" in result.stderr


def test_check_stream_takes_no_document_argument(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", "--stream", _schema(tmp_path), "doc.json"])
    assert result.exit_code == 2 and "stdin" in result.stderr


def _readline(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no line within the timeout"
    return proc.stdout.readline()


def test_check_stream_reports_before_the_stream_ends(tmp_path: Path) -> None:
    # a real pipe kept open: the verdict must come while the writer is still writing
    proc = subprocess.Popen(
        _cli("check", "--stream", _schema(tmp_path), "--format", "json"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(b'{"name":"a",')
    proc.stdin.flush()
    assert json.loads(_readline(proc, 60))["state"] == "incomplete"
    proc.stdin.write(b'"n":9')
    proc.stdin.flush()
    rejected = json.loads(_readline(proc, 60))
    assert rejected["event"] == "rejected" and rejected["offset"] == 16
    assert proc.poll() is None  # still reading: the stream has not ended
    proc.stdin.write(b"}")
    proc.stdin.close()
    rest = [json.loads(line) for line in proc.stdout.read().splitlines()] if proc.stdout else []
    assert proc.wait(60) == 1 and rest[-1]["event"] == "end" and rest[-1]["offset"] == 16


PO_SCHEMA = str(ROOT / "docs/examples/purchase_order.json")
PO_RULES = str(ROOT / "docs/examples/purchase_order.rules.json")
# in the schema's member order, as the grammar writes them (the scripted backend hands them over)
GOOD = '{"supplier":"联想","total_amount":11998,"items":[{"name":"笔记本","qty":2,"unit_price":5999}]}'
WRONG = '{"supplier":"联想","total_amount":1,"items":[{"name":"笔记本","qty":2,"unit_price":5999}]}'


def test_extract_stream_streams_every_attempt_of_every_row(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [{"match": "#1;", "outputs": [{"text": WRONG}, {"text": GOOD}]}, {"outputs": [{"text": GOOD}]}]
        ),
        encoding="utf-8",
    )
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("".join(json.dumps({"id": f"r{i}", "text": f"order #{i};"}) + "\n" for i in (1, 2)))
    out = tmp_path / "out.jsonl"
    args = ["extract", "--stream", "--schema", PO_SCHEMA, "--rules", PO_RULES, "--input", str(inputs)]
    args += ["--output", str(out), "--backend", f"scripted:{script}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    events = _lines(result.stdout)
    assert all("id" in e for e in events[:-1]) and events[-1]["event"] == "summary"
    row1 = [e for e in events if e.get("id") == "r1"]
    assert [e["attempt"] for e in row1 if e["event"] == "attempt"] == [1, 2]
    totals = [
        (e["attempt"], e["value"]) for e in row1 if e["event"] == "value" and e["pointer"] == "/total_amount"
    ]
    assert totals == [(1, 1), (2, 11998)]  # each attempt's own document; the retry fixed the total
    end = row1[-1]
    assert end["event"] == "end" and end["attempt"] == 2 and end["result"]["status"] == "ok"
    assert end["complete"] and end["final"][-1] == "" and "left_grammar_at" not in end
    assert end["result"]["value"] == json.loads(GOOD)
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["r1", "r2"]  # the output file as without --stream
    assert events[-1]["status"]["ok"] == 2


TRIP = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 20}, "people": {"type": "integer", "maximum": 99}},
    "required": ["city", "people"],
}


@pytest.mark.model
def test_generate_stream_on_the_embedded_model(tmp_path: Path) -> None:
    schema = tmp_path / "trip.json"
    schema.write_text(json.dumps(TRIP), encoding="utf-8")
    args = [
        "generate",
        "--stream",
        "--schema",
        str(schema),
        "--prompt",
        "Four people go to Bern.",
        "--max-tokens",
        "30",
    ]
    done = subprocess.run(_cli(*args), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    events = _lines(done.stdout)
    end = events[-1]
    assert end["event"] == "end" and end["finish_reason"] == "stop" and end["complete"]
    text = "".join(e["text"] for e in events if e["event"] == "token")
    assert text == end["result"]["text"] and end["result"]["valid"] is True
    document = json.loads(text)
    values = {e["pointer"]: e["value"] for e in events if e["event"] == "value"}
    assert values == {"/city": document["city"], "/people": document["people"], "": document}


@pytest.mark.model
def test_generate_stream_ctrl_c_ends_the_stream_as_cancelled(tmp_path: Path) -> None:
    schema = tmp_path / "note.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"note": {"type": "string", "minLength": 200}},
                "required": ["note"],
            }
        )
    )
    args = [
        "generate",
        "--stream",
        "--schema",
        str(schema),
        "--prompt",
        "Write a long note.",
        "--max-tokens",
        "400",
    ]
    # Ctrl-C as a terminal delivers it: a runner that started the tests in the background
    # (bash without job control) left SIGINT ignored, and children inherit that
    proc = subprocess.Popen(
        _cli(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = json.loads(_readline(proc, 600))
    assert first["event"] == "token"
    os.kill(proc.pid, signal.SIGINT)
    assert proc.stdout is not None
    rest = _lines(proc.stdout.read().decode())
    assert proc.wait(60) == 130
    end = rest[-1]
    assert end["event"] == "end" and end["finish_reason"] == "cancelled" and end["result"] is None
    assert not end["complete"] and "/note" not in end["final"]
