"""Reference cycles: a recursive type compiles, a cycle that consumes no input is refused in one
line naming its keyword locations, whichever applicators close it."""

from __future__ import annotations

import pytest

from gramwright.schema import compile_schema
from gramwright.schema.compiler.cycles import NoProgressCycle, find_no_progress_cycle
from gramwright.schema.resolve import SchemaRegistry

NO_PROGRESS = [
    ({"$ref": "#"}, ["/$ref"], ""),
    ({"allOf": [{"$ref": "#"}]}, ["/allOf/0", "/allOf/0/$ref"], ""),
    ({"anyOf": [{"type": "null"}, {"$ref": "#"}]}, ["/anyOf/1", "/anyOf/1/$ref"], ""),
    ({"oneOf": [{"$ref": "#"}, {"type": "string"}]}, ["/oneOf/0", "/oneOf/0/$ref"], ""),
    ({"not": {"$ref": "#"}}, ["/not", "/not/$ref"], ""),
    ({"if": {"$ref": "#"}, "then": {"type": "string"}}, ["/if", "/if/$ref"], ""),
    (
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"},
        ["/$defs/a/$ref", "/$defs/b/allOf/0", "/$defs/b/allOf/0/$ref"],
        "/$defs/a",
    ),
    # deeper down, behind a property: the property's schema is the one that loops
    ({"properties": {"x": {"$ref": "#/properties/x"}}}, ["/properties/x/$ref"], "/properties/x"),
    ({"dependentSchemas": {"k": {"$ref": "#"}}}, ["/dependentSchemas/k", "/dependentSchemas/k/$ref"], ""),
    (
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"$ref": "#/definitions/a"}},
            "items": {"$ref": "#/definitions/a"},
        },
        ["/definitions/a/$ref"],
        "/definitions/a",
    ),
    ({"$anchor": "top", "anyOf": [{"$ref": "#top"}]}, ["/anyOf/0", "/anyOf/0/$ref"], ""),
]

RECURSIVE = [
    {"type": "object", "properties": {"next": {"$ref": "#"}}},
    {"type": "array", "items": {"$ref": "#"}},
    {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
    {"$defs": {"t": {"type": "object", "additionalProperties": {"$ref": "#/$defs/t"}}}, "$ref": "#/$defs/t"},
    {"type": "object", "propertyNames": {"$ref": "#/$defs/n"}, "$defs": {"n": {"maxLength": 3}}},
    # a definition that loops but is never referenced is never applied
    {"$defs": {"loop": {"$ref": "#/$defs/loop"}}, "type": "integer"},
    # draft-07: the siblings of a $ref are ignored, so their loop is never entered
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": "#/definitions/i",
        "allOf": [{"$ref": "#"}],
        "definitions": {"i": {"type": "integer"}},
    },
]


@pytest.mark.parametrize(("schema", "pointers", "start"), NO_PROGRESS)
def test_a_cycle_without_progress_is_refused_naming_its_keywords(
    schema: dict[str, object], pointers: list[str], start: str
) -> None:
    assert find_no_progress_cycle(SchemaRegistry(schema)) == (pointers, start)
    with pytest.raises(NoProgressCycle) as info:
        compile_schema(schema)
    line = info.value.one_line()
    assert "\n" not in line
    assert " -> ".join(f"#{p}" for p in pointers) + f" -> back to #{start}" in line


@pytest.mark.parametrize("schema", RECURSIVE)
def test_a_recursive_type_still_compiles(schema: dict[str, object]) -> None:
    assert find_no_progress_cycle(SchemaRegistry(schema)) is None
    assert compile_schema(schema).grammar.rules


def test_a_long_chain_is_walked_without_recursion() -> None:
    n = 5000
    defs: dict[str, object] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(n)}
    defs[f"d{n}"] = {"allOf": [{"$ref": "#/$defs/d0"}]}
    cycle = find_no_progress_cycle(SchemaRegistry({"$defs": defs, "$ref": "#/$defs/d0"}))
    assert cycle is not None and len(cycle[0]) == n + 2
