"""Whitespace: none by default; flexible is bounded."""

from __future__ import annotations

from tests.support.schema import Checker

SCHEMA = {"type": "object", "properties": {"a": {"type": "array", "items": {"enum": [{"k": 1}]}}}}


def test_compact_has_no_whitespace() -> None:
    check = Checker(SCHEMA)
    assert check.text('{"a":[{"k":1}]}')
    assert not check.text('{"a": [{"k":1}]}')


def test_flexible_allows_bounded_gaps() -> None:
    check = Checker(SCHEMA, whitespace="flexible")
    assert check.text('{\n  "a" : [ {"k": 1} ]\n}')
    assert check.text(' {"a":[]} ')
    assert not check.text('{\n\n"a":[]}')  # at most one newline per gap
    assert not check.text("{" + " " * 21 + '"a":[]}')  # at most 20 blanks
