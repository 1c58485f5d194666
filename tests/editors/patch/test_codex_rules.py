"""Codex's ``apply_patch`` rules that gramwright follows, each from a reproduction in Codex's own
test suite (``../shared/data/peer-patches/codex.jsonl``), run through the real CLI on real files:
an Add File / Move to onto an existing file overwrites it (reported, kept in the backup, undone by
``undo``), a chunk of only ``+`` lines with nothing saying where goes at the end of the file,
Codex's tolerant seek (trailing whitespace, both ends, Unicode punctuation) in its order, an
absolute path inside the root, a heredoc wrapper whose quotes do not match is refused. Also a
udiff mode-only section must name a file that exists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app


def gramwright(root: Path, patch: str, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["apply", "-", "--root", str(root), *extra], input=patch)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def make(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] != ".gramwright"
    }


def undo(root: Path) -> int:
    return CliRunner().invoke(app, ["undo", "--root", str(root)]).exit_code


def envelope(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch")) + "\n"


def test_add_file_over_an_existing_file_overwrites_it_reports_it_and_undo_restores(tmp_path: Path) -> None:
    make(tmp_path, {"duplicate.txt": "old content\n"})
    before = tree(tmp_path)
    code, out, err = gramwright(tmp_path, envelope("*** Add File: duplicate.txt", "+new content"))
    assert (code, err) == (0, "")
    assert (tmp_path / "duplicate.txt").read_text() == "new content\n"
    assert "OVERWRITE duplicate.txt" in out and "overwrote" in out
    assert undo(tmp_path) == 0 and tree(tmp_path) == before


def test_add_file_overwrite_is_in_the_json_report(tmp_path: Path) -> None:
    make(tmp_path, {"d.txt": "old\n"})
    code, out, _ = gramwright(
        tmp_path, envelope("*** Add File: d.txt", "+new"), "--check", "--format", "json"
    )
    report = json.loads(out)
    assert code == 0 and [(f["path"], f["overwrote"]) for f in report["files"]] == [("d.txt", True)]
    assert (tmp_path / "d.txt").read_text() == "old\n"


def test_move_to_an_existing_file_overwrites_it_and_undo_restores_both(tmp_path: Path) -> None:
    make(tmp_path, {"old/name.txt": "from\n", "renamed/dir/name.txt": "existing\n"})
    before = tree(tmp_path)
    patch = envelope(
        "*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-from", "+new"
    )
    code, out, err = gramwright(tmp_path, patch, "--check")
    assert code == 0 and "overwrites renamed/dir/name.txt" in out
    code, diff, err = gramwright(tmp_path, patch, "--dry-run")
    assert code == 0 and "diff --git a/renamed/dir/name.txt b/renamed/dir/name.txt\ndeleted file" in diff
    copy = tmp_path.parent / (tmp_path.name + "-git")
    shutil.copytree(tmp_path, copy)
    subprocess.run(["git", "apply", "-"], cwd=copy, input=diff.encode(), check=True, capture_output=True)
    assert tree(copy) == {"renamed/dir/name.txt": b"new\n"}  # git reads the preview as the same change
    code, out, err = gramwright(tmp_path, patch)
    assert (code, err) == (0, "")
    assert tree(tmp_path) == {"renamed/dir/name.txt": b"new\n"}
    assert undo(tmp_path) == 0 and tree(tmp_path) == before


def test_a_udiff_creation_over_an_existing_file_is_still_refused(tmp_path: Path) -> None:
    make(tmp_path, {"a.txt": "old\n"})
    code, out, _ = gramwright(tmp_path, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+new\n")
    assert code == 1 and "already exists" in out and (tmp_path / "a.txt").read_text() == "old\n"


@pytest.mark.parametrize(
    ("text", "chunks", "result"),
    [
        (
            "line1\nline2\n",
            ["@@", "+added line 1", "+added line 2"],
            "line1\nline2\nadded line 1\nadded line 2\n",
        ),
        ("x = 1", ["@@", "+line"], "x = 1\nline\n"),
        (
            "line1\nline2\nline3\n",
            [
                "@@",
                "+after-context",
                "+second-line",
                "@@",
                " line1",
                "-line2",
                "-line3",
                "+line2-replacement",
            ],
            "line1\nline2-replacement\nafter-context\nsecond-line\n",
        ),
    ],
)
def test_a_chunk_of_only_added_lines_is_appended_with_a_note(
    tmp_path: Path, text: str, chunks: list[str], result: str
) -> None:
    make(tmp_path, {"f.txt": text})
    code, out, err = gramwright(tmp_path, envelope("*** Update File: f.txt", *chunks))
    assert (code, err) == (0, "")
    assert (tmp_path / "f.txt").read_text() == result
    assert "appended at the end of f.txt" in out


def test_an_anchored_chunk_of_only_added_lines_goes_after_its_anchor(tmp_path: Path) -> None:
    make(tmp_path, {"f.py": "def a():\n    pass\n\n\ndef b():\n    pass\n"})
    code, _, _ = gramwright(tmp_path, envelope("*** Update File: f.py", "@@ def a():", "+    x = 1"))
    assert code == 0
    assert (tmp_path / "f.py").read_text() == "def a():\n    x = 1\n    pass\n\n\ndef b():\n    pass\n"


@pytest.mark.parametrize(
    ("text", "old", "level"),
    [
        ("foo   \nbar\t\t\n", ["-foo", "-bar"], "trailing-whitespace"),
        ("    foo   \n   bar\t\n", ["-foo", "-bar"], "trim"),
        (
            "import asyncio  # local import \u2013 avoids top\u2011level dep\n",
            ["-import asyncio  # local import - avoids top-level dep"],
            "trim-unicode",
        ),
    ],
)
def test_codex_tolerant_seek_applies_without_fuzzy_naming_its_level(
    tmp_path: Path, text: str, old: list[str], level: str
) -> None:
    make(tmp_path, {"s.txt": text})
    code, out, err = gramwright(
        tmp_path, envelope("*** Update File: s.txt", "@@", *old, "+X"), "--format", "json"
    )
    report = json.loads(out)
    assert (code, err) == (0, ""), out
    assert (tmp_path / "s.txt").read_text() == "X\n"
    assert [e["tolerance"] for e in report["edits"]] == [level]
    assert any(level in note and "Codex" in note for note in report["notes"])


def test_codex_tolerant_seek_takes_the_earliest_level_and_stays_unique(tmp_path: Path) -> None:
    # the trailing-whitespace level matches line 3 alone; trim would also match line 1
    make(tmp_path, {"s.txt": "  foo\nmid\nfoo  \nend\n"})
    code, _, _ = gramwright(tmp_path, envelope("*** Update File: s.txt", "@@", "-foo", "+X"))
    assert code == 0 and (tmp_path / "s.txt").read_text() == "  foo\nmid\nX\nend\n"
    make(tmp_path, {"t.txt": " foo\n  foo\n"})
    code, out, _ = gramwright(tmp_path, envelope("*** Update File: t.txt", "@@", "-foo", "+X"))
    assert code == 1 and "2 places" in out


def test_a_search_replace_block_still_needs_fuzzy_for_whitespace(tmp_path: Path) -> None:
    make(tmp_path, {"s.txt": "foo   \nbar\n"})
    patch = "s.txt\n<<<<<<< SEARCH\nfoo\n=======\nX\n>>>>>>> REPLACE\n"
    code, out, _ = gramwright(tmp_path, patch)
    assert code == 1 and "tolerant match (trailing-whitespace)" in out and "--fuzzy" in out


@pytest.mark.parametrize("section", ["Add File", "Update File", "Delete File"])
def test_an_absolute_path_inside_the_root_is_read_relative_to_it(tmp_path: Path, section: str) -> None:
    root = make(tmp_path / "root", {"a.txt": "old\n"})
    body = {
        "Add File": [f"*** Add File: {root}/new.txt", "+ab"],
        "Update File": [f"*** Update File: {root}/a.txt", "@@", "-old", "+new"],
        "Delete File": [f"*** Delete File: {root}/a.txt"],
    }[section]
    code, _, err = gramwright(root, envelope(*body))
    assert (code, err) == (0, "")
    want = {"Add File": {"a.txt": b"old\n", "new.txt": b"ab\n"}, "Update File": {"a.txt": b"new\n"}}
    assert tree(root) == want.get(section, {})


def test_an_absolute_path_outside_the_root_is_still_refused(tmp_path: Path) -> None:
    root = make(tmp_path / "root", {})
    code, _, err = gramwright(root, envelope(f"*** Add File: {tmp_path}/outside.txt", "+x"))
    assert code == 2 and "is absolute" in err and not (tmp_path / "outside.txt").exists()


def test_a_heredoc_wrapper_with_mismatched_quotes_is_refused(tmp_path: Path) -> None:
    make(tmp_path, {"file2.py": "import foo\n"})
    patch = "<<\"EOF'\n" + envelope("*** Update File: file2.py", " import foo", "+bar") + "EOF\n"
    code, _, err = gramwright(tmp_path, patch)
    assert code == 2 and "heredoc" in err and err.count("\n") == 1
    assert (tmp_path / "file2.py").read_text() == "import foo\n"
    good = "<<'EOF'\n" + envelope("*** Update File: file2.py", " import foo", "+bar") + "EOF\n"
    assert gramwright(tmp_path, good)[0] == 0


def test_a_mode_only_section_must_name_a_file_that_exists(tmp_path: Path) -> None:
    make(tmp_path, {"here.sh": "echo\n"})
    patch = "diff --git a/{0} b/{0}\nold mode 100644\nnew mode 100755\n"
    code, out, err = gramwright(tmp_path, patch.format("missing.sh"))
    assert code == 1 and "missing.sh" in out and "no such file" in out and err == ""
    assert not (tmp_path / "missing.sh").exists()
    code, out, _ = gramwright(tmp_path, patch.format("here.sh"))
    assert code == 1 and "changes nothing" in out and os.access(tmp_path / "here.sh", os.F_OK)


def test_fuzzy_tries_the_reindenting_levels_before_codex_trim(tmp_path: Path) -> None:
    # uniformly indented 4 more in the file: Codex's trim writes "X" as the patch has it; with
    # --fuzzy the indent level matches first and shifts the new line too
    text = "def f():\n    if a:\n        b()\n"
    patch = envelope("*** Update File: f.py", "@@", " if a:", "-    b()", "+    c()")
    make(tmp_path / "plain", {"f.py": text})
    make(tmp_path / "fuzzy", {"f.py": text})
    assert gramwright(tmp_path / "plain", patch)[0] == 1  # trim: "    c()" under "if a:" breaks Python
    code, out, _ = gramwright(tmp_path / "fuzzy", patch, "--fuzzy")
    assert code == 0 and "tolerant (indent)" in out
    assert (tmp_path / "fuzzy" / "f.py").read_text() == "def f():\n    if a:\n        c()\n"
