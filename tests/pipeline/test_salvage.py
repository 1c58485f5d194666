"""Layer 3's pieces: salvage keeps what validates and says what went and why; a cut prefix loses the
member being written and is closed, never completed."""

from __future__ import annotations

from pathlib import Path

from gramwright.pipeline.prefix import close_prefix
from gramwright.pipeline.rules import load_rules
from gramwright.pipeline.salvage import salvage

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "required": ["name", "items"],
    "properties": {
        "name": {"type": "string"},
        "note": {"type": "string", "maxLength": 5},
        "meta": {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False},
        "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
    },
}


def test_failed_optional_members_are_dropped_with_the_reason() -> None:
    s = salvage({"name": "a", "note": "far too long", "meta": {"x": 1, "y": 2}, "items": [1]}, SCHEMA)
    assert s.valid and not s.required_lost and not s.elements_dropped
    assert s.value == {"name": "a", "meta": {"x": 1}, "items": [1]}
    reasons = {d.pointer: d.reason for d in s.dropped}
    assert set(reasons) == {"/note", "/meta/y"} and "too long" in reasons["/note"]


def test_array_elements_and_required_members() -> None:
    s = salvage({"name": "a", "items": [1, -1, 2, -3]}, SCHEMA)
    assert s.valid and s.elements_dropped and s.value["items"] == [1, 2]
    assert [d.pointer for d in s.dropped] == ["/items/3", "/items/1"]  # highest index first
    lost = salvage({"name": 5, "items": [1]}, SCHEMA)
    assert lost.required_lost and not lost.valid and lost.value == {"items": [1]}


def test_an_unsalvageable_document_stops_and_keeps_its_errors() -> None:
    s = salvage([1, 2], SCHEMA)
    assert not s.valid and s.errors and s.value == [1, 2]


def test_the_rule_engine_fills_instead_of_dropping() -> None:
    rules = load_rules(ROOT / "docs/examples/purchase_order.rules.json")
    schema = {"type": "object", "required": ["total_amount", "items"]}
    doc = {"items": [{"qty": 2, "unit_price": 3}], "total_amount": 1}
    s = salvage(doc, schema, rules=rules, fill=True)
    assert s.valid and s.filled == ["/total_amount"] and s.value["total_amount"] == 6.0
    missing = salvage({"items": [{"qty": 2, "unit_price": 3}]}, schema, rules=rules, fill=True)
    assert missing.valid and missing.filled == ["/total_amount"] and missing.required_lost
    assert not salvage(doc, schema, rules=rules, fill=False).valid


def test_a_cut_prefix_loses_the_member_in_flight() -> None:
    closed = close_prefix('{"name": "a", "items": [1, 2, 3')
    assert (
        closed is not None and closed.value == {"name": "a", "items": [1, 2]} and closed.cut_at == "/items/2"
    )
    string = close_prefix('{"name": "a", "note": "hal')
    assert string is not None and string.value == {"name": "a"} and string.cut_at == "/note"
    key = close_prefix('{"name": "a", "no')
    assert key is not None and key.value == {"name": "a"}
    assert close_prefix("") is None and close_prefix("no json") is None


def test_a_cut_outside_text_loses_its_last_member() -> None:
    s = salvage({"name": "a", "note": "hal"}, SCHEMA, cut=True)
    assert s.dropped[0].pointer == "/note" and "cut" in s.dropped[0].reason
