"""Patches as other tools write them: reproductions from git's t41xx apply tests, aider's parser
tests and chat fixtures, and Codex's apply_patch tests, each run through the real CLI on real
files. Where git is the oracle the same patch goes through real ``git apply`` in a copy of the
tree and both must end alike (or both refuse)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app


def gramwright(root: Path, patch: str, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["apply", "-", "--root", str(root), *extra], input=patch)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def tree(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".gramwright", ".git"):
            continue
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
        elif not any(path.iterdir()):
            out[rel] = "<dir>"
    return out


def make(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def git_apply(root: Path, patch: str) -> int:
    """Real ``git apply`` (outside any repository, core.autocrlf off) in ``root``."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent)}
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "apply", "-"],
        cwd=root,
        input=patch.encode("utf-8"),
        capture_output=True,
        env=env,
        check=False,
    )
    return result.returncode


def agree_with_git(tmp_path: Path, files: dict[str, str], patch: str) -> dict[str, bytes | str]:
    """Apply ``patch`` with git and with gramwright to two copies of ``files``; both trees (and
    whether each applied) must be the same. Returns the tree."""
    ours, theirs = make(tmp_path / "ours", files), make(tmp_path / "git", files)
    git_rc = git_apply(theirs, patch)
    code, out, err = gramwright(ours, patch)
    assert (code == 0) == (git_rc == 0), (git_rc, code, out, err)
    assert tree(ours) == tree(theirs), (out, err)
    assert err.count("\n") <= 1, err
    return tree(ours)


# --- 1. a truncated apply-patch envelope is refused ------------------------------------------


def test_truncated_apply_patch_is_refused_naming_the_last_line(tmp_path: Path) -> None:
    root = make(tmp_path / "p", {"a.txt": "one\ntwo\nthree\n"})
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n-three\n+TWO\n"
    code, _, err = gramwright(root, patch)
    assert code == 2
    assert "no '*** End Patch' line" in err and "'+TWO'" in err and "patch line 7" in err
    assert err.count("\n") == 1
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\n"


# --- 2. a patch that changes nothing is exit 1 -------------------------------------------------


@pytest.mark.parametrize(
    ("files", "patch"),
    [
        ({}, "*** Begin Patch\n*** End Patch\n"),
        ({"x": "a\n"}, "*** Begin Patch\n*** Update File: x\n@@\n a\n*** End Patch\n"),
        ({"x": "a\n"}, "x\n```\n<<<<<<< SEARCH\na\n=======\na\n>>>>>>> REPLACE\n```\n"),
    ],
    ids=["empty-envelope", "context-only-chunk", "replace-equals-search"],
)
def test_a_patch_that_changes_nothing_exits_1(tmp_path: Path, files: dict[str, str], patch: str) -> None:
    root = make(tmp_path / "p", files)
    before = tree(root)
    for extra in ((), ("--fuzzy",), ("--check",)):
        code, out, _ = gramwright(root, patch, *extra)
        assert code == 1, (extra, out)
        assert "changes nothing" in out
    assert tree(root) == before


@pytest.mark.parametrize(
    "patch",
    ["diff --git a/x b/x\ngarbage\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n"],
    ids=["git-header-then-garbage", "context-only-hunk"],
)
def test_a_diff_that_changes_nothing_is_refused_as_git_refuses_it(tmp_path: Path, patch: str) -> None:
    agree_with_git(tmp_path, {"x": "a\n"}, patch)
    code, out, _ = gramwright(tmp_path / "ours", patch)
    assert code == 1 and "changes nothing" in out


def test_a_fuzzy_run_that_ends_up_changing_nothing_exits_1(tmp_path: Path) -> None:
    # the tolerant match puts back exactly the line the file has
    root = make(tmp_path / "p", {"x.py": "value = 1  \n"})
    patch = "x.py\n```\n<<<<<<< SEARCH\nvalue = 1\n=======\nvalue = 1\n>>>>>>> REPLACE\n```\n"
    code, out, _ = gramwright(root, patch, "--fuzzy")
    assert code == 1 and "changes nothing" in out
    assert (root / "x.py").read_text() == "value = 1  \n"


# --- 8. '*** End Patch' with leading whitespace ------------------------------------------------


def test_an_indented_end_patch_marker_ends_the_envelope(tmp_path: Path) -> None:
    root = make(tmp_path / "p", {"x": "a\n"})
    code, _, err = gramwright(root, "*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n  *** End Patch\n")
    assert code == 0, err
    assert (root / "x").read_text() == "b\n"


# --- 3. aider's other fences ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("open_fence", "close_fence"),
    [
        ("<source>python", "</source>"),
        ("<code>", "</code>"),
        ("<pre>", "</pre>"),
        ("<codeblock>python", "</codeblock>"),
        ("<sourcecode>", "</sourcecode>"),
        ("````python", "````"),
    ],
)
@pytest.mark.parametrize("path_inside", [False, True], ids=["path-before", "path-inside"])
def test_aiders_other_fences(tmp_path: Path, open_fence: str, close_fence: str, path_inside: bool) -> None:
    root = make(tmp_path / "p", {"f.py": "x = 1\n"})
    block = "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    if path_inside:
        patch = f"{open_fence}\nf.py\n{block}{close_fence}\n"
    else:
        patch = f"f.py\n{open_fence}\n{block}{close_fence}\n"
    code, out, err = gramwright(root, patch)
    assert code == 0, (out, err)
    assert (root / "f.py").read_text() == "x = 2\n"


# --- 4. 'diff --git' header names against the ---/+++ names ---------------------------------------


@pytest.mark.parametrize(
    ("files", "patch"),
    [
        ({"f.py": "a\n"}, "diff --git a/f.py b/f.py\n--- f.py\n+++ f.py\n@@ -1 +1 @@\n-a\n+b\n"),
        ({"target": "a\n"}, "diff --git a/target b/file\n--- a/target\n+++ b/file\n@@ -1 +1 @@\n-a\n+b\n"),
    ],
    ids=["bare-names", "t4124-target-file"],
)
def test_git_header_with_other_names_on_its_file_lines(
    tmp_path: Path, files: dict[str, str], patch: str
) -> None:
    after = agree_with_git(tmp_path, files, patch)
    assert b"b\n" in after.values()


# --- 5. creation and deletion without /dev/null ----------------------------------------------------

EPOCH = "1970-01-01 00:00:00.000000000 +0000"
STAMP = "2026-12-07 10:00:00.000000000 +0000"


@pytest.mark.parametrize(
    ("files", "patch"),
    [
        ({}, "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n"),
        ({}, "diff --git a/new.txt b/new.txt\n--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n"),
        ({"old.txt": "x\n"}, f"--- a/old.txt\t{STAMP}\n+++ b/old.txt\t{EPOCH}\n@@ -1 +0,0 @@\n-x\n"),
        ({}, f"--- a/new.txt\t{EPOCH}\n+++ b/new.txt\t{STAMP}\n@@ -0,0 +1 @@\n+x\n"),
        ({"e.txt": ""}, f"--- a/e.txt\t{EPOCH}\n+++ b/e.txt\t{STAMP}\n@@ -0,0 +1 @@\n+x\n"),
        ({"e.txt": ""}, "--- /dev/null\n+++ b/e.txt\n@@ -0,0 +1 @@\n+x\n"),
        ({"old.txt": "x\n"}, "--- a/old.txt\n+++ b/old.txt\n@@ -1 +0,0 @@\n-x\n"),
        ({"e.txt": "y\n"}, "--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1 @@\n+x\n"),
    ],
    ids=[
        "create-missing",
        "git-without-new-file-mode",
        "epoch-delete",
        "epoch-create",
        "epoch-create-over-empty",
        "dev-null-create-over-empty",
        "empty-but-kept",
        "no-old-lines-on-a-file",
    ],
)
def test_creation_and_deletion_as_git_reads_them(tmp_path: Path, files: dict[str, str], patch: str) -> None:
    agree_with_git(tmp_path, files, patch)


# --- 10. traditional headers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "patch"),
    [
        ({"f.txt": "a\n"}, f"--- f.txt  {STAMP}\n+++ f.txt  {STAMP}\n@@ -1 +1 @@\n-a\n+b\n"),
        ({"file1": "a\n"}, "--- file1\n+++ file1+\n@@ -1 +1 @@\n-a\n+b\n"),
        ({"x.py": "a\n"}, "--- x.py.orig\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n"),
        ({"f\tg.txt": "a\n"}, f"--- f\tg.txt\t{STAMP}\n+++ f\tg.txt\t{STAMP}\n@@ -1 +1 @@\n-a\n+b\n"),
    ],
    ids=["timestamp-after-spaces", "gnu-shorter-name", "orig-suffix", "tab-inside-a-name"],
)
def test_traditional_headers_name_the_file_as_git_does(
    tmp_path: Path, files: dict[str, str], patch: str
) -> None:
    after = agree_with_git(tmp_path, files, patch)
    assert list(after.values()) == [b"b\n"]


# --- 12. an inconsistent git header ------------------------------------------------------------------


def test_an_inconsistent_git_header_is_refused(tmp_path: Path) -> None:
    patch = "diff --git a/1 b/2\nnew file mode 100644\nrename from 1\nrename to 2\n"
    agree_with_git(tmp_path, {"1": "a\n"}, patch)
    code, _, err = gramwright(tmp_path / "ours", patch)
    assert code == 2 and "inconsistent header lines" in err
