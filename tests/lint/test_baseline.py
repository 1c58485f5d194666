"""`gramwright lint --baseline`: accepted findings pass, new ones fail, fixed ones are reported;
fingerprints survive line shifts; the SARIF log marks baseline states and validates against the
SARIF 2.1.0 schema (from ../shared/data when present)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import lint_cmd
from gramwright.lint import lint_schema
from gramwright.lint.baseline import compare_baseline, fingerprint, load_baseline, render_baseline
from tests.support.cli import command_app

SHARED = Path(__file__).parents[2].parent / "shared" / "data"
SARIF_SCHEMA = SHARED / "jsonschemabench" / "JsonSchemaStore" / "sarif-2.1.0.json"
# one finding: sat/unsatisfiable at /properties/n (minimum above maximum)
BAD_N = {"type": "integer", "minimum": 3, "maximum": 1}


@pytest.fixture
def app() -> typer.Typer:
    return command_app(lint_cmd.register)


def _schema(**props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"a": {"type": "boolean"}, **props},
        "required": ["a"],
        "additionalProperties": False,
    }


def _write(path: Path, schema: dict[str, Any], indent: int = 2) -> None:
    path.write_text(json.dumps(schema, indent=indent) + "\n", encoding="utf-8")


def _run(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["lint", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "po.json", _schema(n=BAD_N))
    return tmp_path


def test_new_accepted_and_fixed_findings(app: typer.Typer, project: Path) -> None:
    assert _run(app, "po.json")[0] == 1
    code, _, err = _run(app, "po.json", "--baseline", "base.json", "--update-baseline")
    assert code == 0 and "wrote base.json: 1 finding accepted" in err
    entries = load_baseline(project / "base.json")
    found = [(e.rule, e.file, e.pointer) for e in entries]
    assert found == [("sat/unsatisfiable", "po.json", "/properties/n")]

    # accepted: passes, and the human output no longer lists it
    code, out, err = _run(app, "po.json", "--baseline", "base.json")
    assert code == 0 and "sat/unsatisfiable" not in out and "0 new, 1 accepted, 0 fixed" in err

    # lines shift (other indentation, a member before it): still the same finding
    _write(project / "po.json", _schema(z={"type": "string"}, n=BAD_N), indent=4)
    assert _run(app, "po.json", "--baseline", "base.json")[0] == 0

    # a new finding fails, the old one stays accepted
    _write(project / "po.json", _schema(n=BAD_N, m={"type": "string", "minLength": 5, "maxLength": 2}))
    code, out, err = _run(app, "po.json", "--baseline", "base.json")
    assert code == 1 and "/properties/m" in out and "/properties/n" not in out and "1 new, 1 accepted" in err

    # fixed: reported so the baseline shrinks
    _write(project / "po.json", _schema())
    code, _, err = _run(app, "po.json", "--baseline", "base.json")
    assert code == 0 and "0 new, 0 accepted, 1 fixed" in err
    assert "fixed: po.json /properties/n sat/unsatisfiable" in err and "--update-baseline" in err
    assert _run(app, "po.json", "--baseline", "base.json", "--update-baseline")[0] == 0
    assert load_baseline(project / "base.json") == []


def test_json_output_carries_baseline_states(app: typer.Typer, project: Path) -> None:
    assert _run(app, "po.json", "--baseline", "base.json", "--update-baseline")[0] == 0
    _write(project / "po.json", _schema(n=BAD_N, m={"type": "string", "minLength": 5, "maxLength": 2}))
    code, out, _ = _run(app, "po.json", "--baseline", "base.json", "-f", "json")
    states = {d["pointer"]: d["baseline_state"] for d in json.loads(out) if d["rule"] == "sat/unsatisfiable"}
    assert code == 1 and states == {"/properties/n": "unchanged", "/properties/m/minLength": "new"}


def test_baseline_usage_errors(app: typer.Typer, project: Path) -> None:
    code, _, err = _run(app, "po.json", "--baseline", "missing.json")
    assert code == 2 and "missing.json" in err and "--update-baseline" in err
    assert _run(app, "po.json", "--update-baseline")[0] == 2
    (project / "bad.json").write_text("[]", encoding="utf-8")
    code, _, err = _run(app, "po.json", "--baseline", "bad.json")
    assert code == 2 and "not a gramwright lint baseline" in err


def test_counts_duplicates_and_ignores_unlinted_files(project: Path) -> None:
    report = lint_schema(_schema(n=BAD_N), file="po.json")
    other = lint_schema(_schema(n=BAD_N), file="other.json")
    entries = load_baseline_from(render_baseline([report, other]), project)
    comparison = compare_baseline([report], entries)
    assert [e.file for e in comparison.accepted] == ["po.json"] and comparison.fixed == []
    fixed_po = lint_schema(_schema(), file="po.json")
    kept = load_baseline_from(render_baseline([fixed_po], keep=entries), project)
    assert [e.file for e in kept] == ["other.json"]  # other.json was not linted: carried over
    assert fingerprint("r", "a.json", "/x") != fingerprint("r", "a.json", "/y")


def load_baseline_from(text: str, folder: Path) -> list[Any]:
    path = folder / "tmp-baseline.json"
    path.write_text(text, encoding="utf-8")
    return load_baseline(path)


def test_sarif_has_fingerprints_states_and_validates(app: typer.Typer, project: Path) -> None:
    assert _run(app, "po.json", "--baseline", "base.json", "--update-baseline")[0] == 0
    _write(project / "po.json", _schema(n=BAD_N, m={"type": "string", "minLength": 5, "maxLength": 2}))
    code, out, _ = _run(app, str(project / "po.json"), "--baseline", "base.json", "-f", "sarif")
    log = json.loads(out)
    run = log["runs"][0]
    sat = {
        r["locations"][0]["logicalLocations"][0]["name"]: r
        for r in run["results"]
        if r["ruleId"] == "sat/unsatisfiable"
    }
    assert code == 1 and sat["/properties/n"]["baselineState"] == "unchanged"
    assert sat["/properties/m/minLength"]["baselineState"] == "new"
    for result in sat.values():
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "po.json"  # relative to the repository
        assert location["region"]["startLine"] >= 1
        assert result["partialFingerprints"]["gramwrightFinding/v1"]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["sat/unsatisfiable"]["helpUri"].endswith("lint-rules.md#satunsatisfiable")
    assert rules["sat/unsatisfiable"]["shortDescription"]["text"]
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"{SARIF_SCHEMA} not present")
    from jsonschema.validators import validator_for

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))["schema"]
    validator = validator_for(schema)(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []
