"""`gramwright lint`: exit codes, formats, usage errors (CliRunner on a bare app with the command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import lint_cmd
from tests.support.cli import command_app

PO = Path(__file__).parents[1] / "fixtures" / "lint"


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    return command_app(lint_cmd.register)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "clean": {
            "type": "object",
            "properties": {"a": {"type": "boolean"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        "warn": {
            "type": "object",
            "properties": {"a": {"type": "integer", "mininum": 1}},
            "required": ["a"],
            "additionalProperties": False,
        },
        "error": {"type": "integer", "minimum": 3, "maximum": 1},
    }
    paths = {}
    for name, schema in out.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
        paths[name] = path
    bad = tmp_path / "broken.json"
    bad.write_text('{\n  "type": "object",\n  "properties": {,}\n}\n', encoding="utf-8")
    paths["broken"] = bad
    return paths


def _run(app: typer.Typer, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["lint", "--no-compile", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_exit_codes_follow_fail_on(app: typer.Typer, files: dict[str, Path]) -> None:
    assert _run(app, str(files["clean"]))[0] == 0
    assert _run(app, str(files["warn"]))[0] == 0
    assert _run(app, str(files["warn"]), "--fail-on", "warn")[0] == 1
    assert _run(app, str(files["error"]))[0] == 1
    assert _run(app, str(files["clean"]), str(files["error"]))[0] == 1
    assert _run(app, str(files["error"]), "--ignore", "sat/unsatisfiable")[0] == 0


def test_json_output_is_a_list(app: typer.Typer, files: dict[str, Path]) -> None:
    code, out, _ = _run(app, str(files["warn"]), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data and {d["file"] for d in data} == {str(files["warn"])}
    assert any(d["rule"] == "meta/unknown-keyword" and d["severity"] == "warn" for d in data)


def test_sarif_output(app: typer.Typer, files: dict[str, Path]) -> None:
    code, out, _ = _run(app, str(files["error"]), "-f", "sarif")
    log = json.loads(out)
    assert code == 1 and log["version"] == "2.1.0"
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "sat/unsatisfiable")
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_human_output_and_profile(app: typer.Typer, files: dict[str, Path]) -> None:
    code, out, _ = _run(app, str(files["clean"]), "--profile", "openai-strict@2024-08")
    assert code == 0 and "openai-strict@2024-08" in out and "1 file:" in out


def test_stdin(app: typer.Typer, files: dict[str, Path]) -> None:
    code, out, _ = _run(app, "-", "--format", "json", stdin=files["error"].read_text())
    assert code == 1 and json.loads(out)[0]["file"] == "-"


def test_invalid_json_names_file_line_and_column(app: typer.Typer, files: dict[str, Path]) -> None:
    code, out, err = _run(app, str(files["broken"]))
    assert code == 2 and out == ""
    assert err.startswith("error: invalid JSON:") and f"({files['broken']}:3:18)" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json"], "missing.json: no such file"),
        (["--profile", "nope", "x.json"], "unknown profile 'nope'"),
        (["--profile", "openai-strict@1999", "x.json"], "no version '1999'"),
        ([], "no SCHEMA given"),
    ],
)
def test_usage_errors_exit_2(app: typer.Typer, args: list[str], message: str) -> None:
    code, _, err = _run(app, *args)
    assert code == 2 and message in err


def test_bad_option_value_exits_2(app: typer.Typer, files: dict[str, Path]) -> None:
    assert _run(app, str(files["clean"]), "--format", "xml")[0] == 2
    assert _run(app, str(files["clean"]), "--fail-on", "fatal")[0] == 2


def test_unreadable_directory(app: typer.Typer, tmp_path: Path) -> None:
    code, _, err = _run(app, str(tmp_path))
    assert code == 2 and "is a directory" in err


def test_list_rules_matches_docs(app: typer.Typer) -> None:
    from gramwright.lint.docs import rules_markdown

    code, out, _ = _run(app, "--list-rules")
    assert code == 0 and out.strip() == rules_markdown().strip()
    assert "### `size/nesting-depth`" in out
    code, out, _ = _run(app, "--list-rules", "--format", "json")
    assert code == 0 and {"id", "what", "why", "severity"} <= set(json.loads(out)[0])


def test_max_tokens_without_tokenizer_falls_back(
    app: typer.Typer, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gramwright.models

    # the embedded model is installed here: a loader failure (a removed model file) is simulated
    def missing(name: str | None = None) -> object:
        raise OSError("model file missing")

    monkeypatch.setattr(gramwright.models, "load_tokenizer", missing)
    code, out, err = _run(app, str(files["clean"]), "--max-tokens", "1", "--format", "json")
    assert code == 0 and "bytes/3.5" in err
    assert any(d["rule"] == "budget/max-tokens" for d in json.loads(out))
    code, _, err = _run(app, str(files["error"]), "--tokenizer", "some/model")
    assert code == 2 and "--tokenizer some/model" in err


def test_help_has_examples(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["lint", "--help"])
    assert result.exit_code == 0 and "--list-rules" in result.stdout and "Examples" in result.stdout
