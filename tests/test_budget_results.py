"""Honest budget closes: the values a close cut short (JSON Pointers, patch blocks), the pipeline's
feedback, salvage and report counts."""

from __future__ import annotations

from gramwright.decode.cut import open_json_values
from gramwright.editors.detect import parse_patch
from gramwright.editors.edit_generate import cut_blocks
from gramwright.pipeline.metrics import summarize, summary_lines
from gramwright.pipeline.retry import budget_note
from gramwright.pipeline.salvage import salvage


def test_open_values_are_named_by_pointer_outermost_first() -> None:
    text = '{"a":{"b":[1,"xy"]},"c~/d":12,"e":"end"}'
    assert open_json_values(text, 0) == []
    assert open_json_values(text, text.index("[") + 1) == ["", "/a", "/a/b"]
    assert open_json_values(text, text.index('"xy"') + 2) == ["", "/a", "/a/b", "/a/b/1"]
    # a key being written names its object only; an escaped key is escaped in the pointer
    assert open_json_values(text, text.index('"c~') + 2) == [""]
    assert open_json_values(text, text.index("12") + 1) == ["", "/c~0~1d"]
    assert open_json_values(text, len(text)) == []
    # an escaped quote inside a string does not end it
    assert open_json_values('{"q":"a\\"b', 9) == ["", "/q"]


def test_cut_blocks_are_the_block_being_written_and_those_after() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "a.py\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n"
    )
    patch = parse_patch(text, "search-replace")
    second = text.index("y = 2")
    assert [c["block"] for c in cut_blocks(patch, text, second)] == [2]
    assert [c["block"] for c in cut_blocks(patch, text, text.index("x = 2"))] == [1, 2]
    assert cut_blocks(patch, text, second)[0]["path"] == "a.py"


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
