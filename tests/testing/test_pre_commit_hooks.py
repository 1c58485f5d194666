"""The hooks in .pre-commit-hooks.yaml, run by pre-commit itself on a temp git repository.

``pre-commit try-repo`` would build the hooks' ``language: python`` environment by installing
gramwright with all its dependencies (torch included) from the index; the test instead hands
pre-commit the very hook definitions (entry, files, types, pass_filenames) as ``repo: local``
hooks with ``language: system`` and this virtualenv's ``gramwright`` as the entry's command, so
pre-commit's own file selection and exit handling are what run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")
HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"
PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
GRAMWRIGHT = Path(sys.executable).parent / "gramwright"

pytestmark = pytest.mark.skipif(
    PRE_COMMIT is None or not GRAMWRIGHT.exists(), reason="needs pre-commit and the gramwright script"
)


def test_the_hooks_file_declares_both_hooks() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"gramwright-lint", "gramwright-snapshot"}
    assert all(h["language"] == "python" and h["entry"].startswith("gramwright ") for h in hooks.values())
    assert hooks["gramwright-snapshot"]["pass_filenames"] is False


def _local_config(repo: Path) -> None:
    hooks: list[dict[str, Any]] = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    command = str(GRAMWRIGHT)
    local = [{**h, "language": "system", "entry": h["entry"].replace("gramwright", command)} for h in hooks]
    config = {"repos": [{"repo": "local", "hooks": local}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


def _pre_commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert PRE_COMMIT is not None
    return subprocess.run(
        [PRE_COMMIT, "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_hooks_run_under_pre_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "schemas").mkdir(parents=True)
    schema = {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]}
    (repo / "schemas" / "po.json").write_text(json.dumps(schema), encoding="utf-8")
    # not a schema and not under schemas/: the lint hook's `files` pattern leaves it alone
    (repo / "package.json").write_text(json.dumps({"type": "integer", "minimum": 3, "maximum": 1}), "utf-8")
    _local_config(repo)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "cache"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")

    first = _pre_commit(repo, env)
    out = first.stdout
    assert first.returncode == 1, out
    assert "Lint JSON Schemas for constrained decoding" in out and "Check grammar snapshots" in out
    assert "new      schemas/po.json — no snapshot yet" in out  # the snapshot hook failed: none written

    update = [str(GRAMWRIGHT), "snapshot", "--update"]
    subprocess.run(update, cwd=repo, env=env, check=True, capture_output=True, timeout=120)
    _git(repo, "add", "-A")
    second = _pre_commit(repo, env)
    assert second.returncode == 0, second.stdout

    bad = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 1}}}
    (repo / "schemas" / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    _git(repo, "add", "-A")
    third = _pre_commit(repo, env)
    assert third.returncode == 1 and "sat/unsatisfiable" in third.stdout, third.stdout
    assert "package.json" not in third.stdout.split("Check grammar snapshots")[0]
