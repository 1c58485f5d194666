"""The light install (``pip install gramwright``, no ``local`` extra), as a user has it: the light
venv's own ``gramwright`` script and its pytest with the plugin, run in fresh project folders.

``make test`` builds that venv (``make install-light``: ``.venv-light``, or ``GRAMWRIGHT_LIGHT_VENV``);
where it is absent these tests skip. The venv must hold none of the model stack: the first test
fails when a dependency starts pulling torch or transformers in again.
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
