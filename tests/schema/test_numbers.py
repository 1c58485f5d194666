"""Integer digit-range grammars and number bounds, checked value by value."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gramwright.schema.canonical import number_text
from gramwright.schema.compiler.numbers import NumberSpec, int_range, number_expr
from tests.support.schema import Checker


@pytest.mark.parametrize(("lo", "hi"), [(0, 0), (-15, 7), (1, 1000), (-1000, -10), (95, 105), (0, 99)])
def test_integer_ranges_exhaustively(lo: int, hi: int) -> None:
    check = Checker({"type": "integer", "minimum": lo, "maximum": hi})
    for v in range(lo - 20, hi + 21):
        assert check(v) == (lo <= v <= hi), v
    assert check.status("/minimum") == "exact"


@settings(max_examples=40, deadline=None)
@given(
    lo=st.one_of(st.none(), st.integers(-(10**6), 10**6)),
    span=st.integers(0, 10**7),
    values=st.lists(st.integers(-2 * 10**7, 2 * 10**7), min_size=5, max_size=15),
)
def test_integer_bounds_property(lo: int | None, span: int, values: list[int]) -> None:
    hi = None if lo is None else lo + span
    schema: dict[str, object] = {"type": "integer"}
    if lo is not None:
        schema["exclusiveMinimum"] = lo - 1
    if hi is not None:
        schema["maximum"] = hi
    check = Checker(schema)
    for v in [*values, *(x for x in (lo, hi) if x is not None)]:
        want = (lo is None or v >= lo) and (hi is None or v <= hi)
        assert check(v) == want, (schema, v)


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"type": "number", "minimum": 0}, [0, 0.0, 1e-7, 3.5, 10**20], [-1, -0.5, -1e-9]),
        ({"type": "number", "exclusiveMinimum": 0}, [1e-7, 0.5, 7], [0, -0.0, -3]),
        ({"type": "number", "maximum": 10, "minimum": -2}, [-2, 10, 9.99, 0.001], [10.5, -2.01, 11]),
        ({"type": "number", "exclusiveMaximum": 3}, [2.999, -100], [3, 3.0, 3.5]),
        ({"type": "number", "multipleOf": 0.01}, [1.25, 3, 0.1], [1.255, 1e-05]),
        ({"type": "integer", "multipleOf": 5}, [0, 15, -35, 10**20], [7, 12, -3]),
        ({"type": "integer", "multipleOf": 3, "minimum": 0, "maximum": 30}, [0, 3, 30], [31, 4, -3]),
        ({"type": "number", "multipleOf": 2}, [4, 4.0, -6], [3, 4.5]),
    ],
)
def test_number_keywords(schema: dict[str, object], good: list[float], bad: list[float]) -> None:
    check = Checker(schema)
    for v in good:
        assert check(v), v
    for v in bad:
        assert not check(v), v


def test_non_integer_bounds_are_widened_and_reported() -> None:
    check = Checker({"type": "number", "minimum": 1.5})
    assert check(1.5) and check(2)
    assert check(1.2)  # widened to 1: a superset …
    assert check.status("/minimum") == "approximated"  # … that the report names
    assert not check(0.5)


def test_draft4_exclusive_minimum_boolean() -> None:
    check = Checker(
        {"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 5, "exclusiveMinimum": True}
    )
    assert not check(5)
    assert check(6)


def test_unbounded_multiple_of_three_is_reported() -> None:
    check = Checker({"type": "integer", "multipleOf": 3})
    assert check(9)
    assert check.status("/multipleOf") == "approximated"


def test_int_range_empty() -> None:
    assert int_range(5, 4) is None


def test_number_expr_without_constraints_is_the_shared_rule() -> None:
    res = number_expr(NumberSpec())
    assert res.expr is not None and not res.approximated
    res = number_expr(NumberSpec(lower=(Fraction(3), False), upper=(Fraction(2), False)))
    assert res.expr is None


def test_number_text_matches_canonical_floats() -> None:
    assert number_text(2.5e-07) == "2.5e-07"
    check = Checker({"type": "number", "minimum": 0, "maximum": 1})
    assert check(2.5e-07)
