"""`--tools`, `--tool-choice`, `--parallel` and `--reasoning` on compile, lint and generate
(Typer's CliRunner; generation itself is the model-marked tests/tools/test_model.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app

runner = CliRunner()
TRAVEL = str(Path(__file__).parents[1] / "fixtures" / "tools" / "travel.json")
SCHEMA = str(Path(__file__).parents[1] / "fixtures" / "schemas" / "string_lengths.json")


def test_compile_tools_prints_the_turn_grammar() -> None:
    result = runner.invoke(
        app, ["compile", "--tools", TRAVEL, "--tool-choice", "get_time", "--parallel", "1"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("root ::= tool-calls")
    assert "get_weather" not in result.stdout


@pytest.mark.parametrize("target", ["vllm-request", "sglang-request", "llamacpp-request"])
def test_compile_tools_to_request_bodies(target: str) -> None:
    result = runner.invoke(app, ["compile", "--tools", TRAVEL, "--reasoning", "32", "--target", target])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["target"] == target
    if target == "llamacpp-request":
        assert body["body"]["grammar_lazy"] is False  # with a section: the whole turn
    else:
        assert body["response_format"]["type"] == "structural_tag"
    assert any("32 tokens" in note for note in body["notes"])


def test_compile_a_schema_with_reasoning() -> None:
    result = runner.invoke(
        app,
        [
            "compile",
            SCHEMA,
            "--reasoning",
            "40",
            "--reasoning-open",
            "<reasoning>",
            "--reasoning-close",
            "</reasoning>",
        ],
    )
    assert result.exit_code == 0, result.output
    assert '"<reasoning>"' in result.stdout and '"</reasoning>"' in result.stdout


def test_compile_needs_a_source_or_tools() -> None:
    result = runner.invoke(app, ["compile"])
    assert result.exit_code == 2 and "SOURCE or --tools" in result.output
    result = runner.invoke(app, ["compile", "--tools", TRAVEL, "--tool-choice", "fly"])
    assert result.exit_code == 2 and "neither auto" in result.output
    result = runner.invoke(app, ["compile", SCHEMA, "--reasoning", "12", "--reasoning-close", "<</t>"])
    assert result.exit_code == 2 and "first character" in result.output


def test_a_tool_that_does_not_compile_fails_before_generation(tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "function": {"name": "f", "parameters": {"minimum": 3, "maximum": 1, "type": "integer"}},
                }
            ]
        )
    )
    result = runner.invoke(app, ["generate", "--tools", str(bad), "--prompt", "x"])
    assert result.exit_code == 2
    assert "'f'" in result.output and "do not compile" in result.output
    assert "loading model" not in result.output


def test_lint_tools() -> None:
    result = runner.invoke(app, ["lint", "--tools", TRAVEL, "--format", "json"])
    rules = {d["rule"] for d in json.loads(result.stdout)}
    assert {"tools/prefix-names", "tools/colliding-defs", "tools/mixed-strict"} <= rules
    assert result.exit_code in (0, 1)


def test_generate_takes_one_source() -> None:
    result = runner.invoke(app, ["generate", "--tools", TRAVEL, "--schema", SCHEMA, "--prompt", "x"])
    assert result.exit_code == 2 and "exactly one of --schema, --grammar or --tools" in result.output
