"""Layer 3 and the rules file: its ``fallback`` block computes a member whenever layer 3 runs
(it was used only with ``--fallback rule_engine`` as well), and a ``degraded`` value still lacks
nothing the schema requires (``--allow-degrade`` returned one without a required member)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.pipeline import validate_text
from gramwright.validate import validate_value

ORDER = {
    "type": "object",
    "required": ["items", "total"],
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["qty", "price"],
                "properties": {"qty": {"type": "integer"}, "price": {"type": "number"}},
            },
        },
        "total": {"type": "number"},
    },
}
RULES = {
    "rules": [
        {
            "id": "total",
            "rule": "approx(self.total, sum(self.items.map(i, double(i.qty) * double(i.price))), 0.01)",
            "message": "total must be the sum of qty × price",
            "fieldPath": "/total",
        }
    ],
    "fallback": [
        {"fieldPath": "/total", "expression": "sum(self.items.map(i, double(i.qty) * double(i.price)))"}
    ],
}
WRONG_TOTAL = '{"items": [{"qty": 2, "price": 1.5}, {"qty": 1, "price": 4.0}], "total": 99}'


def _files(tmp_path: Path) -> tuple[Path, Path]:
    schema, rules = tmp_path / "order.json", tmp_path / "order.rules.json"
    schema.write_text(json.dumps(ORDER))
    rules.write_text(json.dumps(RULES))
    return schema, rules


def test_the_rules_files_fallback_block_applies_without_naming_rule_engine(tmp_path: Path) -> None:
    schema, rules = _files(tmp_path)
    result = validate_text(WRONG_TOTAL, str(schema), rules=str(rules))
    assert result.status == "degraded" and result.degraded
    assert result.filled == ["/total"] and result.value["total"] == 7.0
    got = CliRunner().invoke(
        app,
        ["validate", "-", "--schema", str(schema), "--rules", str(rules), "--format", "json"],
        input=WRONG_TOTAL,
    )
    row = json.loads(got.stdout)
    row = row[0] if isinstance(row, list) else row.get("results", [row])[0]
    assert row["status"] == "degraded" and row["value"]["total"] == 7.0 and row["filled"] == ["/total"]
    # --fallback none still turns layer 3 off
    off = validate_text(WRONG_TOTAL, str(schema), rules=str(rules), fallback="none")
    assert off.status == "failed" and off.value is None


def test_allow_degrade_never_returns_a_value_without_a_required_member(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["a", "b"],
                "properties": {"a": {"type": "string"}, "b": {"type": "integer", "maximum": 3}},
            }
        )
    )
    result = validate_text('{"a": "x", "b": 5}', str(schema), allow_degrade=True)
    assert result.status == "failed" and result.value is None, (result.status, result.value)
    assert [e.pointer for e in result.errors] == ["/b"]
    # what degraded may still return: a schema-valid value (an optional object dropped)
    nested = tmp_path / "n.json"
    nested.write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["a"],
                "properties": {
                    "a": {"type": "string"},
                    "extra": {"type": "object", "required": ["k"], "properties": {"k": {"type": "integer"}}},
                },
            }
        )
    )
    kept = validate_text('{"a": "x", "extra": {"k": "no"}}', str(nested), allow_degrade=True)
    assert kept.status in ("partial", "degraded") and kept.value == {"a": "x"}
    assert not validate_value(kept.value, json.loads(nested.read_text()))
