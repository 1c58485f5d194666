"""type, enum, const: finite values are exact whatever sits beside them."""

from __future__ import annotations

import pytest

from gramwright.grammar.gbnf import emit_gbnf
from gramwright.schema import UnsatisfiableSchema, compile_schema
from tests.support.schema import Checker


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"type": "null"}, [None], [0, False, "", [], {}]),
        ({"type": "boolean"}, [True, False], [None, 0, "true"]),
        ({"type": "integer"}, [0, -7, 10**30, 2.0], [1.5, "1", None]),
        ({"type": "number"}, [0, 1.5, -2e-7, 1e300], ["1", None, True]),
        ({"type": "string"}, ["", "x", 'é\n"\\'], [1, None]),
        ({"type": "array"}, [[], [1, "a", None]], [{}, "[]"]),
        ({"type": "object"}, [{}, {"a": [1]}], [[], "{}"]),
        ({"type": ["string", "null"]}, ["a", None], [1, []]),
        ({}, [None, 1, "a", [], {}], []),
        (True, [None, {"a": 1}], []),
    ],
)
def test_types(schema: object, good: list[object], bad: list[object]) -> None:
    check = Checker(schema)  # type: ignore[arg-type]
    for value in good:
        assert check(value), value
    for value in bad:
        assert not check(value), value


def test_enum_of_any_values() -> None:
    check = Checker({"enum": [1, "a", None, [1, 2], {"k": [True]}]})
    for value in (1, 1.0, "a", None, [1, 2], {"k": [True]}):
        assert check(value)
    for value in (2, "b", [2, 1], {"k": [False]}, False):
        assert not check(value)


def test_const() -> None:
    check = Checker({"const": {"a": 1}})
    assert check({"a": 1})
    assert not check({"a": 2})
    assert check.status("/const") == "exact"


def test_prefix_overlapping_chinese_enum_is_never_mixed() -> None:
    # The production bug: a matcher that mixed the two values into "待客户确认材料".
    check = Checker({"enum": ["待客户确认", "待客户补充材料"]})
    assert check("待客户确认")
    assert check("待客户补充材料")
    for wrong in ("待客户确认材料", "待客户", "待客户补充", "待客户确认确认"):
        assert not check(wrong)
    text = emit_gbnf(check.compiled.grammar)
    assert '"\\"待客户确认\\""' in text


def test_enum_filtered_by_sibling_keywords_exactly() -> None:
    check = Checker({"type": "string", "enum": ["a", "bb", 3], "minLength": 2})
    assert check("bb")
    assert not check("a")
    assert not check(3)
    assert check.status("/minLength") == "exact"


def test_empty_enum_is_a_compile_error() -> None:
    with pytest.raises(UnsatisfiableSchema) as err:
        compile_schema({"enum": []})
    assert err.value.pointer == "/enum"


def test_type_conflict_is_a_compile_error() -> None:
    with pytest.raises(UnsatisfiableSchema):
        compile_schema({"allOf": [{"type": "string"}, {"type": "integer"}]})


def test_draft4_integral_float_is_not_an_integer() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}
    check = Checker(schema)
    assert check.text("12")
    assert not check.text("12.0")
    number = Checker({"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "minimum": 0})
    assert number.text("12.0")
