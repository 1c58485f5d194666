"""Strings: RFC 8259 escapes, lengths in code points, patterns, formats, excluded words."""

from __future__ import annotations

import pytest

from tests.support.schema import Checker


def test_free_strings_accept_every_escape() -> None:
    check = Checker({"type": "string"})
    for text in ('"\\u00e9"', '"\\u00E9"', '"\\/"', '"\\b\\f\\n\\r\\t"', '"\\ud83d\\ude00"', '"é😀"'):
        assert check.text(text), text
    for text in ('"\\ud83d"', '"\\x"', '"\n"', '"\\u12"', '"a'):
        assert not check.text(text), text


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"minLength": 2, "maxLength": 3}, ["ab", "😀😀", "é\n\\"], ["a", "abcd", "😀"]),
        ({"maxLength": 0}, [""], ["a"]),
    ],
)
def test_lengths_count_code_points(schema: dict[str, object], good: list[str], bad: list[str]) -> None:
    check = Checker({"type": "string", **schema})
    for s in good:
        assert check(s), s
    for s in bad:
        assert not check(s), s


def test_length_counts_escapes_as_one_character() -> None:
    check = Checker({"type": "string", "maxLength": 1})
    assert check.text('"\\u00e9"')
    assert check.text('"\\ud83d\\ude00"')
    assert not check.text('"ab"')


def test_unanchored_pattern_means_contains() -> None:
    check = Checker({"type": "string", "pattern": "a+b"})
    assert check("xxaab")
    assert check("aab-tail")
    assert not check("ba")
    assert check.status("/pattern") == "exact"


def test_anchored_pattern() -> None:
    check = Checker({"pattern": "^[A-Z]{2}-\\d{3}$"})
    assert check("AB-123")
    assert not check("AB-1234")
    assert check(5)  # pattern only applies to strings


def test_pattern_content_is_canonically_escaped() -> None:
    check = Checker({"pattern": '^a"b\\\\c\\n$'})
    assert check('a"b\\c\n')
    assert check.text('"a\\"b\\\\c\\n"')


def test_unsupported_regex_is_reported_not_enforced() -> None:
    check = Checker({"type": "string", "pattern": "^(a)\\1$"})
    assert check("aa") and check("ab")
    assert check.status("/pattern") in ("discarded", "approximated")


def test_format_date() -> None:
    check = Checker({"type": "string", "format": "date"})
    assert check("2024-02-29")
    assert not check("2024-13-01")
    assert not check("yesterday")


def test_format_as_annotation() -> None:
    check = Checker({"type": "string", "format": "date"}, formats="annotate")
    assert check("yesterday")


def test_pattern_with_length_reports_the_length() -> None:
    check = Checker({"type": "string", "pattern": "^a+$", "maxLength": 3})
    assert check("aaa")
    assert check.status("/maxLength") == "approximated"


def test_not_const_excludes_exactly_that_string() -> None:
    check = Checker({"type": "string", "not": {"const": "ab"}})
    assert check("a") and check("abc") and check("") and check("b")
    assert not check("ab")
    assert not check.text('"a\\u0062"')  # an escape cannot spell the excluded word
    assert check.status("/not") == "exact"
