"""A purchase-order schema with the legacy ``x-runtime`` block, linted under several profiles."""

from __future__ import annotations

from typing import Any

PURCHASE_ORDER: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["supplier", "items", "total_amount"],
    "properties": {
        "supplier": {"type": "string", "maxLength": 64},
        "apply_dept": {"type": "string"},
        "urgency": {"type": "string", "enum": ["普通", "加急", "特急"]},
        "total_amount": {"type": "number", "minimum": 0},
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": 200,
            "items": {
                "type": "object",
                "required": ["name", "qty", "unit_price"],
                "properties": {
                    "name": {"type": "string"},
                    "spec": {"type": "string"},
                    "qty": {"type": "integer", "minimum": 1},
                    "unit_price": {"type": "number", "minimum": 0},
                },
            },
        },
    },
    "x-runtime": {
        "decode_mode": "constrained_fsm",
        "mask_cache": True,
        "retry": {"max": 2, "feedback_on_fail": True},
        "partial_ok": True,
        "fallback": "RULE_ENGINE",
    },
}
