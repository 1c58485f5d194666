"""`gramwright conformance` on a small suite made up here (no evaluation data needed)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.schema.conformance import discover, run_conformance

SUITE = [
    {
        "description": "integers",
        "schema": {"type": "integer", "minimum": 1},
        "tests": [
            {"description": "ok", "data": 3, "valid": True},
            {"description": "too small", "data": 0, "valid": False},
            {"description": "float ok", "data": 2.0, "valid": True},
        ],
    },
    {
        "description": "unique items (approximated)",
        "schema": {"uniqueItems": True},
        "tests": [{"description": "dupes", "data": [1, 1], "valid": False}],
    },
    {
        "description": "unsatisfiable",
        "schema": {"enum": []},
        "tests": [{"description": "anything", "data": 1, "valid": False}],
    },
]


def _suite(tmp_path: Path) -> Path:
    folder = tmp_path / "tests" / "draft2020-12"
    folder.mkdir(parents=True)
    (tmp_path / "remotes").mkdir()
    (folder / "small.json").write_text(json.dumps(SUITE), encoding="utf-8")
    return folder


def test_runner_categories(tmp_path: Path) -> None:
    result = run_conformance(_suite(tmp_path))
    cats = result.case_categories()
    assert cats["small.json#0/0"] == "pass"
    assert cats["small.json#0/1"] == "pass"
    assert cats["small.json#0/2"] == "pass"
    assert cats["small.json#1/0"] == "false_positive_reported"
    # proved unsatisfiable: rejecting every instance is the verdict, so an invalid instance passes
    assert cats["small.json#2/0"] == "pass"
    summary = result.summary()
    assert summary["schemas_unsatisfiable"] == 1 and summary["refused"] == 0
    assert summary["refused_by_keyword"] == {}
    assert summary["schemas"] == 3 and summary["cases"] == 5


def test_bench_layout(tmp_path: Path) -> None:
    split = tmp_path / "Tiny"
    split.mkdir()
    doc = {"schema": {"type": "string", "maxLength": 2}, "tests": [{"data": "abc", "valid": False}]}
    (split / "o1.json").write_text(json.dumps(doc), encoding="utf-8")
    (group,) = discover(split)
    assert group.id == "Tiny/o1"
    assert run_conformance(split).case_categories() == {"Tiny/o1#0": "pass"}


def test_cli_json_and_details(tmp_path: Path) -> None:
    folder = _suite(tmp_path)
    details = tmp_path / "cases.jsonl"
    result = CliRunner().invoke(app, ["conformance", str(folder), "--json", "--details", str(details)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    for key in ("schemas", "cases", "pass", "false_negative", "false_positive_reported",
                "false_positive_silent", "refused", "error", "refused_by_keyword",
                "schemas_unsatisfiable"):  # fmt: skip
        assert key in summary
    rows = [json.loads(line) for line in details.read_text(encoding="utf-8").splitlines()]
    assert {r["category"] for r in rows} == {"pass", "false_positive_reported"}


def test_cli_human_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["conformance", str(_suite(tmp_path))])
    assert result.exit_code == 0
    assert "false_positive_silent" in result.stdout
