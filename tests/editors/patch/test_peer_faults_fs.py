"""Patches that meet the file system as git's t41xx tests do: a path through a symlink inside the
root, mixed line endings, a file and a directory trading places. Each goes through the real CLI
on real files; where git defines the outcome the same patch goes through real ``git apply`` in a
git repository holding a copy of the tree, and both must end alike (or both refuse)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app
from tests.editors.patch.test_peer_faults import gramwright, make, tree


def git_repo_apply(root: Path, patch: str, *extra: str) -> subprocess.CompletedProcess[bytes]:
    """Real ``git apply`` inside a fresh repository at ``root`` (core.autocrlf off)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root.parent)}
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", "apply", *extra, "-"],
        cwd=root,
        input=patch.encode("utf-8"),
        capture_output=True,
        env=env,
        check=False,
    )


def undo(root: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["undo", "--root", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


# --- 6. a path through a symlink inside the root ---------------------------------------------------


def _arch(root: Path) -> Path:
    """t4122's tree: arch/x86_64/dir is a link to ../i386/dir."""
    make(root, {"arch/i386/dir/other": "old\n"})
    (root / "arch/x86_64").mkdir()
    (root / "arch/x86_64/dir").symlink_to("../i386/dir")
    return root


_THROUGH_LINK = {
    "git-diff-create": (
        "diff --git a/arch/x86_64/dir/file b/arch/x86_64/dir/file\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/arch/x86_64/dir/file\n@@ -0,0 +1 @@\n+x\n"
    ),
    "unified-diff-modify": (
        "--- a/arch/x86_64/dir/other\n+++ b/arch/x86_64/dir/other\n@@ -1 +1 @@\n-old\n+new\n"
    ),
    "unified-diff-delete": "--- a/arch/x86_64/dir/other\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n",
    "apply-patch-add": "*** Begin Patch\n*** Add File: arch/x86_64/dir/file\n+x\n*** End Patch\n",
    "apply-patch-update": (
        "*** Begin Patch\n*** Update File: arch/x86_64/dir/other\n@@\n-old\n+new\n*** End Patch\n"
    ),
    "apply-patch-move-into-link": (
        "*** Begin Patch\n*** Update File: arch/i386/dir/other\n*** Move to: arch/x86_64/dir/moved\n"
        "@@\n-old\n+new\n*** End Patch\n"
    ),
    "search-replace": "arch/x86_64/dir/other\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n",
    "search-replace-create": "arch/x86_64/dir/file\n```\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n```\n",
}


@pytest.mark.parametrize("patch", list(_THROUGH_LINK.values()), ids=list(_THROUGH_LINK))
def test_a_path_through_a_symlink_inside_the_root_is_refused(tmp_path: Path, patch: str) -> None:
    ours = _arch(tmp_path / "ours")
    before = tree(ours)
    if not patch.startswith("***") and "<<<<<<<" not in patch:
        git = git_repo_apply(_arch(tmp_path / "git"), patch)
        assert git.returncode != 0 and b"beyond a symbolic link" in git.stderr, git.stderr
    for extra in ((), ("--check",)):
        code, out, err = gramwright(ours, patch, *extra)
        assert code == 2, (extra, out, err)
        assert "beyond a symbolic link" in err and "arch/x86_64/dir" in err, err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert tree(ours) == before
    assert not (ours / ".gramwright/journal").exists() or not any((ours / ".gramwright/journal").iterdir())


def test_a_patch_naming_a_symlink_itself_is_refused_as_git_refuses_it(tmp_path: Path) -> None:
    patch = "--- a/lnk\n+++ b/lnk\n@@ -1 +1 @@\n-old\n+new\n"
    for root in (tmp_path / "ours", tmp_path / "git"):
        make(root, {"target.txt": "old\n"})
        (root / "lnk").symlink_to("target.txt")
    assert git_repo_apply(tmp_path / "git", patch).returncode != 0
    code, _, err = gramwright(tmp_path / "ours", patch)
    assert code == 2 and "is a symbolic link" in err and err.count("\n") == 1, err
    assert (tmp_path / "ours/target.txt").read_text() == "old\n"


def test_undo_does_not_follow_a_symlink_put_in_since(tmp_path: Path) -> None:
    root = make(tmp_path / "p", {"d/keep": "k\n"})
    code, _, err = gramwright(root, "*** Begin Patch\n*** Add File: d/new\n+x\n*** End Patch\n")
    assert code == 0, err
    shutil.move(root / "d", root / "e")
    (root / "d").symlink_to("e")
    before = tree(root)
    code, out, err = undo(root)
    assert code == 2 and "beyond a symbolic link" in err and err.count("\n") == 1, (out, err)
    assert tree(root) == before


# --- 11. a file and a directory trading places -----------------------------------------------------

_SWAPS = {
    "rename-file-into-dir": (
        {"foo": "x\n"},
        "diff --git a/foo b/foo/baz\nsimilarity index 100%\nrename from foo\nrename to foo/baz\n",
    ),
    "delete-file-create-dir": (
        {"foo": "x\n"},
        "diff --git a/foo b/foo\ndeleted file mode 100644\n--- a/foo\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        "diff --git a/foo/baz b/foo/baz\nnew file mode 100644\n--- /dev/null\n+++ b/foo/baz\n"
        "@@ -0,0 +1 @@\n+x\n",
    ),
    "rename-dir-file-to-file": (
        {"foo/baz": "x\n"},
        "diff --git a/foo/baz b/foo\nsimilarity index 100%\nrename from foo/baz\nrename to foo\n",
    ),
    "delete-dir-file-create-file": (
        {"foo/baz": "x\n"},
        "diff --git a/foo/baz b/foo/baz\ndeleted file mode 100644\n--- a/foo/baz\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-x\ndiff --git a/foo b/foo\nnew file mode 100644\n--- /dev/null\n+++ b/foo\n"
        "@@ -0,0 +1 @@\n+x\n",
    ),
    "create-file-before-deleting-dir-file": (
        {"foo/baz": "x\n"},
        "diff --git a/foo b/foo\nnew file mode 100644\n--- /dev/null\n+++ b/foo\n@@ -0,0 +1 @@\n+y\n"
        "diff --git a/foo/baz b/foo/baz\ndeleted file mode 100644\n--- a/foo/baz\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-x\n",
    ),
    "apply-patch-move-file-into-dir": (
        {"foo": "x\n"},
        "*** Begin Patch\n*** Update File: foo\n*** Move to: foo/baz\n@@\n-x\n+y\n*** End Patch\n",
    ),
    "apply-patch-delete-dir-file-add-file": (
        {"foo/baz": "x\n"},
        "*** Begin Patch\n*** Delete File: foo/baz\n*** Add File: foo\n+y\n*** End Patch\n",
    ),
}


@pytest.mark.parametrize(("files", "patch"), list(_SWAPS.values()), ids=list(_SWAPS))
def test_a_file_and_a_directory_trade_places_as_git_does_and_undo_restores_them(
    tmp_path: Path, files: dict[str, str], patch: str
) -> None:
    ours = make(tmp_path / "ours", files)
    before = tree(ours)
    code, out, err = gramwright(ours, patch, "--check")
    assert code == 0, (out, err)
    assert tree(ours) == before
    code, out, err = gramwright(ours, patch)
    assert code == 0 and "Traceback" not in err, (out, err)
    if not patch.startswith("***"):  # git is the oracle for its own format
        theirs = make(tmp_path / "git", files)
        assert git_repo_apply(theirs, patch).returncode == 0
        assert tree(ours) == tree(theirs)
    else:
        assert tree(ours) != before
    code, out, err = undo(ours)
    assert code == 0, (out, err)
    assert tree(ours) == before


def test_a_file_cannot_replace_a_directory_that_keeps_other_files(tmp_path: Path) -> None:
    patch = "diff --git a/foo/baz b/foo\nsimilarity index 100%\nrename from foo/baz\nrename to foo\n"
    files = {"foo/baz": "x\n", "foo/keep": "k\n"}
    ours, theirs = make(tmp_path / "ours", files), make(tmp_path / "git", files)
    assert git_repo_apply(theirs, patch).returncode != 0
    code, out, err = gramwright(ours, patch)
    assert code in (1, 2) and "foo/keep" in out + err, (out, err)
    assert "Traceback" not in err and err.count("\n") <= 1 and tmp_path.as_posix() not in err
    assert tree(ours) == tree(make(tmp_path / "fresh", files))


def test_a_failed_write_after_a_swap_puts_the_file_back_where_the_directory_was(tmp_path: Path) -> None:
    from gramwright.editors.patch.snapshot import sha256
    from gramwright.editors.patch.transaction import Write, WriteFailed, commit

    root = make(tmp_path / "p", {"foo": "x\n", "bar": "b\n"})
    before = tree(root)
    writes = [
        Write("foo/baz", root / "foo/baz", None, b"x\n"),
        Write("foo", root / "foo", sha256(b"x\n"), None),
        Write("bar/new", root / "bar/new", None, b"n\n"),  # bar is a file: this write fails
    ]
    with pytest.raises(WriteFailed) as info:
        commit(writes, root=root)
    assert "restored" in info.value.message and info.value.stuck == []
    assert tree(root) == before


# --- 7. mixed line endings: kept lines keep their bytes, replaced lines take their ending ---------

_MIXED = "one\r\ntwo\nthree\r\nfour\n"
_ENDINGS = {
    # Codex's own cases (codex-rs/apply-patch tests/suite/tool.rs), as its binary applies them
    "apply-patch-repeated-context": (
        {"f": "same\r\nsame\n"},
        "*** Begin Patch\n*** Update File: f\n@@\n-same\n same\n*** End Patch\n",
        b"same\n",
    ),
    "apply-patch-mixed": (
        {"f": _MIXED},
        "*** Begin Patch\n*** Update File: f\n@@\n one\n two\n-three\n+THREE\n four\n*** End Patch\n",
        b"one\r\ntwo\nTHREE\r\nfour\n",
    ),
    "apply-patch-crlf": (
        {"f": "one\r\ntwo\r\nthree\r\n"},
        "*** Begin Patch\n*** Update File: f\n@@\n-one\n+uno\n@@\n two\n+\n+between\n three\n*** End Patch\n",
        b"uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n",
    ),
    # the same rule for a diff written with LF lines (git refuses these; gramwright's eol match)
    "udiff-lf-repeated-context": (
        {"f": "same\r\nsame\n"},
        "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-same\n same\n",
        b"same\n",
    ),
    "udiff-lf-mixed": (
        {"f": _MIXED},
        "--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n two\n-three\n+THREE\n+3\n four\n",
        b"one\r\ntwo\nTHREE\r\n3\r\nfour\n",
    ),
    "search-replace-mixed": (
        {"f": _MIXED},
        "f\n```\n<<<<<<< SEARCH\nthree\nfour\n=======\nTHREE\nfour\n>>>>>>> REPLACE\n```\n",
        b"one\r\ntwo\nTHREE\r\nfour\n",
    ),
    "apply-patch-insert-takes-the-line-before": (
        {"f": "a\r\nb\nc\nd\n"},
        "*** Begin Patch\n*** Update File: f\n@@\n a\n+x\n b\n*** End Patch\n",
        b"a\r\nx\r\nb\nc\nd\n",
    ),
}


@pytest.mark.parametrize(("files", "patch", "expected"), list(_ENDINGS.values()), ids=list(_ENDINGS))
def test_mixed_line_endings_kept_lines_keep_theirs_replaced_lines_take_theirs(
    tmp_path: Path, files: dict[str, str], patch: str, expected: bytes
) -> None:
    root = make(tmp_path / "p", files)
    code, out, err = gramwright(root, patch)
    assert code == 0, (out, err)
    assert (root / "f").read_bytes() == expected


@pytest.mark.parametrize(
    "patch",
    [
        "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-same\r\n same\n",
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n same\r\n-same\n+SAME\r\n",
    ],
    ids=["remove-the-crlf-line", "replace-the-lf-line-with-crlf"],
)
def test_a_diff_spelling_the_files_own_endings_applies_as_git_applies_it(tmp_path: Path, patch: str) -> None:
    files = {"f": "same\r\nsame\n"}
    ours, theirs = make(tmp_path / "ours", files), make(tmp_path / "git", files)
    assert git_repo_apply(theirs, patch).returncode == 0
    code, out, err = gramwright(ours, patch)
    assert code == 0, (out, err)
    assert tree(ours) == tree(theirs)


@pytest.mark.parametrize("directory", ["foo", "foo/sub"], ids=["empty-dir", "dir-holding-an-empty-dir"])
def test_a_file_takes_the_place_of_an_empty_directory_as_git_does_and_undo_brings_it_back(
    tmp_path: Path, directory: str
) -> None:
    patch = "diff --git a/foo b/foo\nnew file mode 100644\n--- /dev/null\n+++ b/foo\n@@ -0,0 +1 @@\n+x\n"
    ours, theirs = tmp_path / "ours", tmp_path / "git"
    for root in (ours, theirs):
        (root / directory).mkdir(parents=True)
    before = tree(ours)
    applied = git_repo_apply(theirs, patch).returncode == 0
    code, out, err = gramwright(ours, patch)
    assert (code == 0) == applied, (out, err)
    assert tree(ours) == tree(theirs)
    assert "Traceback" not in err and err.count("\n") <= 1
    if applied:
        assert tree(ours) == {"foo": b"x\n"}
        code, out, err = undo(ours)
        assert code == 0, (out, err)
    else:
        assert "foo/sub" in out + err
    assert tree(ours) == before
