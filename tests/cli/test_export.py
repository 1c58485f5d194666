"""`gramwright compile --target` and `gramwright check --engine`, through Typer's CliRunner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.grammar.export import TARGETS

runner = CliRunner()
FIXTURE = Path(__file__).parents[1] / "fixtures" / "schemas" / "string_lengths.json"


@pytest.mark.parametrize("target", TARGETS)
def test_compile_every_target(target: str) -> None:
    result = runner.invoke(app, ["compile", "json", "--target", target])
    assert result.exit_code == 0, result.output
    if target.endswith("-request"):
        assert json.loads(result.stdout)["target"] == target
    elif target == "gbnf":
        assert result.stdout.startswith("root ::= ")
    else:
        assert "start: " in result.stdout and "::=" not in result.stdout


def test_compile_target_json_format_for_a_schema() -> None:
    result = runner.invoke(app, ["compile", str(FIXTURE), "--target", "vllm-request", "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["body"]["response_format"]["type"] == "json_schema"
    assert isinstance(payload["report"], list)


def test_unknown_target_is_a_usage_error() -> None:
    result = runner.invoke(app, ["compile", "json", "--target", "outlines"])
    assert result.exit_code == 2
    assert "unknown --target" in result.output


def test_check_engine_missing_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text('{"a":1}')
    monkeypatch.setitem(sys.modules, "xgrammar", None)  # as if the bench extra were absent
    result = runner.invoke(app, ["check", "json", str(doc), "--engine", "xgrammar"])
    assert result.exit_code == 2
    assert "install the bench extra: pip install 'gramwright[bench]'" in result.output


@pytest.mark.bench
@pytest.mark.parametrize("engine", ["xgrammar", "llguidance"])
def test_check_engine_agrees_and_says_the_dialect(engine: str, tmp_path: Path) -> None:
    pytest.importorskip(engine)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('{"a":[1,true,"x"]}\n')
    bad.write_text('{"a":[1,]}')
    result = runner.invoke(app, ["check", "json", str(good), "--engine", engine])
    assert result.exit_code == 0, result.output
    assert "dialect: vllm/xgrammar reads gbnf" in result.output
    result = runner.invoke(app, ["check", "json", str(bad), "--engine", engine, "--format", "json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["recognizer"] is False and payload["accepted"] is False
    assert {e["target"] for e in payload["exports"]} >= {"gbnf", "lark"}
