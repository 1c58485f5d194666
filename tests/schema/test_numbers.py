"""Integer digit-range grammars and number bounds, checked value by value."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gramwright.schema.canonical import number_text
from gramwright.schema.compiler.numbers import NumberSpec, int_range, number_expr
from gramwright.schema.errors import UnsatisfiableSchema
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


def test_non_integer_bounds_are_exact() -> None:
    check = Checker({"type": "number", "minimum": 1.5})
    assert check(1.5) and check(2) and check(1.51) and check(10**20)
    assert not check(1.2) and not check(1) and not check(0.5) and not check(1.4999)
    assert check.status("/minimum") == "exact"
    # the case: bounds 0.1-0.3 accepted 0, 0.35 and 1 when widened to the integers
    between = Checker({"type": "number", "minimum": 0.1, "maximum": 0.3})
    assert [v for v in (0, 0.05, 0.1, 0.2, 0.3, 0.35, 1) if between(v)] == [0.1, 0.2, 0.3]
    assert between.text("0.10") and between.text("0.3000") and not between.text("0.30001")
    assert between.status("/minimum") == between.status("/maximum") == "exact"


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"exclusiveMinimum": 0.1, "exclusiveMaximum": 0.3}, [0.11, 0.2999], [0.1, 0.3, 0, 1]),
        ({"minimum": -2.5, "maximum": 3.75}, [-2.5, -2, 0, 3.75, 3.7], [-2.51, 3.76, -3, 4]),
        ({"exclusiveMinimum": -2.5, "exclusiveMaximum": -1.25}, [-2.4, -2, -1.3], [-2.5, -1.25, -1, -3]),
        ({"maximum": -0.001}, [-0.001, -0.0011, -5], [-0.0009, 0, 1e-05, -1e-05]),
        ({"minimum": 0, "exclusiveMaximum": 0.5}, [0, 0.25, 0.4999, 1e-07], [0.5, -1e-07, 1]),
        ({"minimum": 0.25, "maximum": 0.25}, [0.25], [0.2, 0.26, 0, 1]),
        ({"minimum": 0.1, "maximum": 0.9, "multipleOf": 0.01}, [0.1, 0.55, 0.9], [0.555, 0.09, 1]),
        ({"type": "integer", "minimum": 0.5, "exclusiveMaximum": 3.5}, [1, 3], [0, 4]),
    ],
)
def test_fractional_and_exclusive_bounds(
    schema: dict[str, object], good: list[float], bad: list[float]
) -> None:
    check = Checker({"type": "number", **schema})
    for v in good:
        assert check(v), (schema, v)
    for v in bad:
        assert not check(v), (schema, v)
    assert all(e.status == "exact" for e in check.compiled.report if e.keyword != "multipleOf"), schema


def test_a_bound_below_the_exponent_forms_is_reported() -> None:
    # magnitudes below 1e-4 are written 1.5e-05: their exponent forms are not bounded (reported)
    check = Checker({"type": "number", "minimum": 0.00001, "maximum": 1})
    assert check(1e-05) and check(0.5) and not check(1.5) and not check(0)
    assert check.status("/minimum") == "approximated"


_FRACTIONS = st.decimals(min_value=-50, max_value=50, places=3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    lo=st.one_of(st.none(), _FRACTIONS),
    span=st.one_of(st.none(), st.decimals(min_value=0, max_value=20, places=2)),
    lo_ex=st.booleans(),
    hi_ex=st.booleans(),
    values=st.lists(_FRACTIONS, min_size=5, max_size=15),
)
def test_fractional_bounds_property(
    lo: object, span: object, lo_ex: bool, hi_ex: bool, values: list[object]
) -> None:
    from decimal import Decimal

    import jsonschema

    lo_v = None if lo is None else float(lo)  # type: ignore[arg-type]
    hi_v = None if span is None else (lo_v or 0.0) + float(span)  # type: ignore[arg-type]
    schema: dict[str, object] = {"type": "number"}
    if lo_v is not None:
        schema["exclusiveMinimum" if lo_ex else "minimum"] = lo_v
    if hi_v is not None:
        schema["exclusiveMaximum" if hi_ex else "maximum"] = hi_v
    referee = jsonschema.Draft202012Validator(schema)
    probes = [float(v) for v in values]  # type: ignore[arg-type]
    for bound in (lo_v, hi_v):
        if bound is not None:
            probes += [bound, bound + 0.001, bound - 0.001, float(Decimal(repr(bound)).to_integral_value())]
    try:
        check = Checker(schema)
    except UnsatisfiableSchema:  # an empty interval: proved so, and no probe may be valid
        assert not any(referee.is_valid(v) for v in probes), schema
        return
    for v in probes:
        assert check(v) == referee.is_valid(v), (schema, v)
    assert check.status("/minimum") != "approximated" and check.status("/maximum") != "approximated"


def test_random_walks_under_fractional_bounds_write_only_valid_numbers() -> None:
    """Soundness: walks that pick any allowed byte (the mask) end only in numbers that validate
    (exact decimals on both sides: a binary-float validator finds 3.3 no multiple of 0.1, and the
    float 0.3 below the decimal 0.300)."""
    import json
    import random
    from decimal import Decimal

    import jsonschema

    from gramwright.recognizer import Recognizer, compile_grammar
    from tests.support.schema import compiled

    rng = random.Random(52)
    schemas = [
        {"type": "number", "minimum": 0.1, "maximum": 0.3},
        {"type": "number", "exclusiveMinimum": -2.5, "exclusiveMaximum": 3.75},
        {"type": "number", "exclusiveMinimum": 0.25},
        {"type": "number", "maximum": -0.001, "minimum": -7.125},
        {"type": "number", "minimum": 0.5, "maximum": 9.5, "multipleOf": 0.1},
        {"type": "object", "properties": {"p": {"type": "number", "exclusiveMaximum": 0.05, "minimum": 0}}},
    ]
    ended = 0
    for schema in schemas:
        rec = Recognizer(compile_grammar(compiled(schema).grammar))
        referee = jsonschema.Draft202012Validator(json.loads(json.dumps(schema), parse_float=Decimal))
        for _ in range(150):
            rec.reset()
            out = bytearray()
            for _step in range(40):
                if rec.is_accepting() and (rng.random() < 0.25 or not rec.allowed_bytes()):
                    value = json.loads(out.decode(), parse_float=Decimal)
                    assert referee.is_valid(value), (schema, bytes(out))
                    ended += 1
                    break
                allowed = sorted(rec.allowed_bytes())
                assert allowed, (schema, bytes(out))  # no dead end before the document is complete
                byte = rng.choice(allowed)
                rec.feed(bytes([byte]))
                out.append(byte)
    assert ended >= 400  # most walks end, so the assertion above bites


def test_draft4_exclusive_minimum_boolean() -> None:
    check = Checker(
        {"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 5, "exclusiveMinimum": True}
    )
    assert not check(5)
    assert check(6)


def test_unbounded_multiple_of_three_is_exact() -> None:
    check = Checker({"type": "integer", "multipleOf": 3})
    assert check(9) and check(-123456) and check(0) and not check(10) and not check(-7)
    assert check.status("/multipleOf") == "exact"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "multipleOf": 7, "minimum": 0},
        {"type": "integer", "multipleOf": 7, "minimum": -5000, "maximum": 123456},
        {"type": "integer", "multipleOf": 13, "exclusiveMinimum": 100, "maximum": 100000},
        {"type": "integer", "multipleOf": 6, "maximum": -10},
        {"type": "number", "multipleOf": 3, "minimum": 1.5},
        {"type": "integer", "multipleOf": 12, "minimum": 11, "maximum": 10**12},
    ],
)
def test_multiple_of_over_large_ranges_is_exact(schema: dict[str, object]) -> None:
    import random

    import jsonschema

    rng = random.Random(7)
    check = Checker(schema)
    referee = jsonschema.Draft202012Validator(schema)
    k = int(schema["multipleOf"])  # type: ignore[call-overload]
    values = [*range(-150, 150), *(rng.randint(-(10**7), 10**7) for _ in range(300))]
    values += [k * rng.randint(-(10**6), 10**6) for _ in range(300)] + [123452, 123456, 123459, 99996, 10**12]
    for v in values:
        assert check(v) == referee.is_valid(v), (schema, v)
    assert check.status("/multipleOf") == "exact"


def test_multiple_of_past_the_state_limit_reports_its_size() -> None:
    check = Checker({"type": "integer", "multipleOf": 4999, "minimum": 0})
    entry = next(e for e in check.compiled.report if e.pointer == "/multipleOf")
    assert entry.status == "approximated" and "14997 automaton states (limit 4096)" in entry.reason
    assert check(4999 * 3) and check(1)  # a superset: the bound holds, divisibility is left to validation
    assert not check(-4999)


def test_random_walks_under_multiple_of_write_only_multiples() -> None:
    import random

    from gramwright.recognizer import Recognizer, compile_grammar
    from tests.support.schema import compiled

    rng = random.Random(3)
    ended = 0
    for k, lo, hi in ((3, None, None), (7, -5000, 123456), (13, 101, None)):
        schema: dict[str, object] = {"type": "integer", "multipleOf": k}
        if lo is not None:
            schema["minimum"] = lo
        if hi is not None:
            schema["maximum"] = hi
        rec = Recognizer(compile_grammar(compiled(schema).grammar))
        for _ in range(200):
            rec.reset()
            out = bytearray()
            for _step in range(12):
                if rec.is_accepting() and (rng.random() < 0.3 or not rec.allowed_bytes()):
                    v = int(out.decode())
                    assert v % k == 0 and (lo is None or v >= lo) and (hi is None or v <= hi), (schema, v)
                    ended += 1
                    break
                allowed = sorted(rec.allowed_bytes())
                assert allowed, (schema, bytes(out))
                byte = rng.choice(allowed)
                rec.feed(bytes([byte]))
                out.append(byte)
    assert ended >= 300


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
