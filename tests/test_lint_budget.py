"""budget/max-tokens and the worst-case output estimate."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.budget import BYTES_PER_TOKEN


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
