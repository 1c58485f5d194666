"""The pipeline after a budget close: retry feedback, salvage, report counts."""

from __future__ import annotations

import pytest

from gramwright.errors import BudgetTooSmall
from gramwright.generation import Generator
from gramwright.pipeline import GeneratorBackend, run
from gramwright.pipeline.metrics import summarize, summary_lines
from gramwright.pipeline.retry import budget_note
from gramwright.pipeline.salvage import salvage


def test_a_retry_after_a_budget_close_names_the_values_cut_short() -> None:
    note = budget_note(["/items/0/description", "/notes"], 128)
    assert "128 tokens" in note and "/items/0/description, /notes" in note


def test_salvage_says_a_dropped_value_was_cut_short_by_the_budget() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 5}, "n": {"type": "integer"}},
        "required": ["n"],
    }
    kept = salvage({"name": "ab", "n": 3}, schema, budget_cut=["", "/name"])
    assert kept.valid and kept.value == {"n": 3}
    assert kept.dropped[0].pointer == "/name"
    assert kept.dropped[0].reason.startswith("closed early by the token budget")
    plain = salvage({"name": "ab", "n": 3}, schema)
    assert "token budget" not in plain.dropped[0].reason


def test_report_counts_budget_closes() -> None:
    rows = [
        {"id": "1", "status": "ok", "budget_closes": 1, "first_budget_closed": True},
        {"id": "2", "status": "ok", "budget_closes": 0, "first_budget_closed": False},
        {"id": "3", "status": "failed", "budget_closes": 2, "first_budget_closed": True},
    ]
    summary = summarize(rows)
    assert summary["budget_closes"] == 3
    assert summary["first_budget_closed_rate"] == round(2 / 3, 4)
    assert ("budget closes", "3 (first attempts: 66.7%)") in summary_lines(summary)


def test_a_limit_below_the_shortest_output_is_refused_before_the_model_loads() -> None:
    generator = Generator()
    schema = "docs/examples/purchase_order.json"
    with pytest.raises(BudgetTooSmall, match=r"the shortest output this grammar accepts is \d+ tokens"):
        run(schema, "two laptops", backend=GeneratorBackend(generator), max_tokens=5)
    assert not generator.model_loaded
