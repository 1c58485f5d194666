"""Layer 2's validation: exact decimals, formats, the draft from $schema, the compile's $ref
registry, the members an issue names, and truncation never parsed."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from gramwright.sources import load_source
from gramwright.validate import parse_document, validate_output, validate_value


def test_truncated_output_is_never_parsed() -> None:
    for reason in ("length", "timeout"):
        v = validate_output('{"a": 1}', {"type": "object"}, reason)
        assert v.truncated and not v.parsed and not v.valid
        assert v.issues[0].keyword == "finish_reason" and reason in v.issues[0].message


def test_exact_decimals_are_compared_mathematically() -> None:
    # 0.1 + 0.2 as floats is not a multiple of 0.1; as decimals the instance 0.3 is
    v = validate_output('{"x": 0.3}', {"properties": {"x": {"multipleOf": 0.1}}})
    assert v.valid, v.errors
    assert parse_document("1.10") == Decimal("1.10")
    assert validate_output('{"x": 1e-400}', {"properties": {"x": {"exclusiveMinimum": 0}}}).valid


def test_formats_are_checked() -> None:
    schema = {"properties": {"d": {"type": "string", "format": "date"}}}
    assert validate_output('{"d": "2024-02-29"}', schema).valid
    bad = validate_output('{"d": "2024-02-30"}', schema)
    assert not bad.valid and bad.issues[0].keyword == "format" and bad.issues[0].pointer == "/d"


def test_the_draft_comes_from_schema() -> None:
    # draft-04's exclusiveMaximum is a boolean beside maximum; 2020-12's is a number
    d4 = {"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 5, "exclusiveMaximum": True}
    assert not validate_value(4, d4) and validate_value(5, d4)
    d2020 = {"$schema": "https://json-schema.org/draft/2020-12/schema", "exclusiveMaximum": 5}
    assert not validate_value(4, d2020) and validate_value(5, d2020)


def test_issues_name_the_missing_and_the_unexpected_members() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {}, "b": {}, "c": {}},
        "patternProperties": {"^x-": {}},
        "additionalProperties": False,
    }
    issues = validate_value({"a": 1, "x-ok": 1, "zz": 2, "yy": 3}, schema)
    by_keyword = {i.keyword: i for i in issues}
    assert by_keyword["required"].members == ("b",) and by_keyword["required"].pointer == ""
    assert set(by_keyword["additionalProperties"].members) == {"zz", "yy"}


def test_the_compiles_ref_registry_resolves_sibling_files(tmp_path: Path) -> None:
    (tmp_path / "item.json").write_text(json.dumps({"type": "object", "properties": {"qty": {"minimum": 1}}}))
    main = tmp_path / "main.json"
    main.write_text(json.dumps({"type": "object", "properties": {"item": {"$ref": "item.json"}}}))
    source = load_source(str(main))
    issues = validate_value({"item": {"qty": 0}}, source.schema, registry=source.registry)
    assert [(i.pointer, i.keyword) for i in issues] == [("/item/qty", "minimum")]


def test_not_json_is_one_issue() -> None:
    v = validate_output("{'a': 1}", {"type": "object"})
    assert not v.parsed and v.issues[0].keyword == "json"


def test_an_issue_about_a_huge_value_stays_a_short_line() -> None:
    """jsonschema quotes the whole instance; a 1 MiB string must not become a 1 MiB error line."""
    (issue,) = validate_value(["a" * (1 << 20)], {"type": "array", "items": {"type": "integer"}})
    assert len(issue.message) < 500 and "characters left out" in issue.message
    assert issue.message.endswith("is not of type 'integer'")
