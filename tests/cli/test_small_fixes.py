"""Small reproductions: options refused before any model loads (an empty request, a device that
does not exist), an empty grammar file said as such, help text for every pipeline flag, docs that
name only real commands, and a cancelled ``--format json`` run that still prints JSON."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from gramwright.cli.main import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def _one_error_line(result: Result) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "string"}')
    code = tmp_path / "a.py"
    code.write_text("PORT = 8000\n")
    return schema, code


def test_an_empty_request_is_refused_before_any_model_loads(files: tuple[Path, Path]) -> None:
    schema, code = files
    for args, option in (
        (["generate", "--schema", str(schema), "--prompt", ""], "--prompt"),
        (["generate", "--schema", str(schema), "--prompt", "  \n"], "--prompt"),
        (["edit", str(code), "-i", ""], "--instruction"),
    ):
        started = time.perf_counter()
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert f"{option} is empty" in _one_error_line(result)
        assert time.perf_counter() - started < 5, "a model was loaded first"


def test_an_unknown_device_is_refused_before_any_model_loads(files: tuple[Path, Path]) -> None:
    schema, code = files
    for args in (
        ["generate", "--schema", str(schema), "--prompt", "hi", "--device", "tpu"],
        ["edit", str(code), "-i", "Change PORT to 9000", "--device", "cuda:x"],
    ):
        started = time.perf_counter()
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "unknown --device" in _one_error_line(result)
        assert time.perf_counter() - started < 5, "a model was loaded first"


def test_an_empty_gbnf_file_says_it_is_empty(tmp_path: Path) -> None:
    for name, text in (("empty.gbnf", ""), ("comments.gbnf", "# nothing yet\n\n")):
        path = tmp_path / name
        path.write_text(text)
        result = runner.invoke(app, ["compile", str(path)])
        assert result.exit_code == 2
        line = _one_error_line(result)
        assert "defines no rules" in line and str(path) in line and "undefined rule" not in line


def test_every_pipeline_flag_has_help_text() -> None:
    for command in ("extract", "validate"):
        shown = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"}).stdout
        for flag in ("--partial-ok", "--allow-degrade"):
            line = next(line for line in shown.splitlines() if flag in line)
            assert re.search(rf"{flag}\S*\s+\S+", line.split("│")[1] if "│" in line else line), line
            assert len(line.split(flag, 1)[1].strip(" │-/")) > 30, line


def test_the_docs_name_only_commands_that_exist() -> None:
    import typer.main

    group = typer.main.get_command(app)
    commands = set(getattr(group, "commands", {}))
    named: dict[str, str] = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for word in re.findall(r"`gramwright ([a-z][a-z-]*)", path.read_text(encoding="utf-8")):
            named.setdefault(word, path.name)
    missing = {w: where for w, where in named.items() if w not in commands}
    assert not missing, missing


@pytest.mark.model
def test_ctrl_c_with_format_json_prints_the_cancelled_result(tmp_path: Path) -> None:
    schema = ROOT / "docs" / "examples" / "purchase_order.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from gramwright.cli.main import main; main()",
            "generate",
            "--schema",
            str(schema),
            "--prompt",
            "A long order: ten laptops, ten mice, ten screens, ten desks",
            "--max-tokens",
            "400",
            "--format",
            "json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # the model line: generation starts right after it
        if line.startswith(b"model "):
            break
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    got = json.loads(out)
    assert got["finish_reason"] == "cancelled" and got["valid"] is False
    assert isinstance(got["text"], str) and got["tokens"] >= 0
