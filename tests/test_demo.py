"""`make demo`'s script ends green on the embedded model, and a user's install carries no benchmark peer."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PEERS = ("xgrammar", "llguidance", "outlines-core", "outlines_core", "triton")


def test_a_users_install_carries_no_benchmark_peer() -> None:
    """The peers are test oracles (the `bench` extra). xgrammar pulls in triton, which torch then
    imports, and triton's bindings print a nanobind "leaked functions" dump at every exit: a user's
    `pip install gramwright` (and `make demo`'s .venv) must not carry them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [
        dep.split(">")[0].split("=")[0].split("[")[0].strip().lower() for dep in project["dependencies"]
    ]
    assert not [dep for dep in runtime if dep in PEERS]
    assert {"xgrammar", "llguidance", "outlines-core"} <= {
        dep.split(">")[0].split("=")[0].strip().lower() for dep in project["optional-dependencies"]["bench"]
    }
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo_rule = makefile[makefile.index("\ndemo:") :].split("\n\n")[0]
    assert "install-dev" not in demo_rule and "bench" not in demo_rule


def _name(requirement: str) -> str:
    for stop in "<>=[; ":
        requirement = requirement.split(stop)[0]
    return requirement.strip().lower()


@pytest.mark.model
def test_the_demo_script_exits_zero_and_says_what_it_showed() -> None:
    bindir = Path(sys.executable).parent
    env = {**os.environ, "GW": str(bindir / "gramwright"), "PY": sys.executable}
    out = subprocess.run(
        ["bash", str(ROOT / "docs" / "demo.sh")], capture_output=True, text=True, timeout=1200, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "demo finished" in out.stderr
    assert "what this demo showed" in out.stderr
    assert "Traceback" not in out.stderr
    # a constrained generation always ends complete: the budget closes it, never cuts it
    assert "finish_reason: stop" in out.stderr and "finish_reason: length" not in out.stderr
    assert "the shortest output this grammar accepts is 78 tokens; --max-tokens is 24" in out.stderr
    # the edit step: applied (saying what it changed), refused for syntax, or not applied and said so
    assert (
        "edit: the patch applied (" in out.stderr
        or "edit: refused: the model's patch matched but would leave config.py unparseable" in out.stderr
        or "edit: not applied (the budget closed the patch early" in out.stderr
    )
    if "edit: the patch applied" in out.stderr:
        # the content check ran and said what it found (a miss is flagged, not a failure)
        assert "-- content check: ok: " in out.stderr or "-- content check: miss: " in out.stderr
        assert "undo restored the file byte for byte" in out.stderr
