"""budget/max-tokens and the worst-case output estimate."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.budget import BYTES_PER_TOKEN
from gramwright.lint.regex import pattern_max_length


class CharTokenizer:
    """One token per character: makes the expected counts easy to compute by hand."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, text: str, add_special_tokens: bool = True) -> Sequence[int]:
        assert add_special_tokens is False
        self.calls += 1
        return [ord(c) for c in text]


def _schema(max_length: int, max_items: int = 2) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "maxItems": max_items,
                "items": {"type": "string", "maxLength": max_length},
            },
            "flag": {"type": "boolean"},
            "kind": {"enum": ["a", "bbbb"]},
        },
        "additionalProperties": False,
    }


def test_worst_case_counted_with_a_tokenizer() -> None:
    tok = CharTokenizer()
    report = lint_schema(
        _schema(3), options=LintOptions(tokenizer=tok, tokenizer_name="chars", compile=False)
    )
    # {"tags":["xxx","xxx"],"flag":false,"kind":"bbbb"}
    expected = len('{"tags":["The","The"],"flag":false,"kind":"bbbb"}')
    assert report.cost.max_output_tokens == expected
    assert not report.cost.tokens_approximate and report.cost.token_counter == "chars"


def test_approximation_without_tokenizer() -> None:
    report = lint_schema(_schema(3), options=LintOptions(compile=False))
    nbytes = len('{"tags":["The","The"],"flag":false,"kind":"bbbb"}')
    assert report.cost.max_output_tokens == -(
        -nbytes // BYTES_PER_TOKEN
    ) or report.cost.max_output_tokens == round(nbytes / BYTES_PER_TOKEN + 0.5)
    assert report.cost.tokens_approximate and report.cost.token_counter == "bytes/3.5"


def test_budget_exceeded_and_fits() -> None:
    over = lint_schema(_schema(500, 10), options=LintOptions(max_tokens=100, compile=False))
    [d] = [d for d in over.diagnostics if d.rule == "budget/max-tokens"]
    assert "over max_tokens=100" in d.message and "≈" in d.message and d.severity == "warn"
    fits = lint_schema(_schema(5), options=LintOptions(max_tokens=100, compile=False))
    assert not [d for d in fits.diagnostics if d.rule == "budget/max-tokens"]


def test_unbounded_is_reported_with_where() -> None:
    schema = {"type": "object", "properties": {"note": {"type": "string"}}, "additionalProperties": False}
    report = lint_schema(schema, options=LintOptions(max_tokens=100, compile=False))
    [d] = [d for d in report.diagnostics if d.rule == "budget/max-tokens"]
    assert d.pointer == "/properties/note" and "unbounded" in d.message
    assert report.cost.tokens_unbounded and report.cost.max_output_tokens is None
    assert "string without maxLength" in report.cost.tokens_unbounded_at


def test_no_budget_no_diagnostic() -> None:
    report = lint_schema({"type": "string"}, options=LintOptions(compile=False))
    assert not [d for d in report.diagnostics if d.rule == "budget/max-tokens"]


def test_refs_recursion_and_formats() -> None:
    recursive = {
        "$defs": {"n": {"type": "object", "properties": {"n": {"$ref": "#/$defs/n"}}}},
        "$ref": "#/$defs/n",
    }
    assert lint_schema(recursive).cost.tokens_unbounded
    dated = {
        "type": "object",
        "properties": {"d": {"$ref": "#/$defs/d"}},
        "$defs": {"d": {"type": "string", "format": "date"}},
    }
    assert lint_schema(dated).cost.max_output_tokens == math.ceil(len('{"d":"The quick "}') / BYTES_PER_TOKEN)


def test_a_pattern_of_finite_language_bounds_the_string() -> None:
    """The issue's case: strings bounded by their pattern are not "unbounded"; the unbounded
    `email` string is the one named."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "login": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,39}$"},
            "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "email": {"type": "string", "format": "email"},
        },
        "required": ["login", "currency", "email"],
        "additionalProperties": False,
    }
    report = lint_schema(schema, options=LintOptions(max_tokens=64, compile=False))
    [d] = [d for d in report.diagnostics if d.rule == "budget/max-tokens"]
    assert d.pointer == "/properties/email"
    assert report.cost.tokens_unbounded_at.startswith("/properties/email: string without maxLength")
    del schema["properties"]["email"]
    schema["required"] = ["login", "currency"]
    bounded = lint_schema(schema, options=LintOptions(tokenizer=CharTokenizer(), compile=False))
    # 39 + 3 characters of filler prose, compact JSON around them
    expected = len('{"login":"","currency":""}') + 39 + 3
    assert bounded.cost.max_output_tokens == expected


def test_the_tighter_of_maxlength_and_pattern_wins() -> None:
    tok = CharTokenizer()
    for extra, length in (({"maxLength": 2}, 2), ({"maxLength": 50}, 3), ({}, 3)):
        schema = {"type": "string", "pattern": "^[A-Z]{3}$", **extra}
        report = lint_schema(schema, options=LintOptions(tokenizer=tok, compile=False))
        assert report.cost.max_output_tokens == 2 + length


@pytest.mark.parametrize(
    ("pattern", "longest"),
    [
        ("^[A-Za-z0-9-]{1,39}$", 39),
        ("^[A-Z]{3}$", 3),
        ("^(a|bc){2}$", 4),
        ("^\\d{4}-\\d{2}-\\d{2}$", 10),
        ("^(?=x)[a-z]{2}\\b$", 2),  # lookaround and \b only widen: the bound still holds
        ("^$", 0),
        ("[A-Z]{3}", None),  # unanchored: anything may surround it
        ("^a+$", None),
        ("^(a)\\1$", None),  # a backreference: not translated, no bound claimed
        ("^[unclosed", None),
    ],
)
def test_pattern_max_length(pattern: str, longest: int | None) -> None:
    assert pattern_max_length(pattern) == longest


def test_a_deep_schema_is_estimated_without_recursion() -> None:
    """2,000 arrays inside each other (built in Python: no JSON text) — past the recursion limit
    the old estimator raised RecursionError, which crashed `lint`."""
    schema: dict[str, Any] = {"type": "string", "maxLength": 1}
    for _ in range(2000):
        schema = {"type": "array", "items": schema, "maxItems": 1}
    report = lint_schema(schema, options=LintOptions(compile=False))
    assert report.cost.max_output_tokens == math.ceil((2 * 2000 + 3) / BYTES_PER_TOKEN)
    assert not [d for d in report.diagnostics if d.rule == "lint/rule-crashed"]
