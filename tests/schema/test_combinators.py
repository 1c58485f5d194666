"""$ref, allOf, anyOf, oneOf, not, if/then/else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.grammar.ir import Ref, walk
from gramwright.schema import CompileOptions, SchemaCompileError, UnsatisfiableSchema, compile_schema
from gramwright.schema.errors import UnsupportedSchema
from tests.support.schema import Checker

TREE = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["value"],
            "additionalProperties": False,
        }
    },
    "$ref": "#/$defs/node",
}


def test_recursion() -> None:
    check = Checker(TREE)
    assert check({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})
    assert not check({"value": 1, "children": [{"children": []}]})


def test_a_referenced_definition_is_one_rule_reused() -> None:
    schema = {
        "$defs": {"money": {"type": "number", "minimum": 0}},
        "properties": {
            "a": {"$ref": "#/$defs/money"},
            "b": {"$ref": "#/$defs/money"},
            "c": {"$ref": "#/$defs/money"},
        },
    }
    cs = compile_schema(schema)
    money = [name for name, ptr in cs.rule_pointers.items() if ptr == "/$defs/money"]
    assert len(money) == 1
    uses = sum(1 for body in cs.grammar.rules.values() for node in walk(body) if node == Ref(money[0]))
    assert (
        uses >= 3
    )  # every property refers to the one rule (optional members appear in several alternatives)


def test_definitions_anchor_and_id() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "a": {"$anchor": "pos", "type": "integer", "minimum": 1},
            "b": {"$id": "b.json", "type": "string"},
        },
        "properties": {"x": {"$ref": "#pos"}, "y": {"$ref": "b.json"}},
    }
    check = Checker(schema)
    assert check({"x": 1, "y": "s"})
    assert not check({"x": 0}) and not check({"y": 1})


def test_remote_ref_from_local_registry(tmp_path: Path) -> None:
    (tmp_path / "int.json").write_text(json.dumps({"type": "integer"}))
    options = CompileOptions(remotes={"http://localhost:1234/": tmp_path})
    cs = compile_schema({"$ref": "http://localhost:1234/int.json"}, options=options)
    assert "integer" in json.dumps(list(cs.grammar.rules))


def test_unresolvable_ref_is_refused_not_fetched() -> None:
    with pytest.raises(SchemaCompileError) as err:
        compile_schema({"$ref": "https://example.invalid/schema.json"})
    assert err.value.keyword == "$ref"


def test_any_of() -> None:
    check = Checker({"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer", "minimum": 10}]})
    assert check("ab") and check(12)
    assert not check("abc") and not check(5)
    assert check.status("/anyOf") == "exact"


def test_one_of_disjoint_is_exact_else_reported() -> None:
    exact = Checker({"oneOf": [{"type": "string"}, {"type": "integer"}]})
    assert exact.status("/oneOf") == "exact"
    tagged = Checker(
        {
            "type": "object",
            "oneOf": [
                {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind"]},
                {"properties": {"kind": {"const": "b"}, "y": {"type": "string"}}, "required": ["kind"]},
            ],
        }
    )
    assert tagged.status("/oneOf") == "exact"
    assert tagged({"kind": "a", "x": 1}) and not tagged({"kind": "a", "x": "s"})
    overlapping = Checker({"oneOf": [{"minimum": 0}, {"maximum": 10}]})
    assert overlapping(5)  # matches both: invalid, but the grammar cannot tell …
    assert overlapping.status("/oneOf") == "approximated"  # … and says so


def test_all_of_merges_objects() -> None:
    check = Checker(
        {
            "allOf": [
                {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"a": {"minimum": 5}, "b": {"type": "string"}}, "additionalProperties": False},
            ]
        }
    )
    assert check({"a": 7, "b": "x"})
    assert not check({"a": 3}) and not check({"a": 7, "c": 1}) and not check({"b": "x"})


def test_any_of_distributes_over_the_rest() -> None:
    check = Checker(
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        }
    )
    assert check({"a": 1}) and check({"b": 1})
    assert not check({}) and not check({"a": "x", "b": 1})


def test_not() -> None:
    check = Checker({"not": {"type": "string"}})
    assert check(1) and check(None) and not check("s")
    assert check.status("/not") == "exact"
    bounded = Checker({"type": "integer", "not": {"minimum": 10}})
    assert bounded(9) and not bounded(10)
    required = Checker({"type": "object", "not": {"required": ["a"]}})
    assert required({"b": 1}) and not required({"a": 1})


def test_not_of_everything_is_unsatisfiable() -> None:
    with pytest.raises(UnsatisfiableSchema):
        compile_schema({"not": {}})


def test_if_then_else() -> None:
    check = Checker({"if": {"type": "integer"}, "then": {"minimum": 10}, "else": {"type": "string"}})
    assert check(12) and check("x")
    assert not check(5) and not check(None)
    assert check.status("/if") == "exact"


def test_if_with_inexpressible_condition_is_reported() -> None:
    check = Checker(
        {
            "if": {"properties": {"a": {"pattern": "^x"}}},
            "then": {"required": ["b"]},
            "else": {"required": ["c"]},
        }
    )
    assert check({"a": "x", "b": 1})
    assert check({"a": "y", "c": 1})
    assert check.status("/if") == "approximated"
    assert check.status("/then") == "approximated"


def test_self_reference_without_progress_is_refused() -> None:
    # a validator following the first branch would recurse forever: no value satisfies it first
    with pytest.raises(UnsupportedSchema, match=r"#/anyOf/0/\$ref -> back to #"):
        compile_schema({"anyOf": [{"$ref": "#"}, {"type": "integer"}]})


def test_infinite_required_recursion_is_unsatisfiable() -> None:
    schema = {
        "$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "required": ["x"]}},
        "$ref": "#/$defs/a",
    }
    with pytest.raises(UnsatisfiableSchema):
        compile_schema(schema)


def test_discriminator_if_chains_are_decided_not_multiplied() -> None:
    # allOf of if/then on one discriminator: 2^n branch combinations, n+1 of them satisfiable.
    n = 30
    schema = {
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "required": ["kind"],
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": f"k{i}"}}, "required": ["kind"]},
                "then": {"properties": {"v": {"type": "integer", "minimum": i}}},
            }
            for i in range(n)
        ],
    }
    check = Checker(schema)
    assert check.compiled.report.exact
    assert check({"kind": "k7", "v": 7})
    assert not check({"kind": "k7", "v": 6})
    assert check({"kind": "other", "v": -5})
    assert len(check.compiled.grammar.rules) < 10 * n


def test_too_many_combinations_are_dropped_and_reported() -> None:
    schema = {"allOf": [{"anyOf": [{"minimum": i}, {"maximum": -i}]} for i in range(12)]}
    cs = compile_schema(schema, options=CompileOptions(max_alternatives=64))
    assert any(e.status == "approximated" and e.keyword == "anyOf" for e in cs.report)
