"""Read limits: an input past the limit (a document, a schema, a patch, a source text, a JSONL
file) is refused in one line naming the limit and the option that raises it, and an endless
stream is read up to the limit only. The endless stream is the test's own named pipe with a
writer that would go on for much longer than the limit, never /dev/urandom."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from gramwright.cli.main import app

runner = CliRunner()
MIB = 1 << 20


def _one_error_line(result: Result) -> str:
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


def _says_the_limit(line: str, mb: int) -> None:
    assert f"({mb} MiB)" in line and "--max-input-mb" in line, line


@pytest.fixture
def endless(tmp_path: Path) -> Iterator[tuple[Path, list[int]]]:
    """A named pipe fed 64 MiB of JSON-ish bytes (endless, for a reader with a 1 MiB limit);
    ``written`` counts what the reader took before it closed the pipe."""
    path = tmp_path / "endless"
    os.mkfifo(path)
    written = [0]

    def feed() -> None:
        chunk = b"[" * 4096
        try:
            with open(path, "wb") as fh:
                while written[0] < 64 * MIB:
                    fh.write(chunk)
                    written[0] += len(chunk)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    yield path, written
    writer.join(30)


def test_check_reads_an_endless_pipe_up_to_the_limit_only(endless: tuple[Path, list[int]]) -> None:
    path, written = endless
    result = runner.invoke(app, ["--max-input-mb", "1", "check", "json", str(path)])
    assert result.exit_code == 2, result.output
    line = _one_error_line(result)
    assert str(path) in line
    _says_the_limit(line, 1)
    # the limit plus what the pipe and one write hold, not the 64 MiB the writer had to give
    assert written[0] < 3 * MIB, written[0]


def test_check_stream_stops_at_the_limit() -> None:
    big = b"x" * (2 * MIB)
    result = runner.invoke(app, ["--max-input-mb", "1", "check", "--stream", "json"], input=big)
    assert result.exit_code == 2, result.output
    # --stream reports where it stands as it reads; the refusal is its last line, and one line
    assert "Traceback" not in result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("error: ")
    _says_the_limit(last, 1)


def test_every_kind_of_input_past_the_limit_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAMWRIGHT_MAX_INPUT_MB", "1")
    pad = " " * (MIB + 10)
    schema = tmp_path / "big.json"
    schema.write_text('{"type": "string"' + pad + "}")
    small = tmp_path / "small.json"
    small.write_text('{"type": "string"}')
    doc = tmp_path / "doc.json"
    doc.write_text('"x"' + pad)
    patch = tmp_path / "big.patch"
    patch.write_text("--- a/x\n+++ b/x\n" + "#" * (MIB + 10) + "\n")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "1", "text": "x"}) + "\n" + pad + "\n")
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": "big.json"}}}))
    cases = {
        "schema": ["compile", str(schema)],
        "referenced schema": ["compile", str(ref)],
        "document": ["check", str(small), str(doc)],
        "source text": ["lint", str(small), "--source", str(doc)],
        "patch": ["apply", str(patch), "--root", str(tmp_path), "--dry-run"],
        "lint": ["lint", str(schema)],
        "extract input": [
            "extract",
            "--schema",
            str(small),
            "--input",
            str(rows),
            "--output",
            str(tmp_path / "out.jsonl"),
        ],
    }
    for name, args in cases.items():
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (name, result.output)
        line = _one_error_line(result)
        _says_the_limit(line, 1)
    # under the limit the same files are read
    monkeypatch.setenv("GRAMWRIGHT_MAX_INPUT_MB", "4")
    assert runner.invoke(app, ["compile", str(schema)]).exit_code == 0
