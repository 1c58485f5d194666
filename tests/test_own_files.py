"""A new user's own files, each a reproduction: schemas that ``$ref`` a sibling file, deep
documents, URLs that are not URLs, messages that must say what the code does. Each run ends in a
result or one ``error:`` line (exit 2), never a hang or a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from gramwright.cli.main import app

runner = CliRunner()


def _write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def _ticket_pair(tmp_path: Path) -> Path:
    _write(
        tmp_path / "ticket.json",
        {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
            "required": ["tags"],
        },
    )
    return _write(tmp_path / "wrap.json", {"type": "object", "properties": {"t": {"$ref": "ticket.json"}}})


def test_lint_of_a_schema_whose_referenced_file_has_an_approximated_keyword_ends(tmp_path: Path) -> None:
    # the finding in ticket.json points at file:///…/ticket.json#/…: ordering it must end
    wrap = _ticket_pair(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", "lint", str(wrap), str(tmp_path / "ticket.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "uniqueItems" in done.stdout and "Traceback" not in done.stderr
    # the referenced file's finding sorts after the root document's own
    wrap_part = done.stdout.split("wrap.json", 1)[1]
    assert wrap_part.index("ref/external") < wrap_part.index("file://")


def test_lint_sarif_of_a_ref_cycle_across_files_ends(tmp_path: Path) -> None:
    # found by bench.fuzz_files: the compile error's pointer is file:///…/c1.json#/$ref, and the
    # SARIF region lookup walked its parents (file: is its own) forever
    _write(tmp_path / "c1.json", {"$ref": "c2.json"})
    _write(tmp_path / "c2.json", {"anyOf": [{"$ref": "c1.json"}, {"type": "null"}]})
    a = _write(tmp_path / "a.json", {"$ref": "c1.json"})
    done = subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", "lint", str(a), "--format", "sarif"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)["runs"][0]["results"]
    assert any("refers to itself" in r["message"]["text"] for r in results), results


def test_lint_says_a_relative_ref_is_read_from_disk_and_a_url_is_not_fetched(tmp_path: Path) -> None:
    wrap = _ticket_pair(tmp_path)
    text = runner.invoke(app, ["lint", str(wrap)]).stdout
    assert "not fetched" not in text
    assert f"points to another file ({tmp_path / 'ticket.json'}): gramwright reads it from disk" in text
    # the cost line names the reference it did not follow, not an "unresolved" one compile resolves
    assert "unresolved $ref" not in text
    assert "into another document, not estimated" in text
    url = _write(tmp_path / "url.json", {"$ref": "https://example.com/s.json"})
    result = runner.invoke(app, ["lint", str(url), "--no-compile"])
    assert "(not fetched: only local files are read)" in result.stdout


def test_compile_report_names_only_the_properties_a_pattern_matches(tmp_path: Path) -> None:
    # dependentRequired builds the object body twice; the second build read the first one's
    # "widened" note at the pattern and said every declared name matched '^x-'
    schema = _write(
        tmp_path / "pp.json",
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "ver": {"type": "string"}, "deps": {"type": "array"}},
            "required": ["name"],
            "patternProperties": {"^x-": {"type": "string"}},
            "dependentRequired": {"deps": ["ver"]},
        },
    )
    result = runner.invoke(app, ["compile", str(schema), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["report"]
    assert [e for e in report if "also matches patternProperties" in e["reason"]] == []
    matching = _write(
        tmp_path / "pp2.json",
        {
            "type": "object",
            "properties": {"x-a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["x-a"],
            "patternProperties": {"^x-": {"type": "string"}},
            "dependentRequired": {"x-a": ["b"]},
        },
    )
    report = json.loads(runner.invoke(app, ["compile", str(matching), "--format", "json"]).stdout)["report"]
    said = {e["pointer"] for e in report if "also matches patternProperties" in e["reason"]}
    assert said == {"/properties/x-a"}


def test_generate_with_a_server_that_is_not_a_url_is_one_line(tmp_path: Path) -> None:
    schema = _write(tmp_path / "s.json", {"type": "object"})
    result = runner.invoke(
        app, ["generate", "--schema", str(schema), "--server", "notaurl", "--prompt", "hi"]
    )
    assert result.exit_code == 2
    assert "not an http(s) URL: 'notaurl'" in _one_error_line(result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_validate_of_a_5000_deep_document_is_refused_in_one_line(tmp_path: Path) -> None:
    schema = _write(tmp_path / "s.json", {"type": "object"})
    for name, text in (("a.json", "[" * 5000 + "]" * 5000), ("o.json", '{"a":' * 5000 + "1" + "}" * 5000)):
        doc = tmp_path / name
        doc.write_text(text, encoding="utf-8")
        result = runner.invoke(app, ["validate", "--schema", str(schema), str(doc)])
        assert result.exit_code == 2, result.stdout
        line = _one_error_line(result.stderr)
        assert "RecursionError" not in line
        assert f"{doc}: nested 5000 levels deep" in line and "up to 264" in line


def test_a_deep_value_under_a_recursive_schema_is_an_issue_not_a_crash(tmp_path: Path) -> None:
    schema = _write(
        tmp_path / "rec.json",
        {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"},
    )
    doc = tmp_path / "d.json"
    doc.write_text("[" * 260 + "]" * 260, encoding="utf-8")
    # a fresh process: the recursion limit is Python's default there, not whatever a library
    # imported earlier in this test session (hypothesis, torch) set it to
    done = subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", "validate", "--schema", str(schema), str(doc)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "nested too deeply to validate" in done.stdout
