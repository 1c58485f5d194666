"""The walker visits every subschema with its JSON Pointer; refs resolve locally and never fetch."""

from __future__ import annotations

from typing import Any

from gramwright.lint.dialects import detect_dialect
from gramwright.lint.refs import RefResolver
from gramwright.lint.walker import build_index
from gramwright.pointer import pointer_tokens


def _pointers(schema: Any, draft: str | None = None) -> list[str]:
    return [n.pointer for n in build_index(schema, declared_draft=draft).nodes]


def test_walks_2020_12_applicators_in_document_order() -> None:
    schema = {
        "properties": {"a/b": {"items": {"type": "string"}}, "c~d": True},
        "prefixItems": [{"const": 1}],
        "$defs": {"x": {"not": {"type": "null"}}},
        "anyOf": [{"if": {}, "then": {}, "else": {}}],
        "additionalProperties": {"propertyNames": {"maxLength": 3}},
        "patternProperties": {"^x": {"contains": {}}},
        "dependentSchemas": {"a": {"unevaluatedProperties": False}},
        "enum": [{"properties": {"not": "a schema"}}],
        "x-ext": {"properties": {"no": {}}},
    }
    assert _pointers(schema) == [
        "",
        "/properties/a~1b",
        "/properties/a~1b/items",
        "/properties/c~0d",
        "/prefixItems/0",
        "/$defs/x",
        "/$defs/x/not",
        "/anyOf/0",
        "/anyOf/0/if",
        "/anyOf/0/then",
        "/anyOf/0/else",
        "/additionalProperties",
        "/additionalProperties/propertyNames",
        "/patternProperties/^x",
        "/patternProperties/^x/contains",
        "/dependentSchemas/a",
        "/dependentSchemas/a/unevaluatedProperties",
    ]


def test_walks_draft_07_forms() -> None:
    schema = {
        "items": [{"type": "string"}],
        "additionalItems": False,
        "definitions": {"d": {}},
        "dependencies": {"a": ["b"], "c": {}},
    }
    assert _pointers(schema, "draft-07") == [
        "",
        "/items/0",
        "/additionalItems",
        "/definitions/d",
        "/dependencies/c",
    ]


def test_pointer_tokens_roundtrip() -> None:
    assert pointer_tokens("/properties/a~1b/c~0d") == ["properties", "a/b", "c~d"]


def test_dialects() -> None:
    assert detect_dialect({"$schema": "http://json-schema.org/draft-07/schema#"}).draft == "draft-07"
    assert detect_dialect({"$schema": "https://json-schema.org/draft/2020-12/schema"}).declared
    assert detect_dialect({}).label() == "2020-12 (assumed)"
    assert detect_dialect({}, draft04_hints=True).draft == "draft-04"


def _resolve(schema: Any, draft: str | None = None) -> dict[str, tuple[str, str]]:
    index = build_index(schema, declared_draft=draft)
    sites = RefResolver(index).resolve_all()
    return {s.node.pointer: (s.kind, s.target.pointer if s.target else s.reason) for s in sites}


def test_local_refs_pointer_anchor_and_embedded_id() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "a b": {"type": "string"},
            "named": {"$anchor": "thing", "type": "integer"},
            "embedded": {"$id": "other.json", "$defs": {"x": {"type": "null"}}},
        },
        "properties": {
            "p1": {"$ref": "#/$defs/a%20b"},
            "p2": {"$ref": "#thing"},
            "p3": {"$ref": "other.json#/$defs/x"},
            "p4": {"$ref": "https://example.com/root.json"},
            "p5": {"$ref": "#/$defs/missing"},
            "p6": {"$ref": "https://elsewhere.example/s.json"},
            "p7": {"$ref": "#/properties/p1"},
        },
    }
    got = _resolve(schema)
    assert got["/properties/p1"] == ("local", "/$defs/a b".replace(" ", " "))
    assert got["/properties/p2"] == ("local", "/$defs/named")
    assert got["/properties/p3"] == ("local", "/$defs/embedded/$defs/x")
    assert got["/properties/p4"] == ("local", "")
    assert got["/properties/p5"][0] == "unresolvable"
    assert got["/properties/p6"][0] == "external"
    assert got["/properties/p7"] == ("local", "/properties/p1")


def test_ref_into_an_unwalked_place_is_walked() -> None:
    schema = {
        "components": {"schemas": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}},
        "$ref": "#/components/schemas/A",
    }
    index = build_index(schema)
    RefResolver(index).resolve_all()
    assert "/components/schemas/A/properties/x" in index.by_pointer


def test_draft_04_id_and_plain_name_fragments() -> None:
    schema = {
        "id": "http://example.com/s.json",
        "definitions": {"a": {"id": "#foo", "type": "string"}},
        "properties": {"x": {"$ref": "#foo"}},
    }
    assert _resolve(schema, "draft-04")["/properties/x"] == ("local", "/definitions/a")
