"""The light install (``pip install gramwright``, no ``local`` extra), as a user has it: the package's
wheel installed into a clean venv, its own ``gramwright`` script and its pytest with the plugin, run
in fresh project folders.

``make test`` builds that venv (``make install-light``: ``.venv-light``, or ``GRAMWRIGHT_LIGHT_VENV``):
``python -m build --wheel``, then ``pip install <wheel>`` without the constraints file; where it is
absent these tests skip. The venv must hold none of the model stack (the first test fails when a
dependency starts pulling torch or transformers in again), and its package must be the wheel of the
tree under test, every package file byte for byte (a file the wheel leaves out fails here).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gramwright.extras import LOCAL_EXTRA_HINT, LOCAL_MODULES
from tests.light.commands import LIGHT_COMMANDS, PATCHED, make_project
from tests.testing.test_pytest_plugin import SCHEMA as PLUGIN_SCHEMA
from tests.testing.test_pytest_plugin import TESTS as PLUGIN_TESTS

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("GRAMWRIGHT_LIGHT_VENV") or REPO / ".venv-light")
if not VENV.is_absolute():
    VENV = REPO / VENV
PYTHON, GRAMWRIGHT = VENV / "bin" / "python", VENV / "bin" / "gramwright"

pytestmark = pytest.mark.skipif(
    not GRAMWRIGHT.exists(), reason=f"needs the light venv ({VENV}: make install-light)"
)


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "VIRTUAL_ENV")}


def _run(cwd: Path, *args: str, program: Path = GRAMWRIGHT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(program), *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120
    )


def test_the_light_venv_holds_no_model_stack() -> None:
    probe = "import importlib.util as u, sys; print([m for m in sys.argv[1:] if u.find_spec(m)])"
    out = _run(REPO, "-c", probe, *LOCAL_MODULES, program=PYTHON)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


# Run by the light venv's interpreter: how gramwright was installed, and every file of the package
# as installed (relative path -> bytes, hex), so the test compares them with the tree.
INSTALLED = """
import importlib.metadata as md, json, pathlib, sys
dist = md.distribution("gramwright")
root = pathlib.Path(dist.locate_file("gramwright"))
files = {str(p.relative_to(root)): p.read_bytes().hex() for p in root.rglob("*")
         if p.is_file() and "__pycache__" not in p.parts}
json.dump({"direct_url": json.loads(dist.read_text("direct_url.json") or "{}"), "files": files}, sys.stdout)
"""
# the tree's package folders as the wheel lays them out (pyproject.toml [tool.setuptools.package-dir])
PACKAGE_DIRS = {"toolchain": "", "editors": "editors/", "grammars": "grammars/"}
SHIPPED = {".py", ".gbnf", ".json", ".typed"}


def test_the_light_venv_runs_the_wheel_of_this_tree(tmp_path: Path) -> None:
    # -I, away from the repository: its own gramwright.egg-info (build metadata) must not answer
    out = _run(tmp_path, "-I", "-c", INSTALLED, program=PYTHON)
    assert out.returncode == 0, out.stderr
    installed = json.loads(out.stdout)
    # a wheel (archive), not an editable install of the folder
    assert installed["direct_url"].get("url", "").endswith(".whl"), installed["direct_url"]
    assert "dir_info" not in installed["direct_url"]
    stale, missing = [], []
    for folder, prefix in PACKAGE_DIRS.items():
        for path in sorted((REPO / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix not in SHIPPED:
                continue
            name = prefix + path.relative_to(REPO / folder).as_posix()
            if name not in installed["files"]:
                missing.append(name)
            elif bytes.fromhex(installed["files"][name]) != path.read_bytes():
                stale.append(name)
    assert not missing, f"files the wheel left out: {missing}"
    assert not stale, f"the light venv holds an older wheel ({stale[:5]}…): run make install-light"
    # the compiled mask core came with the wheel (built for this platform), not from the tree
    assert any(name.startswith("engine/_native") and name.endswith(".so") for name in installed["files"])


def test_version_says_light() -> None:
    out = _run(REPO, "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("gramwright 0.") and "light" in out.stdout and LOCAL_EXTRA_HINT in out.stdout


def test_the_light_commands_work(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    original = (project / "inventory.py").read_bytes()
    for name, args in LIGHT_COMMANDS.items():
        out = _run(project, *args)
        assert out.returncode == 0, f"gramwright {' '.join(args)}: {out.stdout}{out.stderr}"
        if name == "export":
            assert json.loads(out.stdout)["target"] == "vllm-request"
        if name == "apply":
            assert PATCHED in (project / "inventory.py").read_text(encoding="utf-8")
    assert (project / "grammar-snapshots" / "schemas" / "po.json.snap").is_file()
    assert (project / "inventory.py").read_bytes() == original  # undo restored it byte for byte


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--schema", "schemas/po.json", "--prompt", "one order"],
        ["edit", "inventory.py", "-i", "count quantities"],
        ["warm"],
        ["extract", "--schema", "schemas/po.json", "--input", "rows.jsonl", "--output", "out.jsonl"],
    ],
    ids=lambda args: args[0],
)
def test_a_model_command_names_the_extra_in_one_line(tmp_path: Path, args: list[str]) -> None:
    project = make_project(tmp_path / "project")
    (project / "rows.jsonl").write_text('{"id": 1, "text": "two laptops"}\n', encoding="utf-8")
    out = _run(project, *args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: "), out.stderr
    assert LOCAL_EXTRA_HINT in out.stderr and "Traceback" not in out.stderr
    assert not (project / "out.jsonl").exists() or not (project / "out.jsonl").read_text("utf-8")


def test_lint_with_a_tokenizer_names_the_extra_in_one_line(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    out = _run(project, "lint", "schemas/po.json", "--tokenizer", "smollm2")
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: --tokenizer smollm2: "), out.stderr
    assert LOCAL_EXTRA_HINT in out.stderr and "MissingExtraError" not in out.stderr
    # without --tokenizer, a budget falls back to counting bytes and says why, still exit 0
    budget = _run(project, "lint", "schemas/po.json", "--max-tokens", "64")
    assert budget.returncode == 0, budget.stdout + budget.stderr
    assert f"note: no tokenizer in this install ({LOCAL_EXTRA_HINT} adds one)" in budget.stderr


def test_the_pytest_plugin_and_syrupy_extension_work(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n', encoding="utf-8")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "po.json").write_text(json.dumps(PLUGIN_SCHEMA), encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_grammar.py").write_text(PLUGIN_TESTS, encoding="utf-8")
    quiet = ["-m", "pytest", "-q", "-p", "no:cacheprovider"]
    first = _run(tmp_path, *quiet, "--gramwright-update", "--snapshot-update", program=PYTHON)
    assert first.returncode == 0, first.stdout + first.stderr
    again = _run(tmp_path, *quiet, program=PYTHON)
    assert again.returncode == 0 and "2 passed" in again.stdout, again.stdout + again.stderr
    # the CLI of the same install agrees with what the fixture wrote
    cli = _run(tmp_path, "snapshot")
    assert cli.returncode == 0, cli.stdout + cli.stderr


@pytest.mark.model  # the model runs in the server's process (the dev venv's llama-cpp-python)
def test_generate_through_a_real_llama_cpp_server(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp.server.app", reason="needs the test extra: llama-cpp-python[server]")
    from tests.support.llama_server import LlamaServer

    project = make_project(tmp_path / "project")
    prompt = "One order, status sent, two items."
    args = ["--schema", "schemas/po.json", "--prompt", prompt, "--format", "json"]
    with LlamaServer(log=tmp_path / "server.log") as server:
        out = _run(project, "generate", "--server", server.url, "--max-tokens", "64", *args)
    assert out.returncode in (0, 1), out.stdout + out.stderr  # 1: content invalid, form still masked
    result = json.loads(out.stdout)
    document = json.loads(result["text"])  # the server decoded under the grammar gramwright sent
    assert document["status"] in ("draft", "sent") and set(document) <= {"status", "qty"}
