"""`gramwright snapshot` on a temp project: match, drift with its reason and meaning, new and
orphaned snapshots, CI mode, pyproject settings, export targets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import snapshot_cmd
from gramwright.snapshot import language_facts, load_config, parse_snapshot, run_snapshots
from tests.support.cli import command_app

PO: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "status": {"enum": ["draft", "sent"]},
        "note": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "status"],
}
GRAMMAR = 'root ::= "yes" | "no"\n'


@pytest.fixture
def app() -> typer.Typer:
    return command_app(snapshot_cmd.register)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "schemas").mkdir()
    _write(tmp_path / "schemas" / "po.json", PO)
    (tmp_path / "grammars").mkdir()
    (tmp_path / "grammars" / "answer.gbnf").write_text(GRAMMAR, encoding="utf-8")
    return tmp_path


def _write(path: Path, schema: dict[str, Any]) -> None:
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")


def _run(app: typer.Typer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["snapshot", *args])
    return result.exit_code, result.output


def _json(app: typer.Typer, *args: str) -> tuple[int, dict[str, Any]]:
    code, out = _run(app, *args, "--format", "json")
    return code, json.loads(out)


def _po(mutate: Any) -> dict[str, Any]:
    schema = json.loads(json.dumps(PO))
    mutate(schema)
    return schema


def test_update_then_check_matches(app: typer.Typer, project: Path) -> None:
    code, out = _run(app, "--update")
    assert code == 0 and "new      schemas/po.json" in out and "[written]" in out
    snap = project / "grammar-snapshots" / "schemas" / "po.json.snap"
    assert snap.is_file() and (project / "grammar-snapshots" / "grammars" / "answer.gbnf.snap").is_file()
    stored = parse_snapshot(snap.read_text(encoding="utf-8"))
    assert stored.source == "schemas/po.json" and len(stored.source_sha256) == 64
    assert {e.pointer for e in stored.report} >= {"/properties/status/enum", "/required"}
    assert stored.facts == language_facts(PO)
    code, out = _run(app)
    assert code == 0 and "2 sources: 2 match" in out


@pytest.mark.parametrize(
    ("mutate", "direction", "what"),
    [
        (
            lambda s: s["properties"]["status"]["enum"].append("cancelled"),
            "wider",
            'enum member added: "cancelled"',
        ),
        (lambda s: s["required"].remove("status"), "wider", "member 'status' became optional"),
        (
            lambda s: s["properties"]["tags"].update(uniqueItems=True),
            "changed",
            "uniqueItems added, approximated",
        ),
    ],
    ids=["enum-member", "dropped-required", "approximated-keyword"],
)
def test_a_source_change_fails_with_diff_reason_and_meaning(
    app: typer.Typer, project: Path, mutate: Any, direction: str, what: str
) -> None:
    assert _run(app, "--update")[0] == 0
    _write(project / "schemas" / "po.json", _po(mutate))
    code, data = _json(app)
    assert code == 1 and data["failed"] and data["counts"]["changed"] == 1
    result = next(r for r in data["results"] if r["status"] == "changed")
    assert result["source"] == "schemas/po.json" and result["reason"] == "source"
    assert result["diff"].startswith("--- grammar-snapshots/schemas/po.json.snap (stored)\n")
    assert "\n-# source-sha256: " in result["diff"] and "\n+# source-sha256: " in result["diff"]
    assert any(c["direction"] == direction and what in c["what"] for c in result["changes"]), result[
        "changes"
    ]
    code, out = _run(app)
    assert code == 1 and "the source changed" in out and what in out and "\n    +" in out
    assert _run(app, "--update")[0] == 0 and _run(app)[0] == 0


def test_a_compiler_change_is_reported_as_such(app: typer.Typer, project: Path) -> None:
    """An older gramwright that only approximated ``minimum``: same source hash, other version."""
    assert _run(app, "--update")[0] == 0
    snap = project / "grammar-snapshots" / "schemas" / "po.json.snap"
    text = snap.read_text(encoding="utf-8")
    old = text.replace("# gramwright: ", "# gramwright: 0.0.1-old-").replace(
        'exact "/properties/id/minimum" minimum',
        'approximated "/properties/id/minimum" minimum: not enforced',
    )
    assert old != text
    snap.write_text(old, encoding="utf-8")
    code, data = _json(app)
    result = next(r for r in data["results"] if r["source"] == "schemas/po.json")
    assert code == 1 and result["reason"] == "compiler" and result["stored_version"].startswith("0.0.1-old-")
    assert result["changes"] == [
        {
            "direction": "narrower",
            "pointer": "/properties/id/minimum",
            "what": "minimum moved from approximated to exact",
        }
    ]
    code, out = _run(app)
    assert "the compiler changed (same source)" in out and "snapshot by gramwright 0.0.1-old-" in out


def test_a_version_header_alone_is_a_match_with_a_note(app: typer.Typer, project: Path) -> None:
    assert _run(app, "--update")[0] == 0
    snap = project / "grammar-snapshots" / "grammars" / "answer.gbnf.snap"
    snap.write_text(snap.read_text(encoding="utf-8").replace("# gramwright: ", "# gramwright: 9"), "utf-8")
    code, out = _run(app)
    assert code == 0 and "header out of date: the compiler changed (gramwright 9" in out
    assert "but compiles it the same" in out
    # a description edited: the source changed, the grammar did not
    schema = _po(lambda s: s.update(description="a purchase order"))
    _write(project / "schemas" / "po.json", schema)
    code, data = _json(app)
    po = next(r for r in data["results"] if r["source"] == "schemas/po.json")
    assert (
        code == 0 and po["status"] == "match" and "the source changed but compiles to the same" in po["note"]
    )


def test_source_and_compiler_change_together(app: typer.Typer, project: Path) -> None:
    assert _run(app, "--update")[0] == 0
    snap = project / "grammar-snapshots" / "grammars" / "answer.gbnf.snap"
    snap.write_text(
        snap.read_text(encoding="utf-8").replace("# gramwright: ", "# gramwright: 0.0.1-"), "utf-8"
    )
    (project / "grammars" / "answer.gbnf").write_text('root ::= "yes" | "no" | "maybe"\n', encoding="utf-8")
    code, data = _json(app)
    assert code == 1 and [r["reason"] for r in data["results"] if r["status"] == "changed"] == ["both"]


def test_new_and_orphaned_snapshots_fail_a_check(app: typer.Typer, project: Path) -> None:
    assert _run(app, "--update")[0] == 0
    _write(project / "schemas" / "invoice.json", {"type": "object", "properties": {"n": {"type": "integer"}}})
    (project / "grammars" / "answer.gbnf").unlink()
    code, data = _json(app)
    statuses = {r["source"]: r["status"] for r in data["results"]}
    assert code == 1 and statuses == {
        "schemas/invoice.json": "new",
        "schemas/po.json": "match",
        "grammars/answer.gbnf": "orphaned",
    }
    code, out = _run(app, "--update")
    assert code == 0 and "[deleted]" in out
    assert not (project / "grammar-snapshots" / "grammars").exists()
    assert _run(app)[0] == 0


def test_ci_mode_never_writes(app: typer.Typer, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = _run(app, "--update", "--ci")
    assert code == 2 and "CI mode never writes snapshots" in out
    monkeypatch.setenv("CI", "true")
    code, data = _json(app)
    assert code == 1 and data["counts"]["new"] == 2 and not (project / "grammar-snapshots").exists()
    assert _run(app, "--update")[0] == 2 and not (project / "grammar-snapshots").exists()


def test_pyproject_settings_and_targets(app: typer.Typer, project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.gramwright.snapshot]\npaths = ["schemas/*.json"]\ndir = "snaps"\ntargets = ["lark"]\n',
        encoding="utf-8",
    )
    config = load_config(project)
    assert config.dir == (project / "snaps").resolve() and config.targets == ("lark",)
    code, data = _json(app, "--update")
    assert code == 0 and [r["source"] for r in data["results"]] == ["schemas/po.json"]
    text = (project / "snaps" / "schemas" / "po.json.snap").read_text(encoding="utf-8")
    assert "\n## export lark\n" in text and "# targets: lark\n" in text
    # A target asked for on the command line that the snapshot lacks: the targets changed.
    code, data = _json(app, "--targets", "lark,vllm-request")
    assert code == 1 and data["results"][0]["reason"] == "targets"


def test_usage_errors(app: typer.Typer, project: Path) -> None:
    code, out = _run(app, "--targets", "nope")
    assert code == 2 and "unknown export target 'nope'" in out
    code, out = _run(app, "missing.json")
    assert code == 2 and "missing.json" in out and "no such file" in out
    (project / "schemas" / "bad.json").write_text("{not json", encoding="utf-8")
    code, data = _json(app, "--update")
    bad = next(r for r in data["results"] if r["source"] == "schemas/bad.json")
    assert code == 1 and bad["status"] == "error" and "bad.json" in bad["error"]


def test_run_snapshots_returns_data(project: Path) -> None:
    config = load_config(project, ["schemas"])
    run = run_snapshots(config, update=True)
    assert [r.status for r in run.results] == ["new"] and run.results[0].written and not run.failed
    assert not run_snapshots(config).failed


def test_a_source_and_a_folder_outside_the_root(
    app: typer.Typer, project: Path, tmp_path_factory: Any
) -> None:
    """Absolute paths stay absolute in the report, and the snapshot still lands inside --dir."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    _write(elsewhere / "ext.json", {"type": "string"})
    snaps = tmp_path_factory.mktemp("snaps")
    code, data = _json(app, str(elsewhere / "ext.json"), "--dir", str(snaps), "--update")
    assert code == 0 and data["dir"] == snaps.resolve().as_posix()
    assert data["results"][0]["source"] == (elsewhere / "ext.json").resolve().as_posix()
    written = list(snaps.rglob("*.snap"))
    assert (
        len(written) == 1
        and written[0].name == "ext.json.snap"
        and list(elsewhere.iterdir()) == [elsewhere / "ext.json"]
    )
    assert _run(app, str(elsewhere / "ext.json"), "--dir", str(snaps))[0] == 0


def test_nothing_to_check_is_a_usage_error(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = _run(app)
    assert code == 2 and "no schemas or grammars found in schemas, grammars" in out


def test_a_glob_orphans_what_it_no_longer_matches(app: typer.Typer, project: Path) -> None:
    _write(project / "schemas" / "old.json", {"type": "string"})
    assert _run(app, "schemas/*.json", "--update")[0] == 0
    (project / "schemas" / "old.json").rename(project / "schemas" / "old.txt")
    code, data = _json(app, "schemas/*.json")
    orphan = next(r for r in data["results"] if r["status"] == "orphaned")
    assert (
        code == 1
        and orphan["source"] == "schemas/old.json"
        and orphan["note"] == "its source no longer exists"
    )
    # a run over grammars/ leaves schemas/po.json's snapshot alone (its source exists, not searched)
    # but deletes old.json's (its source is gone, whoever searched for it)
    assert _run(app, "grammars", "--update")[0] == 0
    assert (project / "grammar-snapshots" / "schemas" / "po.json.snap").is_file()
    assert not (project / "grammar-snapshots" / "schemas" / "old.json.snap").exists()
    assert _run(app, "schemas/*.json")[0] == 0 and _run(app, "grammars")[0] == 0
