"""What the light install costs: ``pip install gramwright`` (the wheel, no ``local`` extra) in a clean
venv, the pre-commit hooks' environment, and fresh-process times of ``--help`` and ``lint`` beside
the full install.

1. The wheel is built with the standard front end (``python -m build --wheel``, or ``--wheel``).
2. ``python -m venv``, then ``pip install <wheel>`` without the project's constraints file (what a
   user's install resolves): its wall time, the venv's size on disk, and which modules of the
   ``local`` extra it can import (must be none).
3. ``pre-commit run --all-files`` in a small git repository whose ``.pre-commit-config.yaml`` names
   this repository at its HEAD commit and both hooks: pre-commit clones it and builds the
   ``language: python`` hook environment itself; its size and the run's wall time (cold cache).
4. ``gramwright --help`` and ``gramwright lint <schema>`` as fresh processes, ``--runs`` times each,
   in the light venv and in the full one (``--full-venv``, default ``.venv``: ``make install``).

Installs come from whatever index pip is configured with (its cache helps the first two). The
numbers depend on the machine's load; run it on a quiet one for figures to quote.

    python -m bench.install --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gramwright.extras import LOCAL_MODULES

REPO = Path(__file__).resolve().parents[1]
SCHEMA = {
    "type": "object",
    "properties": {"status": {"enum": ["draft", "sent"]}, "qty": {"type": "integer", "minimum": 1}},
    "required": ["status"],
    "additionalProperties": False,
}


def _size_mb(folder: Path) -> float:
    """Bytes of the regular files below ``folder`` (links not followed), in MB (10^6)."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(top) / name
            if not path.is_symlink():
                total += path.stat().st_size
    return round(total / 1e6, 1)


def _run(args: list[str], **kw: Any) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, **kw)
    return time.perf_counter() - started, proc


def _checked(args: list[str], **kw: Any) -> float:
    took, proc = _run(args, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took


def build_wheel(out: Path) -> Path:
    _checked([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(REPO)])
    return next(out.glob("gramwright-*.whl"))


def light_venv(wheel: Path, folder: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_CONSTRAINT", "VIRTUAL_ENV")}
    venv_s = _checked([sys.executable, "-m", "venv", str(folder)], env=env)
    install_s = _checked([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], env=env)
    probe = "import importlib.util as u, sys; print(' '.join(m for m in sys.argv[1:] if u.find_spec(m)))"
    _took, found = _run([str(folder / "bin" / "python"), "-c", probe, *LOCAL_MODULES])
    return {
        "venv_s": round(venv_s, 1),
        "pip_install_s": round(install_s, 1),
        "size_mb": _size_mb(folder),
        "local_modules_found": found.stdout.split(),
    }


def _git(repo: Path, *args: str) -> None:
    _checked(["git", *args], cwd=repo)


def pre_commit_env(light: Path, work: Path) -> dict[str, Any]:
    here = str(Path(sys.executable).parent)
    pre_commit = shutil.which("pre-commit", path=here) or shutil.which("pre-commit")
    if pre_commit is None:
        return {"skipped": "pre-commit is not installed (the dev extra has it)"}
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    repo = work / "user-repo"
    (repo / "schemas").mkdir(parents=True)
    (repo / "schemas" / "po.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n', encoding="utf-8")
    # the snapshot hook checks committed snapshots: write them first (with the light install)
    _checked([str(light / "bin" / "gramwright"), "snapshot", "--update"], cwd=repo)
    config = (
        f"repos:\n  - repo: {REPO}\n    rev: {rev}\n    hooks:\n"
        "      - id: gramwright-lint\n      - id: gramwright-snapshot\n"
    )
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "VIRTUAL_ENV", "PIP_CONSTRAINT")}
    env.update(
        PRE_COMMIT_HOME=str(work / "pre-commit-home"),
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
    )
    _checked(["git", "init", "-q"], cwd=repo, env=env)
    _checked(["git", "add", "-A"], cwd=repo, env=env)
    _checked(["git", "commit", "-qm", "schemas"], cwd=repo, env=env)
    took, proc = _run([pre_commit, "run", "--all-files", "--color", "never"], cwd=repo, env=env)
    envs = sorted((work / "pre-commit-home").glob("repo*/py_env-*"))
    probe = "import importlib.util as u, sys; print(' '.join(m for m in sys.argv[1:] if u.find_spec(m)))"
    found = (
        _run([str(envs[0] / "bin" / "python"), "-c", probe, *LOCAL_MODULES])[1].stdout.split() if envs else []
    )
    return {
        "rev": rev[:12],
        "exit": proc.returncode,
        "output": proc.stdout.strip().splitlines()[-4:],
        "first_run_s": round(took, 1),
        "hook_env_mb": _size_mb(envs[0]) if envs else None,
        "local_modules_found": found,
    }


def fresh_times(venv: Path, schema: Path, runs: int) -> dict[str, Any]:
    gramwright = str(venv / "bin" / "gramwright")
    out: dict[str, Any] = {}
    for name, args in (("help", ["--help"]), ("lint", ["lint", str(schema)])):
        _run([gramwright, *args])  # one untimed run: the page cache, not the install, is then warm
        times = [_run([gramwright, *args])[0] for _ in range(runs)]
        out[name] = {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="an already built wheel (default: build one)")
    parser.add_argument(
        "--full-venv", type=Path, default=REPO / ".venv", help="the full install to compare (default .venv)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-pre-commit", action="store_true", help="skip the hook environment")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gramwright-install-") as tmp:
        work = Path(tmp)
        wheel = args.wheel or build_wheel(work / "dist")
        light = work / "light"
        result: dict[str, Any] = {"wheel": wheel.name, "light_venv": light_venv(wheel, light)}
        if not args.no_pre_commit:
            result["pre_commit"] = pre_commit_env(light, work)
        schema = work / "po.json"
        schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
        result["fresh_process"] = {"light": fresh_times(light, schema, args.runs)}
        if (args.full_venv / "bin" / "gramwright").exists():
            result["fresh_process"]["full"] = fresh_times(args.full_venv, schema, args.runs)
            result["full_venv_mb"] = _size_mb(args.full_venv)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    lv = result["light_venv"]
    print(f"light venv: pip install {result['wheel']} {lv['pip_install_s']} s, {lv['size_mb']} MB")
    for kind, times in result["fresh_process"].items():
        print(f"{kind}: --help {times['help']['median_s']} s, lint {times['lint']['median_s']} s (median)")
    if "pre_commit" in result:
        print(f"pre-commit: {json.dumps(result['pre_commit'])}")


if __name__ == "__main__":
    main()
