"""Codex's own ``apply_patch`` tests as a conformance suite for the apply-patch format.

``../shared/data/peer-patches/codex.jsonl`` holds 71 cases from openai/codex (the scenario
fixtures, the unit tests of ``lib.rs``/``parser.rs``/``seek_sequence.rs`` and the CLI suites),
each expectation confirmed by the real Codex binary. Every case runs through the real CLI
(``gramwright apply``, in-process) on a real temporary tree and must either agree with Codex —
same final tree, exit 0 exactly when Codex succeeded — or differ in a way docs/patches.md
states: the sentence is checked to be there, and the case to differ in exactly that way.
Skipped when the data is absent.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "peer-patches" / "codex.jsonl"
DOCS = Path(__file__).resolve().parents[3] / "docs" / "patches.md"

# case id → (how gramwright differs, the sentence of docs/patches.md that states it). Each kind
# is checked for what it claims, not skipped: "atomic" refuses as Codex does and writes nothing
# (Codex keeps the sections before the failing one); "syntax" is refused by the syntax check
# alone, and with --allow-broken-syntax ends with Codex's tree; "final-newline" ends with Codex's
# tree except that a file whose untouched last line had no newline still has none.
DOCUMENTED: dict[str, tuple[str, str]] = {
    "scenario_015_failure_after_partial_success_leaves_changes": (
        "atomic",
        "**Codex writes the sections before a failing one** and stops there",
    ),
    # path/add.py gets the lines "abc" and "def": not Python
    "parser_add_delete_update_move": ("syntax", "**Codex writes a file that no longer parses.**"),
    # one\r\ntwo with -one/+ONE: Codex also ends the untouched "two" with a newline
    "tool_crlf_new_trailing_newline": (
        "final-newline",
        "**Codex's `apply_patch` ends every file it updates with a newline**",
    ),
}


def _cases() -> list[dict[str, Any]]:
    if not DATA.is_file():
        return []
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_tree(root: Path, before: dict[str, Any]) -> None:
    for name in before.get("dirs", []):
        (root / name).mkdir(parents=True, exist_ok=True)
    for name, entry in before.get("files", {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if "link" in entry:
            os.symlink(entry["link"], path)
            continue
        path.write_bytes(base64.b64decode(entry["b"]) if "b" in entry else entry["t"].encode("utf-8"))
        if entry.get("x"):
            path.chmod(0o755)


def _tree(root: Path) -> tuple[dict[str, Any], list[str]]:
    files: dict[str, Any] = {}
    empty_dirs: list[str] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".gramwright":
            continue
        if path.is_symlink():
            files[rel.as_posix()] = {"link": os.readlink(path)}
        elif path.is_file():
            data = path.read_bytes()
            try:
                entry: dict[str, Any] = {"t": data.decode("utf-8")}
            except UnicodeDecodeError:
                entry = {"b": base64.b64encode(data).decode("ascii")}
            if os.access(path, os.X_OK):
                entry["x"] = True
            files[rel.as_posix()] = entry
        elif path.is_dir() and not any(path.iterdir()):
            empty_dirs.append(rel.as_posix())
    return files, empty_dirs


def _expected(case: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    files = dict(case["before"].get("files", {}))
    for name, entry in case["expect"].get("changes", {}).items():
        if entry is None:
            files.pop(name, None)
        else:
            files[name] = entry
    return files, sorted(case["expect"].get("dirs", []))


def run_case(case: dict[str, Any], root: Path, *extra: str) -> tuple[bool, str]:
    """(agrees, what happened) for one case run in the empty directory ``root``."""
    _write_tree(root, case["before"])
    start = _tree(root)
    codes: list[int] = []
    errors: list[str] = []
    for step in case["steps"]:
        patch = step["patch"].replace("{ROOT}", str(root))
        args = ["apply", "-", "--root", str(root), "--edit-format", "apply-patch"]
        result = CliRunner().invoke(app, [*args, *extra], input=patch)
        codes.append(result.exit_code)
        errors.append(result.stderr.strip())
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return False, f"crashed: {result.exception!r}"
        if result.stderr.strip().count("\n"):
            return False, f"multi-line error: {result.stderr!r}"
        if result.exit_code != 0:
            break
    files, dirs = _tree(root)
    want_files, want_dirs = _expected(case)
    if case["expect"]["outcome"] == "applied":
        if codes != [0] * len(case["steps"]):
            return False, f"refused (exit {codes}): {errors[-1]}"
        if files != want_files or sorted(dirs) != want_dirs:
            return False, f"applied, but the tree differs: {files} {dirs} != {want_files} {want_dirs}"
        return True, "applied, same tree"
    if codes[-1] == 0:
        return False, f"applied (exit 0) where Codex refused: {case['oracle']['output']!r}"
    if len(codes) == 1 and (files, dirs) != start:
        return False, "refused, but files were written"
    if not case["expect"].get("partial") and (files, sorted(dirs)) != (want_files, want_dirs):
        return False, "refused, but the tree differs from Codex's"
    return True, f"refused (exit {codes[-1]})"


CASES = _cases()


def documented_difference(case: dict[str, Any], root: Path) -> tuple[bool, str]:
    """(holds, what happened) for a case DOCUMENTED lists: the docs state it, and gramwright
    differs in exactly the stated way."""
    kind, sentence = DOCUMENTED[case["id"]]
    if sentence not in " ".join(DOCS.read_text(encoding="utf-8").split()):  # line breaks aside
        return False, f"docs/patches.md does not state the {kind!r} difference: {sentence!r}"
    if kind == "atomic":  # refused like Codex, and nothing written (Codex keeps a partial write)
        return run_case(case, root)
    if kind == "final-newline":
        return run_case(_kept_last_line(case), root)
    assert kind == "syntax"
    first = CliRunner().invoke(
        app, ["apply", "-", "--root", str(root), "--check", "--format", "json"], input=_patch(case, root)
    )
    reasons = [p["reason"] for p in json.loads(first.stdout)["problems"]] if first.stdout else []
    if first.exit_code != 1 or reasons != ["syntax"]:
        return False, f"not refused by the syntax check alone: exit {first.exit_code}, {reasons}"
    return run_case(case, root, "--allow-broken-syntax")


def _kept_last_line(case: dict[str, Any]) -> dict[str, Any]:
    """The case as gramwright's rule expects it: a changed file whose text had no final newline
    before keeps none (its last line untouched), where Codex adds one."""
    changes = dict(case["expect"]["changes"])
    for name, entry in changes.items():
        before = case["before"]["files"].get(name, {}).get("t")
        if entry and "t" in entry and before is not None and not before.endswith("\n"):
            changes[name] = {**entry, "t": entry["t"].removesuffix("\n").removesuffix("\r")}
    return {**case, "expect": {**case["expect"], "changes": changes}}


def _patch(case: dict[str, Any], root: Path) -> str:
    _write_tree(root, case["before"])
    return str(case["steps"][0]["patch"]).replace("{ROOT}", str(root))


@pytest.mark.skipif(not CASES, reason=f"{DATA} is absent")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_codex_case(case: dict[str, Any], tmp_path: Path) -> None:
    if case["id"] in DOCUMENTED:
        holds, what = documented_difference(case, tmp_path)
        assert holds, what
        return
    agrees, what = run_case(case, tmp_path)
    assert agrees, what


@pytest.mark.skipif(not CASES, reason=f"{DATA} is absent")
def test_codex_suite_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every case agrees or is a stated difference; the counts are printed (``pytest -s``)."""
    agree, documented, faults = 0, 0, []
    for number, case in enumerate(CASES):
        root = tmp_path / str(number)
        root.mkdir()
        if case["id"] in DOCUMENTED:
            ok, what = documented_difference(case, root)
            documented += ok
        else:
            ok, what = run_case(case, root)
            agree += ok
        if not ok:
            faults.append(f"{case['id']}: {what}")
    with capsys.disabled():
        print(
            f"\ncodex conformance: {len(CASES)} cases, {agree} agree, {documented} documented"
            f" differences, {len(faults)} faults"
        )
    assert not faults, "\n".join(faults)
