"""`gramwright apply` / `undo` / `history` on real files in temp dirs (CliRunner on the real app)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app

FIXTURES = Path(__file__).parents[1] / "fixtures" / "patches"
CASES = Path(__file__).resolve().parents[3] / "shared" / "data" / "edits" / "cases.jsonl"


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", root)
    return root


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".gramwright" not in p.parts
    }


# --- the 34 gold cases ------------------------------------------------------------------------


def _cases() -> list[dict[str, Any]]:
    if not CASES.is_file():
        return []
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


def _search_replace_text(case: dict[str, Any]) -> str:
    blocks = []
    for block in case["gold_search_replace"]:
        search, replace = block["search"], block["replace"]
        # a block is whole lines: a SEARCH that ends inside the file's unterminated last line is
        # written with a newline (it then matches that last line, see docs/patches.md)
        search = search if not search or search.endswith("\n") else search + "\n"
        replace = replace if not replace or replace.endswith("\n") else replace + "\n"
        body = f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"
        blocks.append(f"{case['file_path']}\n```python\n{body}```\n")
    return "Here are the changes.\n\n" + "\n".join(blocks)


@pytest.mark.data
@pytest.mark.parametrize("kind", ["search-replace", "udiff"])
@pytest.mark.parametrize("case", _cases() or [None], ids=lambda c: c["exercise"] if c else "absent")
def test_gold_edits_reproduce_the_reference(tmp_path: Path, case: dict[str, Any] | None, kind: str) -> None:
    if case is None:
        pytest.skip(f"{CASES} is absent")
    (tmp_path / case["file_path"]).write_text(case["original"], encoding="utf-8", newline="")
    patch = tmp_path / "reply.txt"
    patch.write_text(_search_replace_text(case) if kind == "search-replace" else case["gold_unified_diff"])
    code, out, err = run("apply", str(patch), "--root", str(tmp_path))
    assert code == 0, out + err
    assert f"format: {kind}" in out and "backup " in out
    assert (tmp_path / case["file_path"]).read_bytes() == case["reference"].encode("utf-8")


# --- --check, --dry-run, --format json --------------------------------------------------------


def test_check_of_a_failing_edit_shows_the_nearest_lines_and_writes_nothing(project: Path) -> None:
    before = files(project)
    code, out, _ = run("apply", str(FIXTURES / "failing.txt"), "--root", str(project), "--check")
    assert code == 1
    assert (
        "edit 1   inventory.py" in out and "FAILED: the old lines are not in the file  [patch line 3]" in out
    )
    assert "did you mean lines 4–7 (98% similar)?" in out
    assert '! 7 |         result += item["price"]' in out
    assert "-         result += item['price']" in out
    assert "edit 2   inventory.py:8" in out and "exact" in out
    assert "not applicable: 1 of 2 edit(s) failed" in out
    assert files(project) == before


@pytest.mark.parametrize("name", ["search-replace.txt", "udiff.diff", "apply-patch.txt"])
def test_each_format_checks_then_applies(project: Path, name: str) -> None:
    before = files(project)
    code, out, _ = run("apply", str(FIXTURES / name), "--root", str(project), "--check")
    assert code == 0 and "ok: " in out
    assert files(project) == before
    code, out, _ = run("apply", str(FIXTURES / name), "--root", str(project))
    assert code == 0 and "applied: " in out
    assert files(project) != before


def test_json_report(project: Path) -> None:
    code, out, _ = run(
        "apply", str(FIXTURES / "failing.txt"), "--root", str(project), "--check", "--format", "json"
    )
    assert code == 1
    data = json.loads(out)
    assert data["schema"] == "gramwright.patch-report/1"
    assert (data["format"], data["ok"], data["applied"], data["backup_id"]) == (
        "search-replace",
        False,
        False,
        None,
    )
    assert data["summary"] == {"exact": 1, "tolerant": 0, "failed": 1, "edits": 2, "files": 0, "problems": 0}
    failed = data["edits"][0]
    assert (failed["status"], failed["reason"], failed["patch_line"], failed["start_line"]) == (
        "failed",
        "not-found",
        3,
        None,
    )
    assert failed["nearest"]["start_line"] == 4 and [ln["differs"] for ln in failed["nearest"]["lines"]] == [
        False,
        False,
        False,
        True,
    ]
    code, out, _ = run("apply", str(FIXTURES / "udiff.diff"), "--root", str(project), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["applied"] and data["backup_id"]
    assert data["edits"][0]["status"] == "exact" and data["files"][0]["action"] == "modify"


def test_dry_run_prints_a_diff_that_git_apply_accepts(project: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    code, diff, err = run("apply", str(FIXTURES / "apply-patch.txt"), "--root", str(project), "--dry-run")
    assert code == 0 and diff.startswith("diff --git a/inventory.py b/inventory.py")
    assert "new file mode 100644" in diff and "(dry run)" in err
    (tmp_path / "p.diff").write_text(diff)
    subprocess.run(["git", "apply", str(tmp_path / "p.diff")], cwd=twin, check=True, capture_output=True)
    assert run("apply", str(FIXTURES / "apply-patch.txt"), "--root", str(project))[0] == 0
    assert files(twin) == files(project)


# --- undo / history ---------------------------------------------------------------------------


def test_apply_history_undo_round_trip(project: Path) -> None:
    before = files(project)
    code, out, _ = run(
        "apply", "-", "--root", str(project), stdin=(FIXTURES / "search-replace.txt").read_text()
    )
    assert code == 0
    entry = out.split("backup ")[1].split()[0]
    code, out, _ = run("history", "--root", str(project), "--format", "json")
    (listed,) = json.loads(out)["entries"]
    assert (listed["id"], listed["status"], listed["files"][0]["path"]) == (entry, "applied", "inventory.py")
    code, out, _ = run("undo", entry, "--root", str(project))
    assert code == 0 and f"undone {entry}: restored inventory.py" in out
    assert files(project) == before
    assert "undone" in run("history", "--root", str(project))[1]
    code, _, err = run("undo", "--root", str(project))
    assert code == 2 and "nothing to undo" in err


def test_undo_refuses_when_the_file_changed_since(project: Path) -> None:
    assert run("apply", str(FIXTURES / "udiff.diff"), "--root", str(project))[0] == 0
    (project / "inventory.py").write_text("rewritten by hand\n")
    code, _, err = run("undo", "--root", str(project))
    assert code == 1
    assert "error: changed after apply" in err and "(inventory.py)" in err
    assert (project / "inventory.py").read_text() == "rewritten by hand\n"


# --- errors: one line, exit 2, traceback only with --debug -------------------------------------


def test_a_bad_patch_is_one_line_naming_the_patch_line(project: Path) -> None:
    bad = "inventory.py\n<<<<<<< SEARCH\nx\n=======\ny\n"
    code, out, err = run("apply", "-", "--root", str(project), stdin=bad)
    assert code == 2 and out == ""
    assert err.startswith(
        "error: the block opened at patch line 2 has no >>>>>>> REPLACE line (patch line 5) — "
    )
    assert "Traceback" not in err
    code, _, err = run("--debug", "apply", "-", "--root", str(project), stdin=bad)
    assert code == 2 and "Traceback" in err


def test_an_escaping_path_is_refused(project: Path) -> None:
    code, _, err = run(
        "apply", "-", "--root", str(project), stdin="--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert code == 2 and "path '../x' contains '..' (patch line 3)" in err


def test_usage_errors(project: Path) -> None:
    assert run("apply", str(project / "missing.diff"), "--root", str(project))[0] == 2
    code, _, err = run("apply", str(FIXTURES / "udiff.diff"), "--root", str(project / "inventory.py"))
    assert code == 2 and "not a directory" in err
    code, _, err = run("apply", "-", "--root", str(project), "--edit-format", "udiff", stdin="hello\n")
    assert code == 2 and "no files in this diff" in err
    code, _, err = run("apply", "-", "--root", str(project), stdin="nothing to see\n")
    assert code == 2 and "cannot tell the edit format" in err
