"""array/*: array keywords engines cannot enforce, and arrays without bounds."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import declared_types, is_array, number
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer


@node_rule(
    "array/items-missing",
    on=("type",),
    what="`type: array` without `items` (or `prefixItems`).",
    why="Elements are unconstrained: the grammar falls back to generic JSON for them.",
    anchors="SPC array-items",
    default="warn",
)
def items_missing(node: Node, ctx: LintContext) -> Iterator[Finding]:
    types = declared_types(node.obj)
    if types is None or "array" not in types:
        return
    if any(k in node.obj for k in ("items", "prefixItems", "$ref", "allOf", "anyOf", "oneOf")):
        return
    if number(node.obj.get("maxItems")) == 0:
        return
    yield Finding(
        node.pointer,
        "array without `items`: any JSON value may be generated as an element",
        "add `items` with the element schema",
    )


_UNSUPPORTED = ("uniqueItems", "contains", "minContains", "maxContains")


@node_rule(
    "array/unsupported",
    on=_UNSUPPORTED,
    what="`uniqueItems`, `contains`, `minContains`, `maxContains`.",
    why="A stateless grammar cannot compare elements or count matches: xgrammar and llama.cpp drop them "
    "silently, OpenAI rejects them.",
    anchors="XGR json_schema_converter.cc, LCPP README",
    default="warn",
)
def unsupported(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in _UNSUPPORTED:
        if key in node.obj and not (key == "uniqueItems" and node.obj[key] is not True):
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` cannot be enforced while generating",
                "check it after generation (the validation layer) or drop it",
            )


@node_rule(
    "array/min-items-gt1",
    on=("minItems",),
    what="`minItems` greater than 1.",
    why="Anthropic accepts only `minItems` 0 or 1.",
    anchors="ANT doc",
    default="off",
)
def min_items_gt1(node: Node, ctx: LintContext) -> Iterator[Finding]:
    value = number(node.obj["minItems"])
    if value is not None and value > 1:
        yield Finding(
            join_pointer(node.pointer, "minItems"),
            f"`minItems: {int(value)}` (only 0 or 1 accepted)",
            "drop it and check the length after generation",
        )


@node_rule(
    "array/max-items",
    on=("maxItems",),
    what="Any `maxItems`.",
    why="Anthropic rejects array length bounds other than `minItems` 0/1.",
    anchors="ANT doc",
    default="off",
)
def max_items(node: Node, ctx: LintContext) -> Iterator[Finding]:
    yield Finding(
        join_pointer(node.pointer, "maxItems"),
        "`maxItems` is not accepted by this target",
        "drop it and check the length after generation",
    )


@node_rule(
    "array/prefix-items",
    on=("prefixItems", "items"),
    what="Tuple arrays: `prefixItems` (or draft-07 `items` as a list).",
    why="llama.cpp's tuple support is broken.",
    anchors="LCPP README",
    default="off",
)
def prefix_items(node: Node, ctx: LintContext) -> Iterator[Finding]:
    key = "prefixItems" if "prefixItems" in node.obj else "items"
    if key == "items" and not isinstance(node.obj["items"], list):
        return
    yield Finding(
        join_pointer(node.pointer, key),
        "tuple-typed array",
        "use an object with named properties instead of positions",
    )


@node_rule(
    "array/unbounded",
    on=("type", "items", "prefixItems"),
    what="An array without `maxItems` (info), or with a very large `maxItems` (warn).",
    why="Small local models run away repeating elements; the token budget cannot be estimated; large "
    "bounds expand into long bounded repetitions in the grammar.",
    anchors="LCPP README example grammar; seeds 000 §25.4, 001",
    default="info",
    variants={"large": "warn"},
)
def unbounded(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    types = declared_types(obj)
    if not is_array(obj) or (types is not None and "array" not in types):
        return
    if obj.get("items") is False or (
        isinstance(obj.get("items"), list) and obj.get("additionalItems") is False
    ):
        return
    limit = ctx.profile.int_limit("array_max_items_large")
    value = number(obj.get("maxItems"))
    if value is None:
        yield Finding(
            node.pointer, "array without `maxItems`", "add `maxItems` with the most elements you expect"
        )
    elif limit is not None and value > limit:
        yield Finding(
            join_pointer(node.pointer, "maxItems"),
            f"`maxItems: {int(value)}` is large (over {limit})",
            "lower the bound, or paginate the output",
            variant="large",
        )
