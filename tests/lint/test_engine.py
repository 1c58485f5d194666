"""The linter engine: ignores, crash isolation, analyses (depth, recursion), cost estimate."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.linter import INTERNAL_RULE
from gramwright.lint.registry import RULES, Rule
from gramwright.lint.walker import Node

RECURSIVE: dict[str, Any] = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        }
    },
    "$ref": "#/$defs/node",
}


def test_ignore_by_id_namespace_and_glob() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    rules = {d.rule for d in lint_schema(schema).diagnostics}
    assert {"array/unbounded", "string/unbounded"} <= rules
    for pattern in ("array/unbounded", "array/", "array/*", "*/unbounded"):
        kept = {d.rule for d in lint_schema(schema, options=LintOptions(ignore=(pattern,))).diagnostics}
        assert "array/unbounded" not in kept
    kept = {d.rule for d in lint_schema(schema, options=LintOptions(ignore=("array/",))).diagnostics}
    assert "string/unbounded" in kept


def test_a_crashing_rule_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(node: Node, ctx: LintContext) -> Iterator[Finding]:
        raise RuntimeError("boom")
        yield  # pragma: no cover

    original = RULES["enum/single"]
    monkeypatch.setitem(
        RULES,
        "enum/single",
        Rule(**{**{f: getattr(original, f) for f in original.__slots__}, "node_check": broken}),
    )
    report = lint_schema({"enum": ["a"]})
    [d] = [d for d in report.diagnostics if d.rule == INTERNAL_RULE]
    assert "boom" in d.message and d.severity == "warn"


def test_recursion_found_and_depth_is_one_unrolling() -> None:
    report = lint_schema(RECURSIVE)
    rules = [d.rule for d in report.diagnostics]
    assert "recursion/unbounded" in rules and "ref/recursive" not in rules  # off for our engine
    assert report.cost.max_depth is None
    assert "ref/recursive" in [d.rule for d in lint_schema(RECURSIVE, profile="anthropic").diagnostics]


def test_cost_estimate_and_report_fields() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "maxLength": 10}, "b": {"enum": [1, 2, 3, 4]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    report = lint_schema(schema, options=LintOptions(compile=False), file="x.json")
    cost = report.cost
    assert (cost.optional_properties, cost.max_depth, cost.largest_enum) == (1, 1, 4)
    assert (
        cost.max_output_tokens is not None and cost.tokens_approximate and cost.token_counter == "bytes/3.5"
    )
    assert cost.compiler == "not run" and cost.grammar_rules is None
    assert report.file == "x.json" and report.profile == "gramwright@1" and report.lint_ms > 0


def test_boolean_and_garbage_documents_do_not_crash() -> None:
    docs: list[Any] = [
        True,
        False,
        {},
        [],
        "text",
        3,
        {"properties": "no"},
        {"items": [1, 2]},
        {"$ref": 5},
        {"enum": "x"},
    ]
    for doc in docs:
        report = lint_schema(doc)
        assert not [d for d in report.diagnostics if d.rule == INTERNAL_RULE], (doc, report.diagnostics)
    assert "meta/invalid-schema" in [d.rule for d in lint_schema([]).diagnostics]


def test_diagnostics_are_in_document_order() -> None:
    schema = {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "string"}}}
    pointers = [d.pointer for d in lint_schema(schema).diagnostics if d.rule == "string/unbounded"]
    assert pointers == ["/properties/z", "/properties/a"]
