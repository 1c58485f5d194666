"""Renderers consume the same diagnostics: JSON list, SARIF 2.1.0, human text; pointers map to lines."""

from __future__ import annotations

import json
from typing import Any

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.render import render_human, render_json, render_sarif
from gramwright.lint.render.locate import locate, pointer_positions

TEXT = """{
  "type": "object",
  "properties": {
    "age": {"type": "integer", "minimum": 10, "maximum": 5},
    "name": {"type": "string", "mininum": 1}
  }
}
"""


def _reports() -> list[Any]:
    return [lint_schema(json.loads(TEXT), options=LintOptions(compile=False), file="dir/schema.json")]


def test_json_is_a_list_of_diagnostics_with_file() -> None:
    data = json.loads(render_json(_reports()))
    assert isinstance(data, list) and data
    for item in data:
        assert set(item) == {"rule", "severity", "message", "pointer", "profile", "hint", "fix", "file"}
        assert item["file"] == "dir/schema.json" and item["severity"] in ("error", "warn", "info")
    typo = next(d for d in data if d["rule"] == "meta/unknown-keyword")
    assert typo["fix"]["patch"][0]["op"] == "move"


def test_sarif_structure_and_regions() -> None:
    log = json.loads(render_sarif(_reports(), {"dir/schema.json": TEXT}))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules)
    assert run["results"]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        [location] = result["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == "dir/schema.json"
        assert location["logicalLocations"][0]["fullyQualifiedName"].startswith("/")
    sat = next(r for r in run["results"] if r["ruleId"] == "sat/unsatisfiable")
    assert sat["level"] == "error" and sat["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    typo = next(r for r in run["results"] if r["ruleId"] == "meta/unknown-keyword")
    assert typo["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 32}


def test_sarif_without_sources_has_no_region() -> None:
    log = json.loads(render_sarif(_reports()))
    assert all("region" not in r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"])


def test_pointer_positions() -> None:
    positions = pointer_positions(TEXT)
    assert positions[""] == (1, 1)
    assert positions["/properties/age"] == (4, 5)
    assert positions["/properties/age/maximum"] == (4, 47)
    assert locate(positions, "/properties/name/not-there") == (5, 5)
    assert pointer_positions('{"a": [1, {"b~/": null}]}')["/a/1/b~0~1"] == (1, 12)
    assert pointer_positions('{"a": [1, ')  # partial on broken JSON, no exception


def test_human_groups_by_file_with_hints_and_summary() -> None:
    text = render_human(_reports(), color=False)
    lines = text.splitlines()
    assert lines[0].startswith("dir/schema.json  (gramwright@1, 2020-12 (assumed))")
    assert any("sat/unsatisfiable" in line and "/properties/age" in line for line in lines)
    assert any(line.strip().startswith("hint:") for line in lines)
    assert any(line.strip().startswith("cost:") for line in lines)
    assert lines[-1].startswith("1 file: 1 error")
    assert "\x1b[" not in text


def test_human_clean_file() -> None:
    clean = {"type": "boolean"}
    text = render_human([lint_schema(clean, options=LintOptions(compile=False), file="ok.json")])
    assert "no findings" in text and text.splitlines()[-1] == "1 file: 0 errors, 0 warnings, 0 infos"
