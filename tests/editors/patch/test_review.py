"""Per-edit review on real files: accept/reject, new text re-checked, stale files refused, export."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gramwright.editors import parse_patch, undo
from gramwright.editors.patch.review import (
    StaleFiles,
    apply_review,
    edit_diff,
    export_accepted,
    open_review,
    recheck,
    replace_edit,
    set_accepted,
    set_new_text,
    stale_files,
)
from gramwright.errors import PatchError


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("def a():\n    return 1\n\n\nX = 1\n", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (tmp_path / "c.md").write_text("# Title\n\nsome text\nmore text\n", encoding="utf-8")
    return tmp_path


# edit 2 misremembers a line of b.txt: it fails, with the nearest lines
PATCH = (
    sr("a.py", "    return 1\n", "    return 2\n")
    + sr("b.txt", "alpha\nbeta\ngamma\ndelta\n", "ALPHA\n")
    + sr("c.md", "some text\n", "other text\n")
)


def test_failed_edit_starts_rejected_with_its_nearest_lines(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    assert [c.status for c in review.report.edits] == ["exact", "failed", "exact"]
    assert review.accepted == {1, 3}
    nearest = review.check(2).location.nearest
    assert nearest is not None and (nearest.start_line, nearest.end_line) == (1, 3)
    assert nearest.unmatched == ("delta",)
    assert edit_diff(review, 2) == ()


def test_edit_diff_has_context_and_line_numbers(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    rows = [(d.mark, d.number, d.text) for d in edit_diff(review, 3, context=1)]
    assert rows == [(" ", 2, ""), ("-", 3, "some text"), ("+", None, "other text"), (" ", 4, "more text")]


def test_apply_the_accepted_set_with_edited_text_then_undo_is_byte_identical(project: Path) -> None:
    before = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}
    review = open_review(parse_patch(PATCH), project)
    review = set_new_text(review, 3, "edited text")  # the text box dropped the final newline
    assert review.new_text[3] == ("edited text\n",)
    assert review.check(3).status == "exact"
    assert review.files_to_write() == ("a.py", "c.md")
    result = apply_review(review)
    assert result.applied and result.entry_id
    assert (project / "a.py").read_bytes() == b"def a():\n    return 2\n\n\nX = 1\n"
    assert (project / "c.md").read_bytes() == b"# Title\n\nedited text\nmore text\n"
    assert (project / "b.txt").read_bytes() == before["b.txt"]
    undo(project, result.entry_id)
    assert {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()} == before


def test_rejected_edit_is_not_applied(project: Path) -> None:
    review = set_accepted(open_review(parse_patch(PATCH), project), 1, False)
    assert review.files_to_write() == ("c.md",)
    apply_review(review)
    assert (project / "a.py").read_text(encoding="utf-8").count("return 1") == 1
    with pytest.raises(PatchError, match="no edit 9"):
        set_accepted(review, 9, True)


def test_new_text_that_breaks_the_syntax_is_reported_at_once(project: Path) -> None:
    review = set_new_text(open_review(parse_patch(PATCH), project), 1, "    return (\n")
    assert not review.check_accepted().ok
    assert any(p.reason == "syntax" for p in review.check_accepted().problems)


def test_a_file_changed_during_review_is_named_and_never_overwritten(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    (project / "c.md").write_text("# Title\n\nsome text\nmore text\nadded by someone\n", encoding="utf-8")
    assert [(s.path, s.state) for s in stale_files(review)] == [("c.md", "changed")]
    with pytest.raises(StaleFiles, match=r"c\.md \(changed\)") as caught:
        apply_review(review)
    assert [s.path for s in caught.value.stale] == ["c.md"]
    assert (project / "a.py").read_text(encoding="utf-8").count("return 1") == 1  # nothing written
    assert (project / "c.md").read_text(encoding="utf-8").endswith("added by someone\n")
    fresh = recheck(review)
    assert stale_files(fresh) == ()
    assert fresh.check(3).status == "exact"
    apply_review(fresh)
    assert (project / "c.md").read_text(encoding="utf-8") == (
        "# Title\n\nother text\nmore text\nadded by someone\n"
    )


def test_removed_file_is_stale(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    (project / "a.py").unlink()
    assert [(s.path, s.state) for s in stale_files(review)] == [("a.py", "removed")]


def test_export_is_a_diff_git_applies(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    diff = export_accepted(review)
    assert "a/b.txt" not in diff and "+other text" in diff
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "x.patch").write_text(diff, encoding="utf-8")
    subprocess.run(["git", "apply", "x.patch"], cwd=project, check=True)
    assert "other text" in (project / "c.md").read_text(encoding="utf-8")
    with pytest.raises(PatchError, match="does not apply"):
        export_accepted(set_accepted(review, 2, True))


def test_project_files_respect_gitignore(tmp_path: Path) -> None:
    from gramwright.editors.patch.project import project_files

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("y = 2\n", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.txt").write_text("h\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("n\n", encoding="utf-8")
    # no repository: hidden folders skipped, the rest listed
    assert project_files(tmp_path) == ("build/out.py", "notes.md", "src/app.py")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    subprocess.run(["git", "add", "src/app.py"], cwd=tmp_path, check=True)
    # in a repository git decides: ignored folders out, untracked but not ignored ones in
    assert project_files(tmp_path) == (".gitignore", ".hidden/h.txt", "notes.md", "src/app.py")
    assert project_files(tmp_path / "src") == ("app.py",)


def test_replace_edit_takes_the_regenerated_edit_of_that_file(project: Path) -> None:
    review = open_review(parse_patch(PATCH), project)
    regenerated = parse_patch(
        sr("c.md", "# Title\n", "# Heading\n")
        + sr("c.md", "more text\n", "MORE text\n")
        + sr("b.txt", "beta\n", "BETA\n")
    ).edits
    # edit 2 (b.txt, failed): the regenerated b.txt edit replaces it, applies, and is accepted
    fixed = replace_edit(review, 2, regenerated)
    assert fixed.edit(2).old == ("beta\n",) and fixed.check(2).status == "exact"
    assert fixed.accepted == {1, 2, 3}
    # edit 3 (c.md, "some text"): of two c.md edits, the one whose old text is most like it
    third = replace_edit(set_new_text(review, 3, "x\n"), 3, regenerated)
    assert third.edit(3).old == ("more text\n",) and 3 not in third.new_text
    with pytest.raises(PatchError, match=r"no edit of a\.py"):
        replace_edit(review, 1, regenerated)
