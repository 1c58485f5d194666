"""gramwright.schema.facts: the one table of drafts and keywords, and the JSON type of a value."""

from __future__ import annotations

import pytest

from gramwright.schema.facts import (
    ALL_KEYWORDS,
    ANNOTATIONS,
    DRAFT_ORDER,
    VALIDATION_VOCABULARY,
    VOCABULARY,
    json_type,
    subschemas,
)


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (0.5, "number"),  # JSON Schema: a number that is not an integer
        (1.0, "integer"),  # a zero fractional part is an integer (draft-06 on)
        (1, "integer"),
        (True, "boolean"),  # not an integer, although Python says so
        (None, "null"),
        ("x", "string"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_json_type_follows_json_schema(value: object, name: str) -> None:
    assert json_type(value) == name


def test_the_linter_and_the_compiler_agree_on_0_5() -> None:
    """The compiler's own split of `number` calls the non-integer half `fraction`; both read the
    one json_type, so `{"const": 0.5}` is a number and never an integer, for both."""
    from gramwright.lint.facts import value_has_type
    from gramwright.schema.compiler.types import collector_type, declared_types

    assert value_has_type(0.5, frozenset({"number"})) and not value_has_type(0.5, frozenset({"integer"}))
    assert collector_type(0.5) == "fraction" and collector_type(1.0) == "integer"
    assert declared_types({"const": 0.5}, 2020) == {"fraction"}
    assert declared_types({"enum": [1.0, "a"]}, 2020) == {"integer", "string"}


def test_drafts_are_written_once_and_shared() -> None:
    from gramwright.lint import dialects
    from gramwright.schema import resolve

    assert dialects.VOCABULARY is VOCABULARY and dialects.ANNOTATIONS is ANNOTATIONS
    assert resolve.VALIDATION_VOCABULARY is VALIDATION_VOCABULARY
    assert DRAFT_ORDER[0] == "draft-03" and DRAFT_ORDER[-1] == "2020-12"
    assert "prefixItems" in VOCABULARY["2020-12"] and "additionalItems" not in VOCABULARY["2020-12"]
    assert "const" in VOCABULARY["draft-06"] and "const" not in VOCABULARY["draft-04"]
    assert "dependencies" in VOCABULARY["draft-07"] and "dependencies" not in VOCABULARY["2019-09"]
    assert VOCABULARY["2019-09"] >= VALIDATION_VOCABULARY and "format" not in VALIDATION_VOCABULARY
    assert "contentSchema" in ANNOTATIONS and ANNOTATIONS <= ALL_KEYWORDS


def test_subschemas_are_applicator_values_only() -> None:
    schema = {
        "properties": {"minimum": {"type": "integer"}, "x": 3},
        "items": [{"type": "string"}],
        "not": True,
        "enum": [{"type": "object"}],
        "default": {"type": "string"},
    }
    found = [(k, n) for k, n, _ in subschemas(schema)]
    assert found == [("properties", "minimum"), ("items", 0), ("not", None)]
