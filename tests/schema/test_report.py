"""The compile report: every keyword occurrence, annotations and x- keys silent, pointers."""

from __future__ import annotations

import json
from pathlib import Path

from gramwright.schema import compile_schema
from tests.support.schema import Checker

FIXTURES = Path(__file__).parents[1] / "fixtures" / "schemas"


def test_every_keyword_occurrence_has_an_entry() -> None:
    schema = json.loads((FIXTURES / "purchase_order.json").read_text(encoding="utf-8"))
    cs = compile_schema(schema)
    pointers = {e.pointer for e in cs.report}
    expected = {
        "/type", "/required", "/properties",
        "/properties/supplier/type", "/properties/supplier/maxLength",
        "/properties/urgency/enum", "/properties/total_amount/minimum",
        "/properties/items/minItems", "/properties/items/maxItems", "/properties/items/items",
        "/properties/items/items/required", "/properties/items/items/properties/qty/minimum",
    }  # fmt: skip
    assert expected <= pointers
    assert cs.report.exact  # the seed schema compiles exactly
    # annotations and the x-runtime block get no entries
    assert not any("x-runtime" in p or p.endswith(("/title", "/description", "/$schema")) for p in pointers)


def test_approximations_carry_pointer_and_reason() -> None:
    check = Checker({"properties": {"tags": {"type": "array", "uniqueItems": True}}})
    (entry,) = check.compiled.report.inexact()
    assert entry.pointer == "/properties/tags/uniqueItems"
    assert entry.keyword == "uniqueItems"
    assert entry.status == "approximated"
    assert entry.reason
    assert entry.to_dict()["pointer"] == entry.pointer


def test_rule_pointers_name_schema_locations() -> None:
    cs = compile_schema({"properties": {"qty": {"type": "integer", "minimum": 1}}})
    assert cs.rule_pointers["qty"] == "/properties/qty"
    assert cs.pointer_of(["root", "qty"]) == "/properties/qty"


def test_rejection_names_the_keyword_through_active_rules() -> None:
    from gramwright.recognizer import InputRejected, Recognizer, compile_grammar

    cs = compile_schema({"properties": {"qty": {"type": "integer", "minimum": 1}}})
    rec = Recognizer(compile_grammar(cs.grammar))
    try:
        rec.feed(b'{"qty":0')
    except InputRejected as exc:
        assert cs.pointer_of(exc.active_rules) == "/properties/qty"
    else:  # pragma: no cover - the byte must be rejected
        raise AssertionError("0 must be rejected for minimum 1")


def test_summary() -> None:
    cs = compile_schema({"type": "string", "uniqueItems": True, "pattern": "^a"})
    assert "exact" in cs.report.summary()
