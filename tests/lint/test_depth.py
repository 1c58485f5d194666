"""`size/nesting-depth` speaks for deep schemas: a finding and exit 1, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.lint import LintOptions, lint_schema
from gramwright.schema.depth import MAX_JSON_DEPTH, MAX_SCHEMA_DEPTH


def _props(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "maxLength": 2}
    for _ in range(depth):
        schema = {
            "type": "object",
            "properties": {"a": schema},
            "required": ["a"],
            "additionalProperties": False,
        }
    return schema


def _rules(report: Any, rule: str) -> list[Any]:
    return [d for d in report.diagnostics if d.rule == rule]


def test_a_schema_past_the_compile_limit_is_an_error_finding() -> None:
    report = lint_schema(_props(200))
    limit = [d for d in _rules(report, "size/nesting-depth") if "gramwright compiles up to" in d.message]
    assert len(limit) == 1 and limit[0].severity == "error"
    assert (
        f"subschemas nested 200 levels deep: gramwright compiles up to {MAX_SCHEMA_DEPTH}" in limit[0].message
    )
    assert limit[0].pointer == "/properties/a" * 200
    # the compiler refused it for depth: size/nesting-depth says so once, compile/error stays quiet
    assert report.cost.compiler == "too_deep" and not _rules(report, "compile/error")
    assert not _rules(report, "lint/rule-crashed")
    assert report.cost.max_output_tokens is not None  # the estimate ran to the bottom


def test_at_the_limit_no_limit_finding() -> None:
    report = lint_schema(_props(MAX_SCHEMA_DEPTH), options=LintOptions(compile=False))
    assert not [d for d in _rules(report, "size/nesting-depth") if "compiles up to" in d.message]
    assert [d for d in _rules(report, "size/nesting-depth") if d.severity == "warn"]  # over 4 levels


@pytest.fixture
def deep_files(tmp_path: Path) -> dict[str, Path]:
    text = '{"type":"object","properties":{"a":' * 10_000 + '{"type":"string"}' + "}}" * 10_000
    files = {"text": tmp_path / "deep10000.json", "value": tmp_path / "deep200.json"}
    files["text"].write_text(text, encoding="utf-8")
    files["value"].write_text(json.dumps({"items": _nested_items(200)}), encoding="utf-8")
    return files


def _nested_items(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


def test_cli_lint_reports_a_too_deep_text_as_a_finding(deep_files: dict[str, Path]) -> None:
    from gramwright.cli.main import app

    result = CliRunner().invoke(app, ["lint", "--format", "json", str(deep_files["text"])])
    assert result.exit_code == 1, result.output
    [finding] = json.loads(result.stdout)
    assert finding["rule"] == "size/nesting-depth" and finding["severity"] == "error"
    expected = (
        "schema nested 20001 levels deep (objects and arrays in the JSON text); "
        f"gramwright reads up to {MAX_JSON_DEPTH}"
    )
    assert expected in finding["message"]
    assert "Traceback" not in result.output


def test_cli_lint_runs_every_rule_on_a_parsable_deep_schema(deep_files: dict[str, Path]) -> None:
    from gramwright.cli.main import app

    result = CliRunner().invoke(app, ["lint", "--format", "json", str(deep_files["value"])])
    assert result.exit_code == 1, result.output
    rules = {d["rule"] for d in json.loads(result.stdout)}
    assert "size/nesting-depth" in rules and "lint/rule-crashed" not in rules
    assert len(rules) > 1  # the other rules ran too


def test_lint_compiles_with_the_files_base_uri(tmp_path: Path) -> None:
    """lint's compile run resolves `$ref` to a sibling file (the CLI passes the file's URI)."""
    from gramwright.cli.main import app

    (tmp_path / "other.json").write_text('{"type": "string", "maxLength": 4}')
    main = tmp_path / "main.json"
    main.write_text('{"type": "object", "properties": {"a": {"$ref": "other.json"}}, "required": ["a"]}')
    result = CliRunner().invoke(app, ["lint", "--format", "json", str(main)])
    assert not [d for d in json.loads(result.stdout) if d["rule"] == "compile/error"], result.stdout
