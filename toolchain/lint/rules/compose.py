"""compose/*, union/*, anyof/*: combinators that engines drop, reject or make ambiguous."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import canonical, declared_types
from gramwright.lint.registry import document_rule, node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_UNSUPPORTED = ("not", "if", "dependentRequired", "dependentSchemas", "dependencies")


@node_rule(
    "compose/unsupported",
    on=_UNSUPPORTED,
    what="`not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas` (or draft-07 `dependencies`).",
    why="No context-free grammar expresses them exactly: OpenAI rejects them, xgrammar and llama.cpp drop "
    "them silently, so the output can violate the schema while everything looks fine.",
    anchors="OAI doc, XGR json_schema_converter.cc, LCPP README",
    default="warn",
)
def unsupported(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in _UNSUPPORTED:
        if key in node.obj:
            shown = "if/then/else" if key == "if" else key
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{shown}` cannot be enforced by a grammar",
                "restructure with `anyOf` of explicit cases, or validate it after generation",
            )


@node_rule(
    "compose/allof",
    on=("allOf",),
    what="`allOf` (especially with `$ref` branches).",
    why="OpenAI rejects `allOf`; Anthropic rejects `allOf` with `$ref`; intersections are where engines "
    "approximate.",
    anchors="OAI/ANT doc, LLG doc",
    default="info",
    variants={"ref": "info"},
)
def all_of(node: Node, ctx: LintContext) -> Iterator[Finding]:
    branches = node.obj["allOf"] if isinstance(node.obj["allOf"], list) else []
    with_ref = any(isinstance(b, dict) and "$ref" in b for b in branches)
    yield Finding(
        join_pointer(node.pointer, "allOf"),
        "`allOf` with `$ref` branches" if with_ref else "`allOf` intersection",
        "merge the branches into one schema (flatten the intersection)",
        variant="ref" if with_ref else "",
    )


@node_rule(
    "compose/oneof",
    on=("oneOf",),
    what="`oneOf`.",
    why="Exclusivity is not enforceable by a grammar: xgrammar treats it as `anyOf`, llguidance rejects it "
    "unless told to coerce.",
    anchors="LLG compiler.rs, XGR json_schema_converter.cc",
    default="warn",
)
def one_of(node: Node, ctx: LintContext) -> Iterator[Finding]:
    yield Finding(
        join_pointer(node.pointer, "oneOf"),
        "`oneOf` is generated as `anyOf` (exclusivity unchecked)",
        "use `anyOf` with branches that exclude each other (distinct `const` tags)",
    )


@node_rule(
    "compose/properties-with-anyof",
    on=("anyOf", "oneOf"),
    what="`properties` and `anyOf`/`oneOf` in the same subschema.",
    why="llama.cpp's converter cannot mix them (issue #7703) and generates only one side.",
    anchors="LCPP README",
    default="off",
)
def properties_with_any_of(node: Node, ctx: LintContext) -> Iterator[Finding]:
    if "properties" in node.obj:
        key = "anyOf" if "anyOf" in node.obj else "oneOf"
        yield Finding(
            join_pointer(node.pointer, key),
            f"`properties` and `{key}` in one subschema",
            "move the shared properties into every branch",
        )


def _is_union(schema: dict[str, object]) -> bool:
    types = declared_types(schema)
    return "anyOf" in schema or "oneOf" in schema or (types is not None and len(types - {"null"}) > 1)


@document_rule(
    "union/too-many",
    what="More union-typed properties (`anyOf` or type arrays) than the target allows.",
    why="Anthropic rejects more than 16 union-typed parameters; unions multiply grammar states.",
    anchors="ANT doc table",
    default="error",
    limits=("max_union_properties",),
)
def too_many_unions(ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("max_union_properties")
    if limit is None:
        return
    unions = [n for n in ctx.property_nodes if n.index in ctx.reachable and _is_union(n.obj)]
    if len(unions) > limit:
        yield Finding(
            "",
            f"{len(unions)} union-typed properties (limit {limit})",
            "replace unions by one type, or by nullable types",
        )


def _tag(ctx: LintContext, branch: Node, key: str) -> str | None:
    """The branch's fixed value for ``key`` (``const`` or a one-value ``enum``), canonical JSON."""
    props = ctx.resolved_schema(branch).get("properties")
    sub = props.get(key) if isinstance(props, dict) else None
    if not isinstance(sub, dict):
        return None
    if "const" in sub:
        return canonical(sub["const"])
    enum = sub.get("enum")
    return canonical(enum[0]) if isinstance(enum, list) and len(enum) == 1 else None


def _first_key(ctx: LintContext, branch: Node) -> str | None:
    props = ctx.resolved_schema(branch).get("properties")
    if isinstance(props, dict) and props:
        return str(next(iter(props)))
    return None


@node_rule(
    "anyof/shared-first-key",
    on=("anyOf", "oneOf"),
    what="`anyOf` object branches whose first property is the same key.",
    why='The grammar cannot tell the branches apart at the first key; OpenAI answers 400 ("must not share '
    'identical first keys").',
    anchors="third-party report of an OAI error",
    default="warn",
    variants={"tagged": "info"},
)
def shared_first_key(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in ("anyOf", "oneOf"):
        branches = [c for c in node.children if c.via == key]
        firsts = [(k, b) for k, b in ((_first_key(ctx, b), b) for b in branches) if k is not None]
        names = [k for k, _ in firsts]
        dupes = sorted({k for k in names if names.count(k) > 1})
        if dupes:
            shown = ", ".join(f"`{k}`" for k in dupes)
            tags = [_tag(ctx, b, k) for k, b in firsts if k in dupes]
            if None not in tags and len(set(tags)) == len(tags):
                yield Finding(
                    join_pointer(node.pointer, key),
                    f"object branches start with the same key {shown}, told apart by distinct constants",
                    "the grammar disambiguates on the value; OpenAI still rejects identical first keys",
                    variant="tagged",
                )
                continue
            yield Finding(
                join_pointer(node.pointer, key),
                f"object branches start with the same key {shown}",
                "start each branch with a different key; at least make that key a distinct `const` tag",
            )
