"""Which JSON types a conjunction can possibly accept (a sound over-approximation)."""

from __future__ import annotations

from typing import Any

from gramwright.schema.compiler.collector import ALL_TYPES, TYPE_NAMES
from gramwright.schema.compiler.parts import Part
from gramwright.schema.facts import json_type


def collector_type(value: Any) -> str:
    """The collector's type name of a JSON value: its JSON Schema type (:func:`json_type`), with
    ``number`` — what remains of a number that is not an integer, such as ``0.5`` — named
    ``fraction``, the collector's half of ``number``."""
    name = json_type(value)
    return "fraction" if name == "number" else name


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
        types &= {collector_type(schema["const"])}
    if isinstance(schema.get("enum"), list):
        types &= {collector_type(v) for v in schema["enum"]}
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
