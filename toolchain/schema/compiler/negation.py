"""``not`` (and the ``¬if`` of an else-branch): complements that a grammar can express.

Per JSON type ``t`` the negated schema ``N`` either rejects every ``t`` value (no effect on ``t``),
accepts every ``t`` value (``t`` is excluded — ``not: {type: string}``), or constrains ``t`` with
one keyword whose complement is again a keyword: ``minLength n`` → ``maxLength n-1``, ``minimum``
→ exclusive ``maximum``, ``minItems``/``maxItems``, ``required: [k]`` → ``k`` absent,
``properties: {k: S}`` → ``k`` present with a value satisfying ``¬S``, ``contains: C`` → every item
satisfies ``¬C``, ``enum``/``const`` → the values excluded (strings and integers). ``null`` and
booleans need none of this: they are checked by validation. Anything else leaves ``t``
unrestricted and the ``not`` is reported as approximated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gramwright.schema.compiler.collector import Collector
from gramwright.schema.compiler.keywords import as_fraction
from gramwright.schema.compiler.parts import DISJUNCTIVE, Part
from gramwright.schema.compiler.types import collector_type, declared_types
from gramwright.schema.errors import SchemaCompileError, UnsatisfiableSchema

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler

_RELEVANT: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "array": frozenset(
        {
            "items",
            "prefixItems",
            "additionalItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "unevaluatedItems",
        }
    ),
    "object": frozenset(
        {
            "properties",
            "patternProperties",
            "additionalProperties",
            "required",
            "minProperties",
            "maxProperties",
            "propertyNames",
            "unevaluatedProperties",
        }
    ),
}
_GROUPS = {
    "integer": "number",
    "fraction": "number",
    "string": "string",
    "array": "array",
    "object": "object",
}


def apply_negations(c: Compiler, col: Collector, negs: list[Part]) -> None:
    for n in negs:
        ptr = n.report_as or n.loc.pointer
        if _apply_one(c, col, n, ptr):
            c.note(ptr, "exact")
        else:
            c.note(ptr, "approximated", "the complement of this schema is not expressible for some types")


def _apply_one(c: Compiler, col: Collector, n: Part, ptr: str) -> bool:
    try:
        atoms = c.flatten([Part(n.loc)])
    except UnsatisfiableSchema:
        return True  # N accepts nothing: ¬N accepts everything
    except SchemaCompileError:
        return False
    if not atoms:
        col.types.clear()  # N accepts everything (flatten normally catches this first)
        return True
    possible = set(col.types)
    for a in atoms:
        if not a.negated:
            possible &= declared_types(a.schema, a.loc.draft)
    groups = {_GROUPS[t] for t in possible if t in _GROUPS}
    if not groups:
        return True  # only null/booleans can be affected: validation handles them exactly
    if len(atoms) != 1 or atoms[0].negated:
        return False
    a = atoms[0]
    schema: dict[str, Any] = a.schema
    draft = a.loc.draft
    live = [
        k
        for k in schema
        if k not in a.consumed
        and c.asserts(k, draft)
        and k not in ("type", "$ref", "allOf", "not")
        and not (k == "format" and c.options.formats != "assert")
        and not (k in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(schema[k], bool))
    ]
    if any(k in DISJUNCTIVE or k == "not" for k in live):
        return False
    ok = True
    for group in groups:
        relevant = [k for k in live if k in _RELEVANT[group] or k in ("enum", "const")]
        if not relevant:
            _exclude_group(col, group, possible)
        elif len(relevant) == 1:
            ok = _complement(c, col, group, relevant[0], schema, a, ptr) and ok
        else:
            ok = False
    return ok


def _exclude_group(col: Collector, group: str, possible: set[str]) -> None:
    if group == "number":
        col.types -= possible & {"integer", "fraction"}
    else:
        col.types.discard(group)


def _complement(
    c: Compiler, col: Collector, group: str, key: str, schema: dict[str, Any], a: Part, ptr: str
) -> bool:
    value = schema[key]
    draft = a.loc.draft
    if key in ("enum", "const"):
        values = [value] if key == "const" else list(value) if isinstance(value, list) else []
        if group == "string":
            words = [v for v in values if isinstance(v, str)]
            col.excluded_strings.extend(words)
            col.excluded_string_ptrs.append(ptr)
            return True
        if group == "number":
            nums = [v for v in values if collector_type(v) in ("integer", "fraction")]
            col.number.excluded.extend(as_fraction(v) for v in nums)
            col.negation_ptrs.append(ptr)
            return True
        return not any(_GROUPS.get(collector_type(v)) == group for v in values)
    if group == "string":
        if key == "minLength":
            if value == 0:
                col.types.discard("string")
            else:
                col.max_length = value - 1 if col.max_length is None else min(col.max_length, value - 1)
                col.length_ptrs.append(ptr)
            return True
        if key == "maxLength":
            col.min_length = max(col.min_length, value + 1)
            col.length_ptrs.append(ptr)
            return True
        return False
    if group == "number":
        if key in ("minimum", "exclusiveMinimum"):
            exclusive = key == "exclusiveMinimum" or (draft <= 4 and schema.get("exclusiveMinimum") is True)
            col.number.add_upper(as_fraction(value), not exclusive)
            col.bound_ptrs.append(ptr)
            return True
        if key in ("maximum", "exclusiveMaximum"):
            exclusive = key == "exclusiveMaximum" or (draft <= 4 and schema.get("exclusiveMaximum") is True)
            col.number.add_lower(as_fraction(value), not exclusive)
            col.bound_ptrs.append(ptr)
            return True
        return False
    if group == "array":
        if key == "minItems":
            if value == 0:
                col.types.discard("array")
            else:
                col.max_items = value - 1 if col.max_items is None else min(col.max_items, value - 1)
                col.items_count_ptrs.append(ptr)
            return True
        if key == "maxItems":
            col.min_items = max(col.min_items, value + 1)
            col.items_count_ptrs.append(ptr)
            return True
        if key == "contains" and not ({"minContains", "maxContains"} & schema.keys()):
            loc = c.registry.child(a.loc, "contains")
            col.item_negations.append(Part(loc, negated=True, report_as=ptr))
            return True
        return False
    # objects
    if key == "required" and isinstance(value, list):
        if not value:
            col.types.discard("object")
            return True
        if len(value) == 1:
            col.forbidden[value[0]] = ptr
            return True
        return False
    if key == "minProperties":
        if value == 0:
            col.types.discard("object")
        else:
            col.max_properties = (
                value - 1 if col.max_properties is None else min(col.max_properties, value - 1)
            )
            col.props_count_ptrs.append(ptr)
        return True
    if key == "maxProperties":
        col.min_properties = max(col.min_properties, value + 1)
        col.props_count_ptrs.append(ptr)
        return True
    if key == "properties" and isinstance(value, dict) and len(value) == 1:
        (name,) = value
        loc = c.registry.child(a.loc, "properties", name)
        if loc.schema is True or loc.schema == {}:
            return _exclude_and_true(col)
        col.required.setdefault(name, ptr)
        col.value_negations.setdefault(name, []).append(Part(loc, negated=True, report_as=ptr))
        return True
    return False


def _exclude_and_true(col: Collector) -> bool:
    """``not: {properties: {k: true}}`` accepts no object (every object satisfies the inner one)."""
    col.types.discard("object")
    return True
