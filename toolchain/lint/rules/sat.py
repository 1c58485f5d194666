"""sat/unsatisfiable: subschemas no value can satisfy (the grammar would accept nothing)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import canonical, declared_types, number, required_names, value_has_type
from gramwright.lint.regex import regex_error
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_PAIRS = (
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
    ("minContains", "maxContains"),
)


def _bound(obj: dict[str, Any], inclusive: str, exclusive: str, pick: Any) -> tuple[float | None, bool]:
    """The effective bound and whether it is strict (draft-04 boolean and 2020-12 numeric forms)."""
    value = number(obj.get(inclusive))
    strict = obj.get(exclusive) is True
    excl = number(obj.get(exclusive))
    if excl is not None and (value is None or pick(excl, value) == excl):
        return excl, True
    return value, strict and value is not None


def _widen(types: frozenset[str]) -> frozenset[str]:
    return types | {"integer"} if "number" in types else types


def _range(node: Node) -> Iterator[Finding]:
    obj = node.obj
    lo, lo_strict = _bound(obj, "minimum", "exclusiveMinimum", max)
    hi, hi_strict = _bound(obj, "maximum", "exclusiveMaximum", min)
    if lo is None or hi is None:
        return
    if lo > hi or (lo == hi and (lo_strict or hi_strict)):
        yield Finding(
            node.pointer,
            f"no number lies between the lower bound {lo:g} and the upper bound {hi:g}",
            "swap or fix the bounds",
        )
        return
    types = declared_types(obj)
    if types is None or types != frozenset({"integer"}) or hi - lo > 1e12:
        return
    first = math.floor(lo) + 1 if lo_strict or not float(lo).is_integer() else int(lo)
    last = math.ceil(hi) - 1 if hi_strict or not float(hi).is_integer() else int(hi)
    step = number(obj.get("multipleOf"))
    if step is not None and step > 0 and step.is_integer():
        first = math.ceil(first / step) * int(step)
    if first > last:
        what = f"multiple of {step:g}" if step else "integer"
        yield Finding(node.pointer, f"no {what} lies in [{lo:g}, {hi:g}]", "widen the range")


def _objects(node: Node) -> Iterator[Finding]:
    obj = node.obj
    props: dict[str, Any] = obj["properties"] if isinstance(obj.get("properties"), dict) else {}
    required = list(dict.fromkeys(required_names(obj)))
    closed = obj.get("additionalProperties") is False
    raw_patterns = obj.get("patternProperties")
    # a malformed (non-object) patternProperties is meta/invalid-schema's finding, not a crash here
    pattern_keys = raw_patterns if isinstance(raw_patterns, dict) else {}
    patterns = [p for p in pattern_keys if isinstance(p, str) and not regex_error(p)]
    for name in required:
        sub = props.get(name)
        if sub is False:
            yield Finding(
                join_pointer(node.pointer, "properties", name),
                f"`{name}` is required but its schema is `false`",
                "drop it from `required`",
            )
        elif sub is None and closed and not any(_search(p, name) for p in patterns):
            yield Finding(
                join_pointer(node.pointer, "required"),
                f"`{name}` is required but `additionalProperties: false` forbids it",
                f"declare `{name}` in `properties`",
            )
    max_props = number(obj.get("maxProperties"))
    if max_props is not None and len(required) > max_props:
        yield Finding(
            join_pointer(node.pointer, "maxProperties"),
            f"{len(required)} required properties but `maxProperties: {max_props:g}`",
            "raise the bound",
        )
    min_props = number(obj.get("minProperties"))
    if min_props is not None and closed and not patterns and min_props > len(props):
        yield Finding(
            join_pointer(node.pointer, "minProperties"),
            f"`minProperties: {min_props:g}` but only {len(props)} properties are allowed",
            "lower the bound or allow more properties",
        )


def _search(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return True


def _values(node: Node) -> Iterator[Finding]:
    obj = node.obj
    enum = obj.get("enum")
    if (
        "const" in obj
        and isinstance(enum, list)
        and canonical(obj["const"]) not in {canonical(v) for v in enum}
    ):
        yield Finding(
            join_pointer(node.pointer, "const"), "`const` is not one of the `enum` values", "make them agree"
        )
    types = declared_types(obj)
    if (
        types is not None
        and isinstance(enum, list)
        and enum
        and not any(value_has_type(v, types) for v in enum)
    ):
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"no enum value is of type {sorted(types)}",
            "fix the values or the type",
        )
    if obj.get("type") == []:
        yield Finding(
            join_pointer(node.pointer, "type"), "`type: []` allows no value", "list at least one type"
        )


def _composition(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    negated = obj.get("not")
    forbidden_key = (
        node.via == "properties"
        and node.parent is not None
        and node.key not in required_names(node.parent.obj)
    )
    if (negated is True or negated == {}) and not forbidden_key:  # `{"not": {}}` on an optional key: "absent"
        yield Finding(
            join_pointer(node.pointer, "not"),
            "`not` of the always-true schema allows nothing",
            "remove the `not`",
        )
    branches = [c for c in node.children if c.via == "allOf"]
    if not branches:
        return
    own = declared_types(obj)
    allowed = _widen(own) if own is not None else None
    for branch in branches:
        types = declared_types(ctx.resolved_schema(branch))
        if types is not None:
            allowed = _widen(types) if allowed is None else allowed & _widen(types)
    if allowed is not None and not allowed:
        yield Finding(
            join_pointer(node.pointer, "allOf"),
            "the `allOf` branches require disjoint types",
            "make the branch types agree",
        )


@node_rule(
    "sat/unsatisfiable",
    on=None,
    what="Contradictions: `minimum` > `maximum`, min > max lengths/counts, a required key that is forbidden, "
    "`minProperties` above the possible count, `allOf` of disjoint types, `const` outside `enum`, `not: {}`.",
    why="The grammar accepts nothing: decoding deadlocks (or, with a lenient engine, the output can never "
    "validate).",
    anchors="LLG UnsatisfiableSchemaError, XGR kUnsatisfiableSchema, SM unsatisfiable_*",
    default="error",
)
def unsatisfiable(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    yield from _range(node)
    for low, high in _PAIRS:
        a, b = number(obj.get(low)), number(obj.get(high))
        if a is not None and b is not None and a > b:
            yield Finding(
                join_pointer(node.pointer, low), f"`{low}: {a:g}` exceeds `{high}: {b:g}`", "fix the bounds"
            )
    if "required" in obj or "minProperties" in obj:
        yield from _objects(node)
    yield from _values(node)
    yield from _composition(node, ctx)
