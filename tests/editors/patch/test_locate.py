"""Locate: exact and unique, header hints, tolerant levels by name, overlaps, "did you mean"."""

from __future__ import annotations

import pytest

from gramwright.editors import Edit, locate
from gramwright.editors.patch.check import _mark_overlaps
from gramwright.editors.patch.match import find_matches
from gramwright.editors.patch.model import split_lines
from gramwright.editors.patch.nearest import nearest_lines

FILE = split_lines("def a():\n    return 1\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 2\n")


def edit(old: str, new: str = "", **kw: object) -> Edit:
    return Edit("f.py", split_lines(old), split_lines(new), 7, **kw)  # type: ignore[arg-type]


def test_a_unique_exact_match() -> None:
    loc = locate(edit("def c():\n    return 2\n", "def c():\n    return 3\n"), FILE)
    assert loc.status == "exact" and loc.match is not None
    assert (loc.match.start, loc.match.end) == (8, 10)


def test_several_matches_are_an_error_listing_every_candidate() -> None:
    loc = locate(edit("    return 1\n"), FILE)
    assert loc.status == "failed" and loc.reason == "ambiguous"
    assert loc.candidates == (2, 6)
    assert "lines 2, 6" in loc.message


def test_a_diff_header_chooses_the_nearest_candidate_and_reports_the_offset() -> None:
    loc = locate(edit("    return 1\n", hint_line=5, exact_eol=True), FILE)
    assert loc.match is not None and loc.match.start == 5 and loc.offset == 1
    # git apply's order: the line itself, then one after before one before
    tie = split_lines("x\ny\nx\n")
    assert locate(edit("x\n", hint_line=2, exact_eol=True), tie).match.start == 2  # type: ignore[union-attr]


def test_git_anchor_rules_for_hunks_at_line_one_and_without_trailing_context() -> None:
    shifted = ("new first line\n", *FILE)
    loc = locate(edit("def a():\n", hint_line=1, at_start=True, exact_eol=True), shifted)
    assert loc.status == "failed" and loc.reason == "position" and "line 1 must match there" in loc.message
    loc = locate(edit("    return 2\n", hint_line=10, at_end=True, exact_eol=True), (*FILE, "more\n"))
    assert loc.status == "failed" and "must end the file" in loc.message


@pytest.mark.parametrize(
    ("file_text", "old", "new", "tolerance", "result"),
    [
        ("x = 1  \ny = 2\n", "x = 1\ny = 2\n", "x = 1\ny = 3\n", "trailing-whitespace", "x = 1  \ny = 3\n"),
        ("a\r\nb\r\n", "a\nb\n", "a\nc\n", "crlf", "a\r\nc\r\n"),
        (
            "class K:\n    def f(self):\n        return 1\n",
            "def f(self):\n    return 1\n",
            "def f(self):\n    return 2\n",
            "indent",
            "class K:\n    def f(self):\n        return 2\n",
        ),
        ("s = “quoted” — x\n", 's = "quoted" - x\n', 's = "plain"\n', "unicode", 's = "plain"\n'),
    ],
)
def test_tolerant_levels_need_fuzzy_and_are_reported_by_name(
    file_text: str, old: str, new: str, tolerance: str, result: str
) -> None:
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.editors.patch.splice import splice

    lines = split_lines(file_text)
    strict = locate(edit(old, new), lines)
    assert strict.status == "failed" and strict.reason == "tolerant-only"
    assert f"({tolerance})" in strict.message and "--fuzzy" in strict.hint
    loose = locate(edit(old, new), lines, fuzzy=True)
    assert loose.status == "tolerant" and loose.match is not None and loose.match.tolerance == tolerance
    assert splice(decode_file("f", file_text.encode()), [loose]) == result


def test_tolerant_matches_must_be_unique_too() -> None:
    lines = split_lines("a  \nb\na \nb\n")
    loc = locate(edit("a\nb\n"), lines, fuzzy=True)
    assert loc.status == "failed" and loc.candidates == (1, 3)


def test_levels_are_tried_in_order_exact_first() -> None:
    lines = split_lines("a\n  a\n")
    assert [m.start for m in find_matches(lines, ("a\n",), 0, exact_eol=False)] == [0]
    assert locate(edit("a\n"), lines, fuzzy=True).status == "exact"


def test_search_replace_text_matches_a_last_line_without_newline_but_a_diff_does_not() -> None:
    lines = split_lines("a\nb")
    assert locate(edit("b\n"), lines).status == "exact"
    loc = locate(edit("b\n", exact_eol=True), lines)
    assert loc.status == "failed" and loc.reason == "tolerant-only"


def test_a_no_newline_marker_before_more_lines_is_refused() -> None:
    loc = locate(edit("a\nb", exact_eol=True, hint_line=1), split_lines("a\nb\nc\n"))
    assert loc.status == "failed" and loc.reason == "eof-marker"
    assert "goes on after it" in loc.message


def test_apply_patch_anchors_and_file_order() -> None:
    anchored = edit("    return 1\n", anchor=("def b():",), in_order=True)
    loc = locate(anchored, FILE)
    assert loc.match is not None and loc.match.start == 5
    missing = locate(edit("    return 1\n", anchor=("def z():",)), FILE)
    assert missing.reason == "anchor" and "'def z():'" in missing.message
    behind = locate(edit("def a():\n", in_order=True), FILE, cursor=4)
    assert behind.status == "failed" and "file order" in behind.hint
    insert = locate(edit("", "x\n", anchor=("def c():",)), FILE)
    assert insert.match is not None and (insert.match.start, insert.match.end) == (9, 9)
    assert locate(edit("", "x\n"), FILE).reason == "no-place"


def test_overlapping_edits_both_fail_naming_each_other() -> None:
    one = locate(edit("def a():\n    return 1\n"), FILE)
    two = locate(edit("    return 1\n\n\ndef b():\n"), FILE)
    marked = _mark_overlaps([(1, one), (2, two)])
    assert all(loc.status == "failed" and loc.reason == "overlap" for _, loc in marked)
    assert "edit 2 (patch line 7)" in marked[0][1].message and "edit 1" in marked[1][1].message
    apart = locate(edit("def c():\n"), FILE)
    assert all(loc.match for _, loc in _mark_overlaps([(1, one), (3, apart)]))


def test_did_you_mean_marks_the_differing_lines() -> None:
    lines = split_lines(
        "".join(f"line {i}\n" for i in range(1, 60)) + "def f(x):\n    return x+1\n    # end\n"
    )
    loc = locate(edit("def f(x):\n    return x + 1\n    # end\n"), lines)
    assert loc.reason == "not-found" and loc.nearest is not None
    near = loc.nearest
    assert (near.start_line, near.end_line) == (60, 62)
    assert [ln.differs for ln in near.lines] == [False, True, False]
    assert near.unmatched == ("    return x + 1",)
    assert "! 61 |     return x+1" in near.render()


def test_no_nearest_lines_when_nothing_resembles_the_old_text() -> None:
    assert nearest_lines(split_lines("aaaa\nbbbb\n"), ("zzzzzzzzzzzz qqqq\n",)) is None


def test_already_applied_edits_are_recognised() -> None:
    loc = locate(edit("def c():\n    return 9\n", "def c():\n    return 2\n"), FILE)
    assert "already there at line 9" in loc.message
