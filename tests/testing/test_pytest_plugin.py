"""The pytest plugin (``gramwright_snapshot``, ``--gramwright-update``) and the public syrupy
extension, used by the tests of a temp project run with pytest in a subprocess: pass, fail after a
schema change (with the reason and meaning), pass again after the update."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gramwright.snapshot import parse_snapshot

SCHEMA = {
    "type": "object",
    "properties": {"status": {"enum": ["draft", "sent"]}, "qty": {"type": "integer"}},
    "required": ["status"],
}
TESTS = """
from pathlib import Path

import pytest
from gramwright.testing.syrupy import GbnfSnapshotExtension

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def gbnf_snapshot(snapshot):
    return snapshot.use_extension(GbnfSnapshotExtension)


def test_po(gramwright_snapshot):
    gramwright_snapshot("schemas/po.json")


def test_po_with_syrupy(gbnf_snapshot):
    assert gbnf_snapshot(name="po") == ROOT / "schemas" / "po.json"
"""


def _local_env() -> dict[str, str]:
    """A developer's shell: CI mode (set where this suite itself runs in CI) refuses updates."""
    return {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = _local_env()
    # hypothesis (a dev dependency here, not the user project's) costs ~1 s of import per run
    quiet = ["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *quiet, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.gramwright.snapshot]\ndir = "snaps"\n',
        encoding="utf-8",
    )
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "po.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_grammar.py").write_text(TESTS, encoding="utf-8")
    return tmp_path


def test_plugin_and_syrupy_extension_in_a_user_project(project: Path) -> None:
    first = _pytest(project, "--gramwright-update", "--snapshot-update")
    assert first.returncode == 0, first.stdout + first.stderr
    stored = parse_snapshot((project / "snaps" / "schemas" / "po.json.snap").read_text(encoding="utf-8"))
    assert stored.source == "schemas/po.json" and stored.body.count("## gbnf") == 1
    syrupy_file = project / "tests" / "__snapshots__" / "test_grammar" / "po.gbnf"
    assert "## language" in syrupy_file.read_text(encoding="utf-8")

    again = _pytest(project)
    assert again.returncode == 0 and "2 passed" in again.stdout, again.stdout + again.stderr

    schema = json.loads(json.dumps(SCHEMA))
    schema["properties"]["status"]["enum"].append("cancelled")
    (project / "schemas" / "po.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    changed = _pytest(project)
    out = changed.stdout
    assert changed.returncode == 1 and "2 failed" in out, out + changed.stderr
    assert "the source changed" in out and 'wider: /properties/status: enum member added: "cancelled"' in out
    assert "pytest --gramwright-update" in out
    assert '"cancelled"' in out  # the diff of both files shows the new member

    updated = _pytest(project, "--gramwright-update", "--snapshot-update")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    final = _pytest(project)
    assert final.returncode == 0 and "2 passed" in final.stdout, final.stdout + final.stderr


def test_the_plugin_imports_only_pytest() -> None:
    """Every pytest run in a project with gramwright installed loads the plugin: it must not pull
    in the compiler, jsonschema, numpy or torch."""
    code = (
        "import sys, gramwright.testing.pytest_plugin\n"
        "heavy = ('torch', 'transformers', 'numpy', 'jsonschema', 'gramwright.schema',"
        " 'gramwright.sources')\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


FIGHT = """
def test_ticket(gramwright_snapshot):
    gramwright_snapshot("schemas/po.json", targets=["lark", "vllm-request"])
"""


def test_a_fixture_with_its_own_targets_and_the_cli_never_fight_over_one_file(project: Path) -> None:
    """``[tool.gramwright.snapshot] targets = ["lark"]`` for the CLI, other targets in a test: each
    keeps its own snapshot file, so neither's update makes the other fail."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + 'targets = ["lark"]\n', encoding="utf-8")
    (project / "tests" / "test_grammar.py").write_text(FIGHT, encoding="utf-8")
    cli = [str(Path(sys.executable).parent / "gramwright"), "snapshot"]

    assert _pytest(project, "--gramwright-update").returncode == 0
    first = subprocess.run(
        [*cli, "--update"], cwd=project, env=_local_env(), capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0, first.stdout + first.stderr
    check = subprocess.run(cli, cwd=project, env=_local_env(), capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and "targets changed" not in check.stdout, check.stdout + check.stderr
    again = _pytest(project)
    assert again.returncode == 0 and "1 passed" in again.stdout, again.stdout + again.stderr

    snaps = project / "snaps" / "schemas"
    assert parse_snapshot((snaps / "po.json.snap").read_text(encoding="utf-8")).targets == ("lark",)
    variant = parse_snapshot((snaps / "po.json@lark+vllm-request.snap").read_text(encoding="utf-8"))
    assert variant.targets == ("lark", "vllm-request") and variant.source == "schemas/po.json"

    # the source gone: the CLI's update removes both (the test's file is orphaned as well)
    (project / "schemas" / "po.json").unlink()
    (project / "schemas" / "other.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    gone = subprocess.run(
        [*cli, "--update"], cwd=project, env=_local_env(), capture_output=True, text=True, timeout=120
    )
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert sorted(p.name for p in snaps.iterdir()) == ["other.json.snap"]
