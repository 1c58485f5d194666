"""size/*: nesting depth and the provider size budgets (limits come from the profile)."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.registry import document_rule
from gramwright.pointer import join_pointer
from gramwright.schema.depth import MAX_SCHEMA_DEPTH


@document_rule(
    "size/nesting-depth",
    what="Instance nesting (objects/arrays inside each other) deeper than the profile's limits: a soft "
    "limit (warn; 4 levels by default) and the target's hard limit (error; OpenAI 10, "
    "formerly 5); and a schema nested deeper than gramwright reads at all (error; 128 subschemas inside "
    "subschemas, 264 levels of JSON: docs/limits.md).",
    why="Providers reject deep schemas; deep optional nesting multiplies grammar size, and small models "
    "lose track of where they are.",
    anchors="seed 004, OAI doc",
    default="warn",
    variants={"limit": "error"},
    limits=("max_nesting_depth", "nesting_depth_warn"),
)
def nesting_depth(ctx: LintContext) -> Iterator[Finding]:
    depth, deepest = ctx.schema_depth
    if depth > MAX_SCHEMA_DEPTH:
        yield Finding(
            deepest,
            f"subschemas nested {depth} levels deep: gramwright compiles up to {MAX_SCHEMA_DEPTH} "
            "(compile, check and generate refuse this schema)",
            "flatten the nesting: real-world schemas stay under 30 levels (see docs/limits.md)",
            variant="limit",
        )
    info = ctx.depth
    hard = ctx.profile.int_limit("max_nesting_depth")
    soft = ctx.profile.int_limit("nesting_depth_warn")
    pointer = info.path[-1].pointer if info.path else ""
    note = " (one unrolling of the recursion)" if info.recursive else ""
    if hard is not None and info.depth > hard:
        yield Finding(
            pointer,
            f"nesting depth {info.depth}{note} exceeds the target's limit of {hard}",
            "flatten the structure or split the request",
            variant="limit",
        )
    elif soft is not None and info.depth > soft:
        yield Finding(
            pointer,
            f"nesting depth {info.depth}{note} is over {soft} levels",
            "flatten nested objects (or split into several calls)",
        )


@document_rule(
    "size/total-properties",
    what="More object properties in the whole schema than the target allows (OpenAI 5000, formerly 100).",
    why="The provider rejects the schema.",
    anchors="OAI doc",
    default="error",
    limits=("max_total_properties",),
)
def total_properties(ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("max_total_properties")
    if limit is None:
        return
    total = sum(
        len(n.obj["properties"]) for n in ctx.index.nodes if isinstance(n.obj.get("properties"), dict)
    )
    if total > limit:
        yield Finding("", f"{total} object properties in total (limit {limit})", "split the schema")


@document_rule(
    "size/total-string-chars",
    what="Property names, definition names, enum and const values longer in total than the target allows "
    "(OpenAI 120,000 characters, formerly 15,000).",
    why="The provider rejects the schema.",
    anchors="OAI doc",
    default="error",
    limits=("max_total_string_chars",),
)
def total_string_chars(ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("max_total_string_chars")
    if limit is None:
        return
    total = 0
    for n in ctx.index.nodes:
        obj = n.obj
        if isinstance(obj.get("properties"), dict):
            total += sum(len(k) for k in obj["properties"])
        for key in ("$defs", "definitions"):
            if isinstance(obj.get(key), dict):
                total += sum(len(k) for k in obj[key])
        if isinstance(obj.get("enum"), list):
            total += sum(len(str(v)) for v in obj["enum"] if not isinstance(v, dict | list))
        if isinstance(obj.get("const"), str):
            total += len(obj["const"])
    if total > limit:
        yield Finding(
            "",
            f"{total} characters of names and values (limit {limit})",
            "shorten names, drop unused definitions, move large enums to a retrieval step",
        )


@document_rule(
    "size/enum-values",
    what="More enum values in the whole schema than the target allows (OpenAI 1000, formerly 500).",
    why="The provider rejects the schema.",
    anchors="OAI doc",
    default="error",
    limits=("max_enum_values",),
)
def enum_values(ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("max_enum_values")
    if limit is None:
        return
    total = sum(len(n.obj["enum"]) for n in ctx.index.nodes if isinstance(n.obj.get("enum"), list))
    if total > limit:
        yield Finding(
            "", f"{total} enum values in total (limit {limit})", "move large enums to a retrieval step"
        )


@document_rule(
    "size/large-string-enum",
    what="One string enum with more values than the target's threshold whose values are longer in total than "
    "it allows (OpenAI: over 250 values, 15,000 characters; formerly 7,500).",
    why="The provider rejects the schema.",
    anchors="OAI doc",
    default="error",
    limits=("large_string_enum_count",),
)
def large_string_enum(ctx: LintContext) -> Iterator[Finding]:
    count = ctx.profile.int_limit("large_string_enum_count")
    chars = ctx.profile.int_limit("large_string_enum_chars")
    if count is None or chars is None:
        return
    for n in ctx.index.nodes:
        values = n.obj.get("enum")
        if not isinstance(values, list):
            continue
        strings = [v for v in values if isinstance(v, str)]
        size = sum(len(v) for v in strings)
        if len(strings) > count and size > chars:
            yield Finding(
                join_pointer(n.pointer, "enum"),
                f"{len(strings)} string values of {size} characters (limit {chars} above {count} values)",
                "shorten the values or retrieve candidates first",
            )
