"""Business rules: CEL (x-rules in the schema, rules files), Python callables by entry point, the
purchase order's Σ qty × unit_price and urgency rules, and the rule-engine fallback expressions."""

from __future__ import annotations

import json
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from gramwright.errors import PipelineError
from gramwright.pipeline.cel_eval import evaluate_fill, evaluate_rules
from gramwright.pipeline.rules import ENTRY_POINT_GROUP, RuleSet, field_pointer, load_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs/examples/purchase_order.rules.json"
GOOD: dict[str, Any] = {
    "supplier": "联想",
    "apply_dept": "行政部",
    "urgency": "特急",
    "items": [
        {"name": "笔记本", "qty": 2, "unit_price": Decimal("5999.5")},
        {"name": "鼠标", "qty": 1, "unit_price": 99},
    ],
    "total_amount": Decimal("12098.0"),
}


def _failed(rules: RuleSet, doc: Any) -> set[tuple[str, str, str]]:
    return {(o.rule_id, o.severity, o.pointer) for o in evaluate_rules(rules, doc)}


def test_the_purchase_order_rules_pass_on_a_consistent_order() -> None:
    assert _failed(load_rules(RULES), GOOD) == set()


def test_total_must_match_the_lines_within_the_tolerance() -> None:
    rules = load_rules(RULES)
    assert _failed(rules, {**GOOD, "total_amount": Decimal("12098.005")}) == set()
    assert _failed(rules, {**GOOD, "total_amount": 12000}) == {
        ("total-matches-items", "error", "/total_amount")
    }


def test_urgency_needs_the_approving_department_and_large_orders_warn() -> None:
    rules = load_rules(RULES)
    rush = {k: v for k, v in GOOD.items() if k != "apply_dept"}
    assert _failed(rules, rush) == {("rush-needs-department", "error", "/apply_dept")}
    assert _failed(rules, {**rush, "urgency": "普通"}) == set()
    big = {**GOOD, "items": [{"name": "服务器", "qty": 1, "unit_price": 60000}], "total_amount": 60000}
    assert _failed(rules, big) == {("large-order-approval", "warn", "/total_amount")}


def test_a_scoped_rule_runs_once_per_array_item() -> None:
    rules = load_rules(RULES)
    doc = {**GOOD, "items": [*GOOD["items"], {"name": "赠品", "qty": 1, "unit_price": 0}]}
    assert ("positive-line", "warn", "/items/2/unit_price") in _failed(rules, doc)


def test_x_rules_in_the_schema_take_self_from_their_node() -> None:
    schema = {
        "type": "object",
        "x-rules": [{"rule": "self.lo <= self.hi", "message": "lo > hi", "fieldPath": ".lo"}],
        "properties": {
            "lo": {"type": "integer"},
            "hi": {"type": "integer"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "x-rules": [{"rule": "size(self) > 0", "message": "empty"}]},
            },
        },
    }
    rules = load_rules(schema=schema)
    assert len(rules.rules) == 2 and rules.rules[1].scope == "/tags/*"
    assert _failed(rules, {"lo": 1, "hi": 2, "tags": ["a", ""]}) == {
        ("size(self) > 0", "error", "/tags/1")
    }  # no id: the source is the id
    assert {o.pointer for o in evaluate_rules(rules, {"lo": 3, "hi": 2})} == {"/lo"}


def test_a_rule_that_cannot_be_evaluated_fails_with_the_reason() -> None:
    rules = load_rules(schema={"x-rules": [{"rule": "self.total > 0", "message": "no total"}]})
    [outcome] = evaluate_rules(rules, {"other": 1})
    assert "could not be evaluated" in outcome.message and "total" in outcome.message


def test_non_boolean_results_fail() -> None:
    rules = load_rules(schema={"x-rules": [{"rule": "self.n + 1", "message": "m"}]})
    [outcome] = evaluate_rules(rules, {"n": 1})
    assert "not a bool" in outcome.message


@pytest.mark.parametrize(
    ("rules_file", "match"),
    [
        ({"rules": [{"rule": "self.(", "message": "x"}]}, "CEL syntax error"),
        ({"rules": [{"message": "x"}]}, "exactly one of"),
        ({"rules": [{"rule": "true", "severity": "fatal"}]}, "severity"),
        ({"rules": [{"rule": "true", "fieldpath": "/a"}]}, "unknown rule key"),
        ({"rules": [], "extra": 1}, "unknown rules-file key"),
        ({"rules": [{"python": "no_such_entry_point"}]}, "no entry point"),
        ({"fallback": [{"fieldPath": "/a"}]}, "expression"),
        ([], "a rules file is an object"),
    ],
)
def test_bad_rules_files_fail_when_loaded(tmp_path: Path, rules_file: Any, match: str) -> None:
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules_file), encoding="utf-8")
    with pytest.raises(PipelineError, match=match) as info:
        load_rules(path)
    assert str(path) in info.value.where


def test_field_paths_in_kubernetes_style() -> None:
    assert field_pointer(".spec.items[2].name") == "/spec/items/2/name"
    assert field_pointer("/a~1b") == "/a~1b" and field_pointer("") == ""
    with pytest.raises(PipelineError):
        field_pointer("spec.name")


def test_fallback_expression_computes_the_total() -> None:
    fill = load_rules(RULES).fills[0]
    assert fill.field_path == "/total_amount"
    assert evaluate_fill(fill, GOOD) == pytest.approx(12098.0)


@pytest.fixture
def entry_point_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A real installed distribution (a dist-info on sys.path) that declares a rule entry point."""
    (tmp_path / "po_rules_pkg.py").write_text(
        textwrap.dedent(
            """
            def no_free_items(order):
                return [(f"/items/{i}/unit_price", "free item") for i, it in enumerate(order["items"])
                        if it["unit_price"] == 0]
            """
        ),
        encoding="utf-8",
    )
    info = tmp_path / "po_rules_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: po-rules-pkg\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nno-free-items = po_rules_pkg:no_free_items\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "no-free-items"
    sys.modules.pop("po_rules_pkg", None)


def test_python_rules_by_entry_point_and_by_import_path(tmp_path: Path, entry_point_package: str) -> None:
    path = tmp_path / "rules.json"
    path.write_text(
        json.dumps({"rules": [{"python": entry_point_package, "severity": "warn"},
                              {"python": "po_rules_pkg:no_free_items", "id": "by-path"}]}),
        encoding="utf-8",
    )  # fmt: skip
    rules = load_rules(path)
    doc = {**GOOD, "items": [{"name": "赠品", "qty": 1, "unit_price": 0}]}
    assert _failed(rules, doc) == {
        ("no-free-items", "warn", "/items/0/unit_price"),
        ("by-path", "error", "/items/0/unit_price"),
    }
    assert _failed(rules, GOOD) == set()


def test_python_callables_from_the_api_and_a_raising_rule() -> None:
    def boom(doc: Any) -> bool:
        raise ValueError("bad data")

    def needs_supplier(doc: Any) -> Any:
        return None if doc.get("supplier") else "supplier is empty"

    rules = RuleSet.from_callables([boom, needs_supplier])
    found = {o.rule_id: o.message for o in evaluate_rules(rules, {"supplier": ""})}
    assert "raised ValueError: bad data" in found["boom"] and found["needs_supplier"] == "supplier is empty"
