"""compile/* and size/grammar-budget: rules over our compiler's report (stand-in and real compiler)."""

from __future__ import annotations

from typing import Any

import pytest

import gramwright.lint.compile_report as compile_report
from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.compile_report import CompileOutcome
from gramwright.schema import ReportEntry
from tests.support.lint import PURCHASE_ORDER

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tags": {
            "type": "array",
            "items": {"type": "string", "maxLength": 5},
            "maxItems": 3,
            "uniqueItems": True,
        },
        "code": {"type": "string", "pattern": "^(?=a)a+$", "maxLength": 4},
    },
    "required": ["tags", "code"],
    "additionalProperties": False,
}


def _with(monkeypatch: pytest.MonkeyPatch, outcome: CompileOutcome) -> None:
    monkeypatch.setattr(compile_report, "run_compiler", lambda *args, **kwargs: outcome)


def _rules(report: Any, prefix: str = "") -> list[tuple[str, str, str]]:
    return [(d.rule, d.severity, d.pointer) for d in report.diagnostics if d.rule.startswith(prefix)]


def test_report_entries_become_diagnostics(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = [
        ReportEntry("/properties/tags/uniqueItems", "uniqueItems", "approximated", "not enforced"),
        ReportEntry("/properties/code/pattern", "pattern", "discarded", "lookahead"),
        ReportEntry("/properties/tags/maxItems", "maxItems", "exact", ""),
    ]
    _with(monkeypatch, CompileOutcome("ok", entries, grammar_rules=12, gbnf_bytes=900, compile_ms=3.5))
    report = lint_schema(SCHEMA)
    assert _rules(report, "compile/") == [
        ("compile/uncompilable-keyword", "info", "/properties/tags/uniqueItems"),
        ("compile/uncompilable-keyword", "warn", "/properties/code/pattern"),
    ]
    message = next(d.message for d in report.diagnostics if d.pointer == "/properties/code/pattern")
    assert "checked after generation only" in message
    # the report supersedes the generic capability rules at the pointers it covers ...
    assert not _rules(report, "array/unsupported") and not _rules(report, "string/pattern-unsupported-regex")
    # ... but not for other targets, which do not run our engine
    other = lint_schema(SCHEMA, profile="xgrammar")
    assert _rules(other, "array/unsupported") and not _rules(other, "compile/")
    cost = report.cost
    assert (cost.grammar_rules, cost.gbnf_bytes, cost.compile_ms, cost.compiler) == (12, 900, 3.5, "ok")


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (
            CompileOutcome("rejected", error_pointer="/properties/x", error_reason="no value"),
            ("error", "/properties/x"),
        ),
        (CompileOutcome("crashed", error_reason="KeyError: 'x'"), ("warn", "")),
        (CompileOutcome("timeout", error_reason="no grammar after 10 s"), ("warn", "")),
    ],
)
def test_compile_errors(
    monkeypatch: pytest.MonkeyPatch, outcome: CompileOutcome, expected: tuple[str, str]
) -> None:
    _with(monkeypatch, outcome)
    [d] = [d for d in lint_schema(SCHEMA).diagnostics if d.rule == "compile/error"]
    assert (d.severity, d.pointer) == expected


def test_grammar_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, CompileOutcome("ok", [], grammar_rules=6000, gbnf_bytes=300_000, compile_ms=1.0))
    found = [d for d in lint_schema(SCHEMA).diagnostics if d.rule == "size/grammar-budget"]
    assert len(found) == 2 and {d.severity for d in found} == {"warn"}
    _with(monkeypatch, CompileOutcome("ok", [], grammar_rules=60, gbnf_bytes=3000, compile_ms=1.0))
    assert not [d for d in lint_schema(SCHEMA).diagnostics if d.rule == "size/grammar-budget"]


def test_without_compiler_nothing_is_guessed() -> None:
    report = lint_schema(SCHEMA, options=LintOptions(compile=False))
    assert not _rules(report, "compile/") and report.cost.compiler == "not run"
    assert _rules(report, "array/unsupported")  # the generic rule speaks when no report does


def test_real_compiler_report() -> None:
    pytest.importorskip("gramwright.schema.compiler")
    report = lint_schema(SCHEMA)
    assert report.cost.compiler == "ok"
    assert report.cost.grammar_rules and report.cost.gbnf_bytes and report.cost.compile_ms is not None
    pointers = {d.pointer for d in report.diagnostics if d.rule == "compile/uncompilable-keyword"}
    assert "/properties/tags/uniqueItems" in pointers


def test_real_compiler_rejects_unsatisfiable() -> None:
    pytest.importorskip("gramwright.schema.compiler")
    report = lint_schema({"type": "integer", "minimum": 5, "maximum": 1})
    assert "compile/error" in [d.rule for d in report.diagnostics]


def test_purchase_order_with_the_real_compiler() -> None:
    pytest.importorskip("gramwright.schema.compiler")
    report = lint_schema(PURCHASE_ORDER, profile="gramwright")
    assert report.cost.compiler == "ok" and report.counts()["error"] == 0, report.diagnostics
    for d in report.diagnostics:
        if d.rule == "compile/uncompilable-keyword":  # approximations, if any, name their keyword
            assert d.pointer.startswith("/")


@pytest.mark.parametrize(
    ("document", "what"), [([1, 2, 3], "an array"), ("x", "a string"), (3, "the number 3")]
)
def test_a_document_that_is_no_schema_is_one_finding_not_a_compiler_crash(document: Any, what: str) -> None:
    report = lint_schema(document)
    found = [(d.rule, d.message, d.hint) for d in report.diagnostics]
    assert found == [
        (
            "meta/invalid-schema",
            f"the document is {what}, not a schema: a schema is a JSON object or a boolean",
            'wrap the document in an object (a list of allowed values is {"enum": [...]})',
        )
    ]
