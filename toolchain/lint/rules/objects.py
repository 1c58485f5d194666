"""object/*, root/*: object shapes providers reject and grammars pay for."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding, Fix
from gramwright.lint.facts import declared_types, is_object, required_names
from gramwright.lint.registry import document_rule, node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer


def _optional(node: Node) -> list[str]:
    props = node.obj.get("properties")
    if not isinstance(props, dict):
        return []
    required = set(required_names(node.obj))
    return [p for p in props if p not in required]


@document_rule(
    "root/not-object",
    what="The root schema is not `type: object`, or is an `anyOf`/`oneOf`.",
    why="OpenAI strict mode rejects it; a top-level union also makes every output start ambiguous.",
    anchors="OAI doc",
    default="info",
)
def root_not_object(ctx: LintContext) -> Iterator[Finding]:
    root = ctx.deref(ctx.root)
    for key in ("anyOf", "oneOf"):
        if key in ctx.root.obj or key in root.obj:
            yield Finding(
                join_pointer("", key),
                f"the root is an `{key}`",
                'wrap the union in an object property: {"type": "object", "properties": '
                '{"result": {"anyOf": [...]}}}',
            )
            return
    types = declared_types(root.obj)
    if types != frozenset({"object"}):
        shown = "no `type`" if types is None else f"`type: {sorted(types)}`"
        yield Finding("", f"the root has {shown}, not `type: object`", "make the root an object")


@node_rule(
    "object/additional-properties-missing",
    on=("type", "properties"),
    what="An object without an explicit `additionalProperties: false`.",
    why="OpenAI and Anthropic reject it; llama.cpp treats a missing `additionalProperties` as false while "
    "the spec says true, so the grammar and a validator disagree about the same schema. gramwright's "
    "generation closes such an object (no undeclared members, unless `--open-objects` or `x-runtime` "
    "`open_objects: true`); `check`, `conformance` and the exports keep the spec's open default.",
    anchors="OAI/ANT doc, LCPP README, SM additional_properties_default",
    default="warn",
    fixable=True,
)
def additional_properties_missing(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    if node.via == "allOf" or not is_object(obj) or "$ref" in obj:
        return
    if "additionalProperties" in obj or "unevaluatedProperties" in obj:
        return
    if "properties" not in obj and "patternProperties" not in obj:
        return
    fix = Fix(
        "close the object",
        ({"op": "add", "path": join_pointer(node.pointer, "additionalProperties"), "value": False},),
    )
    yield Finding(
        node.pointer or "",
        "object does not say `additionalProperties: false` (gramwright's generation closes it; "
        "the spec, `check` and other engines keep it open)",
        'add `"additionalProperties": false` so every engine and validator agree',
        fix=fix,
    )


@node_rule(
    "object/additional-properties-open",
    on=("additionalProperties",),
    what="`additionalProperties: true` or a schema (an open map).",
    why="Rejected by OpenAI and Anthropic; the model invents key names (hallucination-prone, slow grammars); "
    "llama.cpp may emit keys containing raw newlines.",
    anchors="LCPP README",
    default="warn",
)
def additional_properties_open(node: Node, ctx: LintContext) -> Iterator[Finding]:
    value = node.obj["additionalProperties"]
    if value is False:
        return
    what = "true" if value is True or value == {} else "a schema"
    yield Finding(
        join_pointer(node.pointer, "additionalProperties"),
        f"`additionalProperties` is {what}: the model chooses the key names",
        "list the keys in `properties`, or model the map as an array of {key, value} objects",
    )


@node_rule(
    "object/optional-property",
    on=("properties",),
    what="A property not listed in `required`.",
    why="OpenAI strict rejects it (make it required and nullable instead); each optional property roughly "
    "doubles Anthropic's grammar state.",
    anchors="OAI doc, ANT doc",
    default="off",
)
def optional_property(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for name in _optional(node):
        yield Finding(
            join_pointer(node.pointer, "properties", name),
            f"property `{name}` is optional",
            'list it in `required` and allow null (`"type": [T, "null"]`)',
        )


@node_rule(
    "object/optional-explosion",
    on=("properties",),
    what="An object with many optional properties.",
    why="Each optional property roughly doubles the branches of the object's automaton (present/absent, "
    "in order), and the model must decide on each one.",
    anchors="seed 003 §2.3",
    default="warn",
    limits=("optional_properties_warn",),
)
def optional_explosion(node: Node, ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("optional_properties_warn")
    optional = _optional(node)
    if limit is not None and len(optional) > limit:
        yield Finding(
            node.pointer,
            f"{len(optional)} optional properties (more than {limit})",
            "make most of them required and nullable, or split the object",
        )


@document_rule(
    "size/optional-budget",
    what="More optional properties in the whole schema than the target allows.",
    why="Anthropic rejects schemas over its optional-parameter budget (24 across strict schemas).",
    anchors="ANT doc table",
    default="error",
    limits=("max_optional_properties",),
)
def optional_budget(ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("max_optional_properties")
    if limit is None:
        return
    total = sum(len(_optional(n)) for n in ctx.index.nodes if n.index in ctx.reachable)
    if total > limit:
        yield Finding(
            "",
            f"{total} optional properties in total (limit {limit})",
            "make properties required and nullable",
        )


@node_rule(
    "object/min-max-properties",
    on=("minProperties", "maxProperties"),
    what="`minProperties`/`maxProperties` on an object whose properties are not all required.",
    why="A grammar must count the properties it emitted: llguidance rejects it; OpenAI does not list it.",
    anchors="LLG compiler.rs",
    default="warn",
)
def min_max_properties(node: Node, ctx: LintContext) -> Iterator[Finding]:
    props = node.obj.get("properties")
    closed = node.obj.get("additionalProperties") is False
    if isinstance(props, dict) and closed and not _optional(node):
        return
    for key in ("minProperties", "maxProperties"):
        if key in node.obj:
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` needs counting across optional properties",
                "express it with `required` instead",
            )


@node_rule(
    "object/pattern-properties",
    on=("patternProperties",),
    what="`patternProperties`.",
    why="llama.cpp has no support (drops it), llguidance needs disjoint patterns, OpenAI rejects it.",
    anchors="LCPP, LLG, OAI doc",
    default="warn",
)
def pattern_properties(node: Node, ctx: LintContext) -> Iterator[Finding]:
    yield Finding(
        join_pointer(node.pointer, "patternProperties"),
        "`patternProperties` lets the model invent keys",
        "list the expected keys in `properties`",
    )
