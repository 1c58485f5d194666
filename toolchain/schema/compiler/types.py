"""Which JSON types a conjunction can possibly accept (a sound over-approximation)."""

from __future__ import annotations

from typing import Any

from gramwright.schema.compiler.collector import ALL_TYPES, TYPE_NAMES
from gramwright.schema.compiler.parts import Part


def json_type(value: Any) -> str:
    """The collector's type name of a JSON value (integral floats are integers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "fraction"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def declared_types(schema: Any, draft: int) -> set[str]:
    """Types allowed by one schema's own ``type``/``const``/``enum`` keywords."""
    types = set(ALL_TYPES)
    if not isinstance(schema, dict):
        return types if schema is not False else set()
    t = schema.get("type")
    if t is not None:
        names = t if isinstance(t, list) else [t]
        allowed: set[str] = set()
        for name in names:
            if name == "any":
                allowed = set(ALL_TYPES)
                break
            allowed.update(TYPE_NAMES.get(name, ()))
        types &= allowed
    if "const" in schema and draft >= 6:
        types &= {json_type(schema["const"])}
    if isinstance(schema.get("enum"), list):
        types &= {json_type(v) for v in schema["enum"]}
    return types


def possible_types(flat: list[Part]) -> set[str]:
    """Types an instance of the conjunction can have (negated parts are ignored: a superset)."""
    types = set(ALL_TYPES)
    for part in flat:
        if part.negated:
            continue
        if isinstance(part.schema, dict) and "*" in part.consumed:
            continue
        types &= declared_types(part.schema, part.loc.draft)
    return types
