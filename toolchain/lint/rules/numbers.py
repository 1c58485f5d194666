"""number/*: numeric constraints that engines drop or reject."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import declared_types, number
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _integer_only(node: Node) -> bool:
    types = declared_types(node.obj)
    return types is not None and "integer" in types and "number" not in types


@node_rule(
    "number/bounds-on-number",
    on=_BOUNDS,
    what="`minimum`/`maximum` (or exclusive forms) on `type: number` (variant `integer`: on integers).",
    why="llama.cpp enforces bounds on integers only; Anthropic rejects every numeric bound; bounds on "
    "decimals are approximated by most grammars.",
    anchors="LCPP README, ANT doc",
    default="warn",
    variants={"integer": "off"},
)
def bounds_on_number(node: Node, ctx: LintContext) -> Iterator[Finding]:
    keys = [k for k in _BOUNDS if k in node.obj and number(node.obj[k]) is not None]
    if not keys:
        return
    shown = ", ".join(f"`{k}`" for k in keys)
    if _integer_only(node):
        yield Finding(
            join_pointer(node.pointer, keys[0]),
            f"{shown} on an integer is not enforced by this target",
            "check the range after generation",
            variant="integer",
        )
    else:
        yield Finding(
            join_pointer(node.pointer, keys[0]),
            f"{shown} on a non-integer number",
            "use `type: integer` (scaled units) if you can, or check after generation",
        )


@node_rule(
    "number/multipleof",
    on=("multipleOf",),
    what="`multipleOf` on a number, or a large integer `multipleOf`.",
    why="xgrammar ignores it on numbers and fails on integers above its limit (1024); Anthropic rejects it.",
    anchors="XGR json_schema_converter.cc, ANT doc",
    default="warn",
    variants={"integer": "off", "large-integer": "off"},
)
def multiple_of(node: Node, ctx: LintContext) -> Iterator[Finding]:
    value = number(node.obj["multipleOf"])
    if value is None:
        return
    pointer = join_pointer(node.pointer, "multipleOf")
    if not _integer_only(node) or not value.is_integer():
        yield Finding(
            pointer,
            f"`multipleOf: {node.obj['multipleOf']}` on a non-integer number",
            "scale to an integer unit (cents, not dollars)",
        )
        return
    limit = ctx.profile.int_limit("integer_multipleof_max")
    if limit is not None and value > limit:
        yield Finding(
            pointer,
            f"integer `multipleOf: {int(value)}` (over {limit})",
            "check it after generation",
            variant="large-integer",
        )
    else:
        yield Finding(pointer, "integer `multipleOf`", "check it after generation", variant="integer")
