"""Small facts about one subschema or JSON value that many rules ask for."""

from __future__ import annotations

import json
from typing import Any

from gramwright.schema.facts import json_type

OBJECT_KEYWORDS = frozenset(
    {
        "properties",
        "additionalProperties",
        "patternProperties",
        "required",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
    }
)
ARRAY_KEYWORDS = frozenset(
    {
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "additionalItems",
        "minContains",
        "maxContains",
        "unevaluatedItems",
    }
)
STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
JSON_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")


def declared_types(schema: dict[str, Any]) -> frozenset[str] | None:
    """The ``type`` keyword as a set; ``None`` when absent or malformed."""
    t = schema.get("type")
    if isinstance(t, str):
        return frozenset({t})
    if isinstance(t, list) and all(isinstance(x, str) for x in t):
        return frozenset(t)
    return None


def _is(schema: dict[str, Any], name: str, implied_by: frozenset[str]) -> bool:
    types = declared_types(schema)
    if types is not None:
        return name in types or (name == "number" and "integer" in types)
    return any(k in schema for k in implied_by)


def is_object(schema: dict[str, Any]) -> bool:
    return _is(schema, "object", OBJECT_KEYWORDS)


def is_array(schema: dict[str, Any]) -> bool:
    return _is(schema, "array", ARRAY_KEYWORDS)


def is_string(schema: dict[str, Any]) -> bool:
    return _is(schema, "string", STRING_KEYWORDS)


def is_numeric(schema: dict[str, Any]) -> bool:
    return _is(schema, "number", NUMBER_KEYWORDS)


def is_nullable(schema: dict[str, Any]) -> bool:
    types = declared_types(schema)
    if types is not None and "null" in types:
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    if schema.get("nullable") is True:
        return True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and any(
            isinstance(b, dict) and (b.get("type") == "null" or b.get("const", 0) is None) for b in branches
        ):
            return True
    return False


def required_names(schema: dict[str, Any]) -> list[str]:
    req = schema.get("required")
    return [r for r in req if isinstance(r, str)] if isinstance(req, list) else []


def value_has_type(value: object, types: frozenset[str]) -> bool:
    jt = json_type(value)
    return jt in types or (jt == "integer" and "number" in types)


def canonical(value: object) -> str:
    """JSON Schema equality as a string: ``1 == 1.0``, ``true != 1``, key order ignored."""

    def norm(v: object) -> object:
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {str(k): norm(x) for k, x in v.items()}
        return v

    return json.dumps(norm(value), sort_keys=True, ensure_ascii=False)


def number(value: object) -> float | None:
    """A JSON number (never a boolean) as float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def short(value: object, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
