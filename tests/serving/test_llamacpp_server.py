"""The pipeline against a real llama.cpp server: ``python -m llama_cpp.server`` (the test extra's
llama-cpp-python[server]) with the embedded SmolLM2 GGUF on a free localhost port. Every
completion is read back by gramwright's recognizer of the grammar that was sent; ``generate
--server`` and ``extract --server`` run end to end; a server killed mid-batch is survived and the
rerun resumes with nothing lost or duplicated. Skipped when llama_cpp is not installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

pytest.importorskip("llama_cpp.server.app", reason="needs the test extra: llama-cpp-python[server]")

from gramwright.pipeline import run
from gramwright.pipeline.batch import read_done
from gramwright.serving import ServerBackend
from gramwright.sources import load_source
from tests.support.llama_server import LlamaServer, free_port

pytestmark = pytest.mark.model  # a model runs (in the server's process)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures/serving"
SCHEMA = str(FIXTURES / "contact.json")
RULES = str(FIXTURES / "contact.rules.json")
ROWS = FIXTURES / "contacts.jsonl"
TEMPLATE = "Extract the person: {text}"


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LlamaServer(log=log) as server:
        yield server


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "gramwright.cli.main", *args]


def _checked(rows: list[dict[str, Any]]) -> None:
    """Every ok row validates and passes its rules, checked here afresh; every completion the
    server returned was accepted by the recognizer (or, cut at the limit, is a prefix of it)."""
    schema = json.loads(Path(SCHEMA).read_text(encoding="utf-8"))
    for row in rows:
        checks = row["metrics"]["server_grammar_checks"]
        assert checks and all(c in ("accepted", "prefix") for c in checks), (row["id"], checks)
        if row["status"] == "ok":
            jsonschema.validate(row["value"], schema)
            assert row["value"]["name"] != row["value"]["city"], row["id"]  # contact.rules.json


def test_the_server_is_detected_and_its_outputs_are_in_the_grammar_sent(llama: LlamaServer) -> None:
    backend = ServerBackend(llama.url)
    source = load_source(SCHEMA).for_generation()
    plan = backend.prepare(source)
    assert plan.dialect == "llamacpp" and "llama-cpp-python" in plan.detected
    assert plan.target == "llamacpp-request" and "budget_close" in plan.not_carried
    result = run(
        source, TEMPLATE.format(text="Ana Silva is 34 years old and lives in Lisbon."), backend=backend
    )
    _checked([{"id": "one", **result.to_dict()}])
    assert result.attempts[0].output_tokens > 0 and result.attempts[0].finish_reason in ("stop", "length")


def test_generate_server_end_to_end(llama: LlamaServer) -> None:
    done = subprocess.run(
        _cli("generate", "--server", llama.url, "--schema", SCHEMA, "--max-tokens", "96", "--format", "json",
             "--prompt", "Extract the person: Chen Wei is 28 years old and lives in Shanghai."),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    out = json.loads(done.stdout)
    assert out["metrics"]["server_grammar_check"] in ("accepted", "prefix")
    assert out["plan"]["dialect"] == "llamacpp"
    assert "not carried by llamacpp: budget_close" in done.stderr  # said before the request
    if out["finish_reason"] == "stop":
        jsonschema.validate(json.loads(out["text"]), json.loads(Path(SCHEMA).read_text(encoding="utf-8")))


def _extract(url: str, out: Path, *more: str) -> list[str]:
    return _cli(
        "extract", "--server", url, "--schema", SCHEMA, "--rules", RULES, "--input", str(ROWS),
        "--output", str(out), "--metrics", str(out.with_suffix(".metrics.jsonl")),
        "--prompt-template", TEMPLATE, "--max-tokens", "64", "--format", "json", *more,
    )  # fmt: skip


def test_extract_survives_a_killed_server_and_the_rerun_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    port = free_port()
    out = tmp_path / "out.jsonl"
    first = LlamaServer(port, log=tmp_path / "server1.log").start()
    proc = subprocess.Popen(
        _extract(first.url, out, "--concurrency", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 6:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the batch ended before the server could be killed"
        first.kill()
        _, err = proc.communicate(timeout=300)
    finally:
        first.stop()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    assert b"did not answer" in err and b"run the same command again" in err
    before = read_done(out)
    assert 6 <= len(before) < 24
    with LlamaServer(port, log=tmp_path / "server2.log"):
        rerun = subprocess.run(
            _extract(f"http://127.0.0.1:{port}", out), capture_output=True, text=True, timeout=900
        )
    assert rerun.returncode in (0, 1), rerun.stderr
    assert "resuming" in rerun.stderr
    rows = read_done(out)
    ids = [r["id"] for r in rows]
    assert sorted(ids) == [f"c{i:02d}" for i in range(24)]  # nothing lost, nothing twice
    assert {r["id"]: r for r in rows if r["id"] in {b["id"] for b in before}} == {b["id"]: b for b in before}
    _checked(rows)
    summary = json.loads(rerun.stdout)
    assert summary["server"]["recognizer_rejected"] == 0
    assert os.path.getsize(out.with_suffix(".metrics.jsonl")) > 0
