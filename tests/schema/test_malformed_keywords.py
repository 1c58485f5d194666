"""Malformed keyword values: every keyword the compiler reads, given every wrong JSON type.

A schema whose keyword has a value of the wrong type is invalid. The compiler either refuses it
with one line that names the keyword and its pointer (a ``SchemaCompileError``) or compiles it —
never crashes with a Python exception (``KeyError: 0`` from ``prefixItems: {...}`` was one).
The slice runs each keyword alone, under the type it applies to, and nested one level down, in
2020-12 and draft-07 (where ``items`` has its tuple form).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.schema import SchemaCompileError, compile_schema
from gramwright.schema.compiler.keywords import COMPANIONS, CORE_KEYWORDS, KEYWORDS
from gramwright.schema.errors import SchemaError

# one value of every JSON type (and the shapes a keyword most often expects)
VALUES: list[Any] = [None, True, False, 0, -1, 1.5, "x", "", [], [1], ["a"], [{}], {}, {"a": 1}, {"type": 1}]
DRAFTS = {2020: "https://json-schema.org/draft/2020-12/schema", 7: "http://json-schema.org/draft-07/schema#"}


def _keywords(draft: int) -> list[str]:
    return sorted(set(KEYWORDS[draft]) | CORE_KEYWORDS[draft] | COMPANIONS | {"$defs", "definitions"})


def _schemas(keyword: str, value: Any, uri: str) -> list[dict[str, Any]]:
    return [
        {"$schema": uri, keyword: value},
        {"$schema": uri, "type": "array", keyword: value},
        {"$schema": uri, "type": "object", keyword: value},
        {"$schema": uri, "type": "number", keyword: value},
        {"$schema": uri, "type": "string", keyword: value},
        {"$schema": uri, "if": {"type": "string"}, keyword: value},
        {"$schema": uri, "properties": {"p": {keyword: value}}, "required": ["p"]},
        {"$schema": uri, "anyOf": [{keyword: value}, {"type": "null"}]},
    ]


CASES = [
    (draft, keyword, json.dumps(value))
    for draft in DRAFTS
    for keyword in _keywords(draft)
    if keyword not in ("$ref", "$dynamicRef", "$recursiveRef")  # a string they resolve: test_resolve
    for value in VALUES
]


@pytest.mark.parametrize(("draft", "keyword", "value"), CASES)
def test_no_keyword_value_crashes_the_compiler(draft: int, keyword: str, value: str) -> None:
    for schema in _schemas(keyword, json.loads(value), DRAFTS[draft]):
        try:
            compile_schema(schema)
        except SchemaError as exc:
            line = exc.one_line()
            assert "\n" not in line and line
        except Exception as exc:  # noqa: BLE001 - any other exception is the bug this slice finds
            pytest.fail(f"{json.dumps(schema)}: {type(exc).__name__}: {exc}")


def test_prefix_items_object_is_one_line_naming_keyword_and_pointer() -> None:
    with pytest.raises(SchemaCompileError) as info:
        compile_schema({"type": "array", "prefixItems": {"type": "string"}})
    assert info.value.keyword == "prefixItems"
    assert info.value.pointer == "/prefixItems"
    line = info.value.one_line()
    assert "prefixItems" in line and "array" in line


def test_ref_with_non_string_value_is_refused() -> None:
    for value in (1, None, {}, []):
        with pytest.raises(SchemaCompileError) as info:
            compile_schema({"$ref": value})
        assert info.value.keyword == "$ref"


@pytest.mark.parametrize("document", [[1, 2, 3], "x", 3, None])
def test_a_root_that_is_no_schema_is_refused_in_one_line(document: Any) -> None:
    with pytest.raises(SchemaCompileError) as info:
        compile_schema(document, source="list.json")
    line = info.value.one_line()
    assert "\n" not in line
    assert "list.json" in line and "a schema is a JSON object or a boolean" in line
    assert "wrap the constraints in an object" in line


def test_compile_cli_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[1, 2, 3]", encoding="utf-8")
    result = CliRunner().invoke(app, ["compile", str(path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert str(path) in lines[0] and "not an array" in lines[0] and "wrap the constraints" in lines[0]
    assert "Traceback" not in result.output


def test_tuple_items_with_2020_assumed_is_reported_not_silent() -> None:
    compiled = compile_schema({"type": "array", "items": [{"type": "string"}]})
    entry = next(e for e in compiled.report if e.pointer == "/items")
    assert entry.status == "approximated"
    assert "tuple form" in entry.reason and "prefixItems" in entry.reason


def test_tuple_items_under_a_declared_2020_12_is_refused() -> None:
    with pytest.raises(SchemaCompileError) as info:
        compile_schema({"$schema": DRAFTS[2020], "type": "array", "items": [{"type": "string"}]})
    assert info.value.pointer == "/items" and info.value.keyword == "items"


def test_tuple_items_under_draft_7_stays_exact() -> None:
    compiled = compile_schema({"$schema": DRAFTS[7], "type": "array", "items": [{"type": "string"}]})
    assert compiled.report.is_exact("/items")
