"""Objects: member order, optional members, additional/pattern properties, names, counts."""

from __future__ import annotations

import pytest

from gramwright.schema import UnsatisfiableSchema, compile_schema
from tests.support.schema import Checker

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "tags": {"type": "array"}},
    "required": ["name"],
}


def test_members_in_schema_order_optional_skippable() -> None:
    check = Checker(PERSON)
    assert check.text('{"name":"a"}')
    assert check.text('{"name":"a","tags":[]}')
    assert check.text('{"name":"a","age":3,"tags":[]}')
    assert not check.text('{"age":3,"name":"a"}')  # schema order is the grammar's order
    assert not check.text('{"age":3}')  # required
    assert not check.text('{"name":"a","age":"3"}')


def test_required_first_order() -> None:
    check = Checker(PERSON, property_order="required-first")
    schema = {**PERSON, "required": ["tags"]}
    check = Checker(schema, property_order="required-first")
    assert check.text('{"tags":[],"name":"a"}')
    assert not check.text('{"name":"a","tags":[]}')


def test_additional_properties_absent_allows_others_but_not_declared_names() -> None:
    check = Checker(PERSON)
    assert check({"name": "a", "other": {"x": 1}})
    # a declared name cannot come back as an "other" member with the wrong value
    assert not check.text('{"name":"a","age":"x"}')
    assert not check.text('{"name":"a","name":"b","age":"x"}')
    assert not check.text('{"name":"a","ag\\u0065":"x"}')


def test_a_free_key_leaves_a_declared_name_on_any_other_character() -> None:
    """Where a free key leaves a declared name, any character but the name's next one follows:
    ASCII (DEL included), a character past ASCII of any UTF-8 length (the shared ``wide-char``
    rule) or an escape that cannot spell the next character; then anything."""
    check = Checker(PERSON)
    keys = ["nb", "n\x7f", "n\u00e9", "na\u4e2d", "a\U0001f600", 'n\\"', "n\\n", "agf", "a", "nam"]
    for key in keys:
        assert check.text('{"name":"a","' + key + '":1}'), key
    for key in ["name", "age", "n\\u0061me", "\\u006eame"]:
        assert not check.text('{"name":"a","' + key + '":"x"}'), key


def test_additional_properties_false_and_schema() -> None:
    closed = Checker({**PERSON, "additionalProperties": False})
    assert not closed({"name": "a", "x": 1})
    typed = Checker({**PERSON, "additionalProperties": {"type": "integer"}})
    assert typed({"name": "a", "x": 1})
    assert not typed({"name": "a", "x": "1"})


def test_close_objects_option() -> None:
    check = Checker(PERSON, close_objects=True)
    assert not check({"name": "a", "x": 1})
    assert check({"name": "a"})


def test_pattern_properties_with_additional_false_is_exact() -> None:
    check = Checker({"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False})
    assert check({"x-a": 1, "x-b": 2})
    assert not check({"x-a": "1"})
    assert not check({"y": 1})
    assert check.status("/patternProperties") == "exact"
    assert check.compiled.report.exact


def test_pattern_properties_open_is_reported() -> None:
    check = Checker({"patternProperties": {"^x-": {"type": "integer"}}})
    assert check({"x-a": 1, "y": "z"})
    assert check.status("/patternProperties/^x-") == "approximated"


def test_property_names() -> None:
    check = Checker({"type": "object", "propertyNames": {"maxLength": 3}})
    assert check({"abc": 1})
    assert not check({"abcd": 1})
    enum_names = Checker({"propertyNames": {"enum": ["a", "b"]}, "additionalProperties": {"type": "integer"}})
    assert enum_names({"a": 1, "b": 2})
    assert not enum_names({"c": 1})


def test_min_max_properties_exact_cases() -> None:
    check = Checker({"type": "object", "minProperties": 1, "maxProperties": 2})
    assert check({"a": 1}) and check({"a": 1, "b": 2})
    assert not check({}) and not check({"a": 1, "b": 2, "c": 3})
    assert check.status("/maxProperties") == "exact"


def test_dependent_required() -> None:
    check = Checker({"dependentRequired": {"a": ["b"]}})
    assert check({"b": 1}) and check({"a": 1, "b": 2}) and check({}) and check(3)
    assert not check({"a": 1})


def test_dependent_schemas() -> None:
    check = Checker({"dependentSchemas": {"a": {"required": ["b"]}}})
    assert check({"a": 1, "b": 1}) and check({"c": 1})
    assert not check({"a": 1})


def test_required_property_that_false_forbids_is_a_compile_error() -> None:
    with pytest.raises(UnsatisfiableSchema) as err:
        compile_schema({"type": "object", "properties": {"a": False}, "required": ["a"]})
    assert "a" in err.value.reason


def test_optional_false_property_is_forbidden() -> None:
    check = Checker({"properties": {"a": False}})
    assert check({"b": 1})
    assert not check({"a": 1})


def test_many_optional_properties_stay_linear() -> None:
    props = {f"p{i}": {"type": "integer"} for i in range(40)}
    check = Checker({"type": "object", "properties": props, "additionalProperties": False})
    assert check({"p3": 1, "p39": 2})
    assert check({})
    assert not check({"p3": "x"})


_COUNTED = [
    {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "minProperties": 2},
    {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "maxProperties": 1},
    {"properties": {"a": {}, "b": {}, "c": {}}, "required": ["b"], "minProperties": 2, "maxProperties": 2},
    {"properties": {"a": {}, "b": {}}, "additionalProperties": False, "minProperties": 1},
    {
        "properties": {"a": {}, "b": {}},
        "additionalProperties": {"type": "integer"},
        "minProperties": 3,
        "maxProperties": 4,
    },
    {"properties": {"a": {"type": "string"}, "b": {}}, "minProperties": 1, "maxProperties": 3},
]


@pytest.mark.parametrize("schema", _COUNTED)
def test_min_max_properties_with_optional_members_are_counted_exactly(schema: dict[str, object]) -> None:
    import itertools

    import jsonschema

    check = Checker(schema)
    referee = jsonschema.Draft202012Validator(schema)
    for r in range(6):
        for names in itertools.combinations(["a", "b", "c", "x", "y"], r):
            for value in (1, "s"):
                instance = {k: value for k in names}
                assert check(instance) == referee.is_valid(instance), (schema, instance)
    assert all(e.status == "exact" for e in check.compiled.report), check.compiled.report


def test_a_count_past_the_state_limit_is_reported_with_its_size() -> None:
    from gramwright.schema.compiler.counts import MAX_STATES

    names = {f"p{i}": {} for i in range(40)}
    check = Checker({"type": "object", "properties": names, "minProperties": 3, "maxProperties": 200})
    entry = next(e for e in check.compiled.report if e.pointer == "/maxProperties")
    assert entry.status == "approximated" and f"limit {MAX_STATES}" in entry.reason
    assert "8241 count states" in entry.reason  # (40 + 1) * (200 + 1)


def test_random_walks_under_counted_properties_write_only_valid_objects() -> None:
    """Soundness: byte walks over the masks end only in objects the validator accepts."""
    import json
    import random

    import jsonschema

    from gramwright.recognizer import Recognizer, compile_grammar

    rng = random.Random(52)
    ended = 0
    for schema in _COUNTED:
        rec = Recognizer(compile_grammar(Checker(schema).compiled.grammar))
        referee = jsonschema.Draft202012Validator(schema)
        for _ in range(80):
            rec.reset()
            out = bytearray()
            for _step in range(120):
                if rec.is_accepting():
                    value = json.loads(out.decode())
                    assert referee.is_valid(value), (schema, bytes(out))
                    ended += 1
                    break
                allowed = sorted(rec.allowed_bytes())
                assert allowed, (schema, bytes(out))
                # prefer closing and short texts so that walks end
                byte = ord("}") if ord("}") in allowed and rng.random() < 0.5 else rng.choice(allowed)
                rec.feed(bytes([byte]))
                out.append(byte)
    assert ended >= 200
