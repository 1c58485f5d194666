"""Parsers (SEARCH/REPLACE, unified diff, apply-patch), the recount pre-pass and format detection."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gramwright.editors import EditFormat, detect_format, parse_patch
from gramwright.editors.patch.model import split_lines
from gramwright.editors.patch.parse_apply_patch import parse_apply_patch
from gramwright.editors.patch.parse_search_replace import parse_search_replace
from gramwright.editors.patch.parse_udiff import parse_udiff
from gramwright.editors.patch.recount import recount_hunks
from gramwright.errors import PatchError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "patches"


def test_split_lines_keeps_terminators_and_only_splits_on_newline() -> None:
    assert split_lines("a\r\nb\rc\nd") == ("a\r\n", "b\rc\n", "d")
    assert "".join(split_lines("x\n\n")) == "x\n\n"
    assert split_lines("") == ()


# --- SEARCH/REPLACE ---------------------------------------------------------------------------


def test_search_replace_path_before_the_fence_and_inside_it() -> None:
    text = (
        "src/a.py\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n\n"
        "```\nsrc/b.py\n<<<<<<< SEARCH>\nx\n=======\n>>>>>>> REPLACE\n```\n"
    )
    patch = parse_search_replace(text)
    assert [(e.path, e.old, e.new, e.patch_line) for e in patch.edits] == [
        ("src/a.py", ("old\n",), ("new\n",), 3),
        ("src/b.py", ("x\n",), (), 12),
    ]
    assert not patch.edits[0].exact_eol


def test_search_replace_reuses_the_previous_path_and_says_so() -> None:
    block = "<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n"
    text = "a.py\n" + block.format(1, 2) + block.format(3, 4)
    patch = parse_search_replace(text)
    assert [e.path for e in patch.edits] == ["a.py", "a.py"]
    assert "patch line 7" in patch.notes[0]


def test_empty_search_creates_a_file() -> None:
    patch = parse_search_replace("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n")
    assert not patch.edits
    assert [(c.path, c.content) for c in patch.creates] == [("new.txt", "hello\n")]


def test_a_second_divider_ends_the_replace_text_as_in_aider() -> None:
    patch = parse_search_replace(
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nb.py\n<<<<<<< SEARCH\nz\n=======\n>>>>>>> REPLACE\n"
    )
    assert [(e.path, e.old, e.new) for e in patch.edits] == [
        ("a.py", ("x\n",), ("y\n",)),
        ("b.py", ("z\n",), ()),
    ]
    assert len(patch.notes) == 1 and "(patch line 6)" in patch.notes[0] and "aider" in patch.notes[0]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("a.py\n<<<<<<< SEARCH\nx\n", 3, "no ======= line"),
        ("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n", 5, "no >>>>>>> REPLACE"),
        ("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", 1, "no file path"),
        ("a.py\n<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\n", 4, "unexpected"),
        ("a.py\n>>>>>>> REPLACE\n", 2, "without a <<<<<<< SEARCH"),
        ("just prose\n", 1, "no SEARCH/REPLACE blocks"),
    ],
)
def test_search_replace_errors_name_the_patch_line(text: str, line: int, says: str) -> None:
    with pytest.raises(PatchError) as info:
        parse_search_replace(text)
    assert info.value.where == f"patch line {line}"
    assert says in info.value.message
    assert info.value.hint


# --- unified diffs ----------------------------------------------------------------------------


def test_git_diff_with_no_newline_marker_and_crlf() -> None:
    text = (
        "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n-c\n"
        "\\ No newline at end of file\n+B\n+c\n"
    )
    (edit,) = parse_udiff(text).edits
    assert edit.path == "f.txt"
    assert edit.old == ("a\r\n", "b\r\n", "c")
    assert edit.new == ("a\r\n", "B\n", "c\n")
    assert (edit.hint_line, edit.at_start, edit.at_end, edit.exact_eol) == (1, True, True, True)
    assert edit.patch_line == 4


def test_creation_deletion_and_gnu_paths() -> None:
    text = (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
        "--- lib/m.py.orig\t2024-01-01 10:00:00\n+++ lib/m.py\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-1\n+2\n"
    )
    patch = parse_udiff(text)
    assert [(c.path, c.content) for c in patch.creates] == [("new.txt", "x\ny\n")]
    assert [(d.path, d.expected) for d in patch.deletes] == [("old.txt", ("gone\n",))]
    assert [e.path for e in patch.edits] == ["lib/m.py"]


def test_real_git_rename_headers(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True)
        return run.stdout

    git("init", "-q")
    (tmp_path / "old.py").write_text("".join(f"line {i}\n" for i in range(20)))
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    git("mv", "old.py", "new.py")
    (tmp_path / "new.py").write_text("".join(f"line {i}\n" for i in range(19)) + "changed\n")
    git("add", ".")
    patch = parse_udiff(git("diff", "--cached", "-M"))
    assert [(r.path, r.new_path) for r in patch.renames] == [("old.py", "new.py")]
    assert [e.path for e in patch.edits] == ["old.py"]


def test_aider_hunks_without_numbers_are_recounted_line_for_line() -> None:
    text = "```diff\n--- a.py\n+++ a.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2\n\n```\n"
    recounted = recount_hunks(text)
    assert recounted.text.splitlines()[3] == "@@ -1,2 +1,2 @@"
    assert len(split_lines(recounted.text)) == len(split_lines(text))
    (edit,) = parse_udiff(text).edits
    assert edit.old == ("def f():\n", "    return 1\n")
    assert (edit.hint_line, edit.at_start, edit.at_end) == (None, False, False)


def test_wrong_counts_are_recounted_and_noted() -> None:
    text = "--- a/x\n+++ b/x\n@@ -3,9 +3,2 @@ def g():\n a\n-b\n+c\n"
    patch = parse_udiff(text)
    assert patch.edits[0].old == ("a\n", "b\n")
    assert patch.edits[0].hint_line == 3
    assert "recounted as -3,2 +3,2" in patch.notes[0]


def test_a_removed_line_that_looks_like_a_file_header_is_kept_when_counts_fit() -> None:
    text = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- comment\n keep\n"
    (edit,) = parse_udiff(text).edits
    assert edit.old == ("-- comment\n", "keep\n")


def test_binary_patches_are_refused_with_the_line() -> None:
    with pytest.raises(PatchError) as info:
        parse_udiff(
            "diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n"
        )
    assert "binary" in info.value.message and info.value.where.startswith("patch line")


# --- apply-patch ------------------------------------------------------------------------------


def test_apply_patch_envelope() -> None:
    text = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n"
        "@@ class A:\n@@     def m(self):\n-        return 1\n+        return 2\n\n"
        "*** Update File: c.py\n x\n+y\n*** End of File\n"
        "*** Add File: n.txt\n+hello\n+\n*** Delete File: gone.txt\n*** End Patch\nEOF\n"
    )
    patch = parse_apply_patch(text)
    first, second = patch.edits
    assert (first.path, first.old, first.new) == (
        "src/a.py",
        ("        return 1\n",),
        ("        return 2\n",),
    )
    assert first.anchor == ("class A:", "def m(self):") and first.in_order
    assert (second.path, second.old, second.new, second.at_end) == ("c.py", ("x\n",), ("x\n", "y\n"), True)
    assert [(r.path, r.new_path) for r in patch.renames] == [("src/a.py", "src/b.py")]
    assert [(c.path, c.content) for c in patch.creates] == [("n.txt", "hello\n\n")]
    assert [d.path for d in patch.deletes] == ["gone.txt"]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("*** Update File: a\n x\n", 1, "no '*** Begin Patch'"),
        ("*** Begin Patch\n*** Frobnicate: a\n", 2, "unexpected line"),
        ("*** Begin Patch\n*** Update File: a\n?x\n", 3, "unexpected line"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch\n", 2, "changes nothing"),
        ("*** Begin Patch\n*** Add File:\n", 2, "without a path"),
    ],
)
def test_apply_patch_errors_name_the_patch_line(text: str, line: int, says: str) -> None:
    with pytest.raises(PatchError) as info:
        parse_apply_patch(text)
    assert info.value.where == f"patch line {line}"
    assert says in info.value.message


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("search-replace.txt", EditFormat.SEARCH_REPLACE),
        ("udiff.diff", EditFormat.UDIFF),
        ("apply-patch.txt", EditFormat.APPLY_PATCH),
        ("failing.txt", EditFormat.SEARCH_REPLACE),
    ],
)
def test_detection_on_the_fixtures(name: str, fmt: EditFormat) -> None:
    text = (FIXTURES / name).read_text()
    found, evidence = detect_format(text)
    assert found is fmt
    assert "patch line" in evidence
    assert parse_patch(text).detected == evidence


def test_the_first_marker_wins_when_formats_are_quoted_inside_each_other() -> None:
    text = "a.md\n<<<<<<< SEARCH\n--- a/x\n+++ b/x\n=======\n>>>>>>> REPLACE\n"
    assert detect_format(text)[0] is EditFormat.SEARCH_REPLACE


def test_undetectable_and_unknown_format() -> None:
    with pytest.raises(PatchError, match="cannot tell the edit format"):
        parse_patch("hello\n")
    with pytest.raises(PatchError, match="unknown edit format"):
        parse_patch("x", "whole")
    assert parse_patch((FIXTURES / "udiff.diff").read_text(), "udiff").detected == "--edit-format udiff"
