"""One small function per keyword (the python-jsonschema ``_keywords.py`` shape).

Each function reads one keyword of one conjunction part into the :class:`Collector`; the grammar
is built from the collector afterwards, per JSON type. A function reports nothing when the keyword
is exact; what turns out inexact at emission time is reported there, under the same pointer.
Disjunctive keywords (``anyOf``, ``oneOf``, ``if``, ``dependent*``) and ``not``, ``$ref``,
``allOf`` are handled by the compiler core before these run.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gramwright.pointer import join_pointer
from gramwright.schema.compiler.collector import TYPE_NAMES, ArrayPart, Collector, ObjectPart
from gramwright.schema.compiler.parts import Part
from gramwright.schema.errors import SchemaCompileError, UnsupportedSchema
from gramwright.schema.resolve import Loc

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler

Handler = Callable[["Compiler", Collector, Any, Part], None]


def _number(value: Any, part: Part, keyword: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnsupportedSchema(part.pointer(keyword), f"{keyword} must be a number", keyword=keyword)
    return as_fraction(value)


def as_fraction(value: int | float) -> Fraction:
    """The decimal a JSON number denotes (``0.01`` is 1/100, not the nearest binary float)."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("not a finite number")
        return Fraction(repr(value))
    return Fraction(value)


def _count(value: Any, part: Part, keyword: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or int(value) != value:
        raise UnsupportedSchema(
            part.pointer(keyword), f"{keyword} must be a non-negative integer", keyword=keyword
        )
    return int(value)


# -- any type ------------------------------------------------------------------------------------
def type_(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    names = value if isinstance(value, list) else [value]
    allowed: set[str] = set()
    for name in names:
        if name == "any" and part.loc.draft <= 3:
            return
        if name not in TYPE_NAMES:
            raise UnsupportedSchema(part.pointer("type"), f"unknown type {name!r}", keyword="type")
        allowed.update(TYPE_NAMES[name])
    col.restrict_types(allowed)


def enum(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if not isinstance(value, list):
        raise UnsupportedSchema(part.pointer("enum"), "enum must be an array", keyword="enum")
    col.set_enum(value, part.pointer("enum"))


def const(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    col.set_enum([value], part.pointer("const"))


# -- numbers -------------------------------------------------------------------------------------
def minimum(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    exclusive = part.loc.draft <= 4 and part.schema.get("exclusiveMinimum") is True
    col.number.add_lower(_number(value, part, "minimum"), exclusive)
    col.bound_ptrs.append(part.pointer("minimum"))


def maximum(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    exclusive = part.loc.draft <= 4 and part.schema.get("exclusiveMaximum") is True
    col.number.add_upper(_number(value, part, "maximum"), exclusive)
    col.bound_ptrs.append(part.pointer("maximum"))


def exclusiveMinimum(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if isinstance(value, bool):  # draft-04: a modifier of minimum
        return
    col.number.add_lower(_number(value, part, "exclusiveMinimum"), True)
    col.bound_ptrs.append(part.pointer("exclusiveMinimum"))


def exclusiveMaximum(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if isinstance(value, bool):
        return
    col.number.add_upper(_number(value, part, "exclusiveMaximum"), True)
    col.bound_ptrs.append(part.pointer("exclusiveMaximum"))


def multipleOf(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    m = _number(value, part, "multipleOf")
    if m <= 0:
        raise UnsupportedSchema(
            part.pointer("multipleOf"), "multipleOf must be positive", keyword="multipleOf"
        )
    col.number.multiples.append(m)
    col.multiple_ptrs.append(part.pointer("multipleOf"))


# -- strings -------------------------------------------------------------------------------------
def minLength(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    col.min_length = max(col.min_length, _count(value, part, "minLength"))
    col.length_ptrs.append(part.pointer("minLength"))


def maxLength(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    n = _count(value, part, "maxLength")
    col.max_length = n if col.max_length is None else min(col.max_length, n)
    col.length_ptrs.append(part.pointer("maxLength"))


def pattern(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if not isinstance(value, str):
        raise UnsupportedSchema(part.pointer("pattern"), "pattern must be a string", keyword="pattern")
    col.patterns.append((value, part.pointer("pattern")))


def format_(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if c.options.formats == "assert" and isinstance(value, str):
        col.formats.append((value, part.pointer("format")))


# -- arrays --------------------------------------------------------------------------------------
def _array_part(c: Compiler, col: Collector, part: Part) -> ArrayPart:
    for ap in col.arrays:
        if ap.part is part:
            return ap
    ap = ArrayPart(part, [], None)
    col.arrays.append(ap)
    return ap


def prefixItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    ap = _array_part(c, col, part)
    ap.prefix = [c.registry.child(part.loc, "prefixItems", i) for i in range(len(value))]


def items(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    ap = _array_part(c, col, part)
    if isinstance(value, list):  # up to 2019-09: the tuple form
        if part.loc.draft >= 2020:
            # only when the draft was assumed (no $schema; a declared 2020-12 one is refused by
            # shapes): the schema means the older tuple form, but say that it was read so
            c.note(
                part.pointer("items"),
                "approximated",
                "an array of schemas is the tuple form of drafts before 2020-12 (no $schema: "
                "2020-12 assumed): read as prefixItems; write prefixItems, or declare the draft",
            )
        ap.prefix = [c.registry.child(part.loc, "items", i) for i in range(len(value))]
        if "additionalItems" in part.schema:
            ap.rest = c.registry.child(part.loc, "additionalItems")
    else:
        ap.rest = c.registry.child(part.loc, "items")


def additionalItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    # Read together with the tuple form of ``items``; alone it has no effect.
    pass


def minItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    col.min_items = max(col.min_items, _count(value, part, "minItems"))
    col.items_count_ptrs.append(part.pointer("minItems"))


def maxItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    n = _count(value, part, "maxItems")
    col.max_items = n if col.max_items is None else min(col.max_items, n)
    col.items_count_ptrs.append(part.pointer("maxItems"))


def uniqueItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if value is True:
        col.unique_ptrs.append(part.pointer("uniqueItems"))


def contains(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    lo = 1
    hi: int | None = None
    if part.loc.draft >= 2019:
        if "minContains" in part.schema:
            lo = _count(part.schema["minContains"], part, "minContains")
        if "maxContains" in part.schema:
            hi = _count(part.schema["maxContains"], part, "maxContains")
    col.contains.append((c.registry.child(part.loc, "contains"), lo, hi, part.pointer("contains")))


def min_max_contains(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    # Read together with ``contains``; without it they have no effect.
    pass


def _scope(c: Compiler, part: Part, ptr: str) -> list[Part] | None:
    """The in-place applicators of ``part`` (itself, ``allOf``, ``$ref``) — what its unevaluated*
    keywords can see — or None (reported) when a branch choice decides what was evaluated."""
    try:
        atoms = [a for a in c.flatten([Part(part.loc)]) if not a.negated]
    except SchemaCompileError:
        atoms = []
    for a in atoms:
        if any(
            k in a.schema and c.asserts(k, a.loc.draft)
            for k in ("anyOf", "oneOf", "if", "dependentSchemas", "dependencies")
        ):
            c.note(ptr, "discarded", "which properties/items count as evaluated depends on a branch")
            return None
    return atoms


def unevaluatedItems(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    """Exactly ``items`` over the positions no in-place applicator of this subschema evaluates."""
    ptr = part.pointer("unevaluatedItems")
    scope = _scope(c, part, ptr)
    if scope is None:
        return
    prefix = 0
    for a in scope:
        s = a.schema
        if a is not scope[0] and "unevaluatedItems" in s:
            return  # it evaluated every remaining item
        if "contains" in s and a.loc.draft >= 2020:
            c.note(ptr, "discarded", "items evaluated by contains depend on the instance")
            return
        tuple_items = s.get("prefixItems") if a.loc.draft >= 2020 else s.get("items")
        if isinstance(tuple_items, list):
            prefix = max(prefix, len(tuple_items))
            if a.loc.draft < 2020 and "additionalItems" in s:
                return
        if (a.loc.draft >= 2020 and "items" in s) or (
            a.loc.draft < 2020 and isinstance(s.get("items"), dict | bool)
        ):
            return
    true_loc = Loc(True, ptr, part.loc.resolver, part.loc.draft)
    own = Part(part.loc, part.consumed, report_as=ptr)  # a distinct part: not merged with `items`
    col.arrays.append(ArrayPart(own, [true_loc] * prefix, c.registry.child(part.loc, "unevaluatedItems")))


# -- objects -------------------------------------------------------------------------------------
def _object_part(col: Collector, part: Part) -> ObjectPart:
    for op in col.objects:
        if op.part is part:
            return op
    op = ObjectPart(part, {}, [], None)
    col.objects.append(op)
    return op


def properties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    op = _object_part(col, part)
    op.properties = {name: c.registry.child(part.loc, "properties", name) for name in value}


def patternProperties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    op = _object_part(col, part)
    op.patterns = [
        (
            pat,
            c.registry.child(part.loc, "patternProperties", pat),
            join_pointer(part.pointer("patternProperties"), pat),
        )
        for pat in value
    ]


def additionalProperties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    op = _object_part(col, part)
    op.additional = c.registry.child(part.loc, "additionalProperties")
    op.additional_ptr = part.pointer("additionalProperties")


def required(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    if part.loc.draft <= 3 or not isinstance(value, list):
        return
    for name in value:
        col.required.setdefault(name, part.pointer("required"))


def propertyNames(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    col.property_names.append((c.registry.child(part.loc, "propertyNames"), part.pointer("propertyNames")))


def minProperties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    col.min_properties = max(col.min_properties, _count(value, part, "minProperties"))
    col.props_count_ptrs.append(part.pointer("minProperties"))


def maxProperties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    n = _count(value, part, "maxProperties")
    col.max_properties = n if col.max_properties is None else min(col.max_properties, n)
    col.props_count_ptrs.append(part.pointer("maxProperties"))


def unevaluatedProperties(c: Compiler, col: Collector, value: Any, part: Part) -> None:
    """Exactly ``additionalProperties`` over what the in-place applicators of this subschema declare."""
    ptr = part.pointer("unevaluatedProperties")
    scope = _scope(c, part, ptr)
    if scope is None:
        return
    true_loc = Loc(True, ptr, part.loc.resolver, part.loc.draft)
    names: dict[str, Loc] = {}
    patterns: list[tuple[str, Loc, str]] = []
    for a in scope:
        s = a.schema
        if "additionalProperties" in s or (a is not scope[0] and "unevaluatedProperties" in s):
            return  # every property is evaluated already
        if isinstance(s.get("properties"), dict):
            names.update((n, true_loc) for n in s["properties"])
        if isinstance(s.get("patternProperties"), dict):
            patterns.extend((p, true_loc, ptr) for p in s["patternProperties"])
    own = Part(part.loc, part.consumed, report_as=ptr)  # a distinct part: not merged with `properties`
    col.objects.append(
        ObjectPart(own, names, patterns, c.registry.child(part.loc, "unevaluatedProperties"), ptr)
    )


_COMMON: dict[str, Handler] = {
    "type": type_,
    "enum": enum,
    "minimum": minimum,
    "maximum": maximum,
    "exclusiveMinimum": exclusiveMinimum,
    "exclusiveMaximum": exclusiveMaximum,
    "multipleOf": multipleOf,
    "minLength": minLength,
    "maxLength": maxLength,
    "pattern": pattern,
    "format": format_,
    "items": items,
    "additionalItems": additionalItems,
    "minItems": minItems,
    "maxItems": maxItems,
    "uniqueItems": uniqueItems,
    "properties": properties,
    "patternProperties": patternProperties,
    "additionalProperties": additionalProperties,
    "required": required,
    "minProperties": minProperties,
    "maxProperties": maxProperties,
}
_DRAFT6 = {**_COMMON, "const": const, "contains": contains, "propertyNames": propertyNames}
_DRAFT2019 = {
    **_DRAFT6,
    "minContains": min_max_contains,
    "maxContains": min_max_contains,
    "unevaluatedItems": unevaluatedItems,
    "unevaluatedProperties": unevaluatedProperties,
}
_DRAFT2020 = {**_DRAFT2019, "prefixItems": prefixItems}
del _DRAFT2020["additionalItems"]

KEYWORDS: dict[int, dict[str, Handler]] = {
    3: _COMMON,
    4: _COMMON,
    6: _DRAFT6,
    7: _DRAFT6,
    2019: _DRAFT2019,
    2020: _DRAFT2020,
}

# Keywords the core handles itself, per draft (applicators and disjunctions).
_CORE_OLD = frozenset({"$ref", "allOf", "anyOf", "oneOf", "not", "dependencies"})
CORE_KEYWORDS: dict[int, frozenset[str]] = {
    3: _CORE_OLD,
    4: _CORE_OLD,
    6: _CORE_OLD,
    7: _CORE_OLD | {"if"},
    2019: frozenset(
        {
            "$ref",
            "$recursiveRef",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "dependentSchemas",
            "dependentRequired",
        }
    ),
    2020: frozenset(
        {
            "$ref",
            "$dynamicRef",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "dependentSchemas",
            "dependentRequired",
        }
    ),
}
# ``then``/``else`` are read with ``if``; alone they have no effect.
COMPANIONS = frozenset({"then", "else"})


def asserts(keyword: str, draft: int) -> bool:
    """True when ``keyword`` is an assertion or applicator in ``draft`` (else it is ignored)."""
    return keyword in KEYWORDS[draft] or keyword in CORE_KEYWORDS[draft]
