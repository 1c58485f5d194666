"""No light command imports the model stack, in the full install too: every command of
``commands.LIGHT_COMMANDS``, ``generate --server`` and the pytest plugin's fixture run in a fresh
interpreter, which then lists the modules of the ``local`` extra it loaded (none allowed).

The import-linter contract in pyproject.toml holds the core to the same rule statically; this test
covers what a contract cannot see: the CLI modules, which import the model stack inside the options
that need it, and what a command imports at run time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gramwright.extras import LOCAL_MODULES
from tests.light.commands import LIGHT_COMMANDS, make_project
from tests.support.fake_server import recorded_server

# Runs the CLI's `main` as the `gramwright` script does, then (at exit, whatever the exit code)
# writes which top-level modules of the local extra were imported.
PROBE = """
import atexit, json, sys
local, out = json.loads(sys.argv[1]), sys.argv[2]
def report():
    with open(out, "w") as fh:
        json.dump(sorted({m.partition(".")[0] for m in sys.modules} & set(local)), fh)
atexit.register(report)
sys.argv = ["gramwright", *sys.argv[3:]]
from gramwright.cli.main import main
main()
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}


def _loaded(cwd: Path, out: Path, *args: str) -> tuple[int, list[str], subprocess.CompletedProcess[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(LOCAL_MODULES), str(out), *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.returncode, json.loads(out.read_text(encoding="utf-8")), proc


def test_the_light_commands_import_no_model_stack(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    for name, args in LIGHT_COMMANDS.items():
        code, loaded, proc = _loaded(project, tmp_path / f"{name}.json", *args)
        assert code == 0, f"{name}: {proc.stdout}{proc.stderr}"
        assert loaded == [], f"gramwright {' '.join(args)} imported {loaded}"


def test_generate_through_a_server_imports_no_model_stack(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    with recorded_server("vllm", '{"status":"sent","qty":3}') as server:
        args = ["generate", "--server", server.url, "--schema", "schemas/po.json", "--prompt", "one order"]
        code, loaded, proc = _loaded(project, tmp_path / "out.json", *args, "--format", "json")
    assert code == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["text"] == '{"status":"sent","qty":3}'
    assert loaded == []


PLUGIN_TEST = """
import json, sys

def test_po(gramwright_snapshot):
    gramwright_snapshot("schemas/po.json")
    local = {m.partition(".")[0] for m in sys.modules} & set(json.loads(%r))
    assert not local, local
"""


def test_the_snapshot_fixture_imports_no_model_stack(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    (project / "tests").mkdir()
    (project / "tests" / "test_grammar.py").write_text(PLUGIN_TEST % json.dumps(LOCAL_MODULES), "utf-8")
    quiet = ["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--gramwright-update"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *quiet],
        cwd=project,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("module", LOCAL_MODULES)
def test_the_local_extra_lists_each_module(module: str) -> None:
    """The modules the probe looks for are the distributions of the extra (pyproject.toml)."""
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8"))
    local = pyproject["project"]["optional-dependencies"]["local"]
    assert any(requirement.startswith(module) for requirement in local)
    assert not any(requirement.startswith(module) for requirement in pyproject["project"]["dependencies"])
