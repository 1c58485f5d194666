"""Every lint rule fires on a schema written for it and stays silent on a close fixed variant.

Fixtures: tests/fixtures/lint/<rule id with '-' for '/'>/{bad,good}.json, each
``{"rule", "profile", "expect", "schema", "options"?}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gramwright.lint import LintOptions, all_rules, lint_schema
from gramwright.lint.linter import INTERNAL_RULE

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lint"
# Rules whose trigger is our compiler's output or a linter crash: tested in test_lint_compile.py and
# test_lint_engine.py with a stand-in compiler / a broken rule.
NOT_SCHEMA_DRIVEN = {"compile/uncompilable-keyword", "compile/error", "size/grammar-budget", INTERNAL_RULE}


def _cases() -> list[Any]:
    out = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        doc = json.loads(path.read_text("utf-8"))
        out.append(pytest.param(doc, id=f"{path.parent.name}/{path.stem}"))
    return out


def _lint(doc: dict[str, Any]) -> list[str]:
    options = LintOptions(compile=False, **doc.get("options", {}))
    report = lint_schema(doc["schema"], profile=doc["profile"], options=options)
    assert not [d for d in report.diagnostics if d.rule == INTERNAL_RULE], report.diagnostics
    return [d.rule for d in report.diagnostics]


@pytest.mark.parametrize("doc", _cases())
def test_fixture(doc: dict[str, Any]) -> None:
    rules = _lint(doc)
    if doc["expect"] == "fires":
        assert doc["rule"] in rules, f"{doc['rule']} did not fire; got {rules}"
    else:
        assert doc["rule"] not in rules, f"{doc['rule']} fired on the fixed variant"


def test_every_rule_has_a_bad_and_a_good_fixture() -> None:
    have: dict[str, set[str]] = {}
    for path in FIXTURES.glob("*/*.json"):
        doc = json.loads(path.read_text("utf-8"))
        assert path.parent.name == doc["rule"].replace("/", "-")
        have.setdefault(doc["rule"], set()).add(doc["expect"])
    missing = [r for r in all_rules() if r not in NOT_SCHEMA_DRIVEN and have.get(r) != {"fires", "silent"}]
    assert not missing, f"rules without fixtures: {missing}"


def test_at_least_thirty_rules_and_the_must_exist_table() -> None:
    rules = all_rules()
    assert len(rules) >= 30
    must = {
        "size/nesting-depth", "size/enum-large", "enum/prefix-overlap", "compile/uncompilable-keyword",
        "exit/missing-refusal", "order/answer-before-reasoning", "type/free-string-ratio", "array/unbounded",
        "string/unbounded", "recursion/unbounded", "object/optional-explosion", "schema/dynamic-enum",
        "budget/max-tokens", "meta/invalid-schema", "meta/unknown-keyword", "ref/unresolvable",
        "ref/external", "ref/siblings", "sat/unsatisfiable", "enum/duplicate", "enum/type-mismatch",
        "example/invalid",
    }  # fmt: skip
    assert must <= set(rules), must - set(rules)
    for rule in rules.values():
        assert rule.what and rule.why, rule.id


def test_typo_suggestion_and_fix() -> None:
    report = lint_schema({"type": "integer", "mininum": 1}, options=LintOptions(compile=False))
    [d] = [d for d in report.diagnostics if d.rule == "meta/unknown-keyword"]
    assert "did you mean `minimum`" in d.message and d.severity == "warn" and d.pointer == "/mininum"
    assert d.fix is not None and d.fix.patch == ({"op": "move", "from": "/mininum", "path": "/minimum"},)


@pytest.mark.parametrize(
    ("key", "value"),
    [("x-runtime", {"retry": 2}), ("_format", "date"), ("note", "free text"), ("markdownDescription", "x")],
)
def test_not_taken_for_typos(key: str, value: Any) -> None:
    report = lint_schema({"type": "string", "maxLength": 3, key: value}, options=LintOptions(compile=False))
    assert not [d for d in report.diagnostics if "did you mean" in d.message]


def test_prefix_overlap_reports_the_shared_chinese_prefix() -> None:
    schema = {"type": "string", "enum": ["待客户确认", "待客户补充材料"]}
    [d] = [d for d in lint_schema(schema).diagnostics if d.rule == "enum/prefix-overlap"]
    assert "待客户确认" in d.message and d.severity == "info" and d.pointer == "/enum"


def test_strict_prefix_is_an_overlap_even_when_short() -> None:
    schema = {"type": "string", "enum": ["ok", "okay", "no"]}
    assert "enum/prefix-overlap" in [d.rule for d in lint_schema(schema).diagnostics]


def test_mechanical_fixes() -> None:
    single = lint_schema({"enum": ["a"]}).diagnostics
    [fix] = [d.fix for d in single if d.rule == "enum/single"]
    assert fix is not None and fix.patch[-1] == {"op": "add", "path": "/const", "value": "a"}
    dup = lint_schema({"type": "string", "enum": ["a", "b", "a"]}).diagnostics
    [fix] = [d.fix for d in dup if d.rule == "enum/duplicate"]
    assert fix is not None and fix.patch == ({"op": "replace", "path": "/enum", "value": ["a", "b"]},)


def test_json_equality_in_duplicates() -> None:
    rules = [d.rule for d in lint_schema({"enum": [1, 1.0, True]}).diagnostics]
    assert rules.count("enum/duplicate") == 1


def test_forbidden_property_idiom_is_not_unsatisfiable() -> None:
    schema = {"type": "object", "properties": {"legacy": {"not": {}}}}
    assert "sat/unsatisfiable" not in [d.rule for d in lint_schema(schema).diagnostics]
    schema = {"type": "object", "properties": {"legacy": {"not": {}}}, "required": ["legacy"]}
    assert "sat/unsatisfiable" in [d.rule for d in lint_schema(schema).diagnostics]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "minLength": 5, "maxLength": 2},
        {"type": "integer", "minimum": 1.2, "maximum": 1.8},
        {"type": "integer", "minimum": 1, "maximum": 4, "multipleOf": 5},
        {"type": "number", "exclusiveMinimum": 3, "maximum": 3},
        {"type": "number", "minimum": 3, "exclusiveMinimum": True, "maximum": 3},
        {"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": False},
        {"type": "object", "required": ["a", "b"], "maxProperties": 1},
        {"allOf": [{"type": "string"}, {"type": "integer"}]},
        {"const": 3, "enum": [1, 2]},
    ],
)
def test_unsatisfiable_forms(schema: dict[str, Any]) -> None:
    assert "sat/unsatisfiable" in [d.rule for d in lint_schema(schema).diagnostics]


def test_dynamic_enum_hint_key() -> None:
    schema = {"type": "string", "enum": ["a", "b"], "x-enum-source": "GET /api/projects"}
    assert "schema/dynamic-enum" in [d.rule for d in lint_schema(schema).diagnostics]


def test_answer_before_reasoning_in_chinese() -> None:
    schema = {"type": "object", "properties": {"结论": {"type": "string"}, "推理过程": {"type": "string"}}}
    [d] = [d for d in lint_schema(schema).diagnostics if d.rule == "order/answer-before-reasoning"]
    assert d.pointer == "/properties/推理过程"


def test_forced_extraction_variant() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"invoice_no": {"type": "string"}},
        "required": ["invoice_no"],
    }
    found = [d for d in lint_schema(schema).diagnostics if d.rule == "exit/missing-refusal"]
    assert found and "invoice_no" in found[0].message
    schema["properties"]["invoice_no"]["type"] = ["string", "null"]
    assert not [d for d in lint_schema(schema).diagnostics if d.rule == "exit/missing-refusal"]
