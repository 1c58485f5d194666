"""grounded/*: ``x-grounded`` members (values copied from a source text) and what they cannot meet.

A grounded value is a substring of the source, or a number written in it (see
``gramwright.schema.grounding``): keywords that narrow a value by its *form* cannot be combined
with that, because the grammar draws from whatever the source holds.
"""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import declared_types
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_GROUNDABLE = frozenset({"string", "number", "integer", "array", "null"})


@node_rule(
    "grounded/conflict",
    on=("x-grounded",),
    what="`x-grounded` beside a keyword it cannot satisfy together: a `pattern` or `format` (the "
    "source's substrings are not narrowed by them), a `minLength` above 1 (the source may hold no "
    "such run), `enum`/`const` (they win: nothing is grounded), a type that cannot be copied from "
    "text (object, boolean), or a value other than `true`/`false`.",
    why="A grounded value is copied from the source by construction; a keyword the source may not "
    "satisfy turns a correct copy into a validation failure and a retry, or leaves no value at all.",
    anchors="issue 38",
    default="warn",
)
def grounded_conflict(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    flag = obj["x-grounded"]
    here = join_pointer(node.pointer, "x-grounded")
    if not isinstance(flag, bool):
        yield Finding(here, "`x-grounded` is not a boolean", "write true or false")
        return
    if not flag:
        return
    for key in ("pattern", "format"):
        if key in obj:
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` beside `x-grounded`: a value copied from the source may not match it",
                f"drop `{key}` or `x-grounded`; validation checks `{key}` after generation",
            )
    min_len = obj.get("minLength")
    if isinstance(min_len, int) and not isinstance(min_len, bool) and min_len > 1:
        yield Finding(
            join_pointer(node.pointer, "minLength"),
            f"`minLength` {min_len} beside `x-grounded`: a source may hold no run that long",
            "use `minLength` 1 (non-empty) and let the source decide the length",
        )
    for key in ("enum", "const"):
        if key in obj:
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` beside `x-grounded`: the listed values win and nothing is grounded",
                f"drop `x-grounded` (or `{key}`)",
            )
    types = declared_types(obj)
    if types is not None and not types & (_GROUNDABLE - {"null"}):
        yield Finding(
            here,
            "`x-grounded` on a type that cannot be copied from text: " + ", ".join(sorted(types)),
            "ground the string, number or array members instead",
        )


@node_rule(
    "grounded/empty-source",
    on=("x-grounded",),
    what="A grounded member linted against a source text (`lint --source`) that is empty or blank.",
    why="A grounded value is copied from the source: an empty source leaves only the empty string, "
    "null, or nothing, so the request cannot be answered.",
    anchors="issue 38",
    default="warn",
)
def grounded_empty_source(node: Node, ctx: LintContext) -> Iterator[Finding]:
    text = ctx.options.source_text
    if node.obj["x-grounded"] is True and text is not None and not text.strip():
        yield Finding(
            join_pointer(node.pointer, "x-grounded"),
            "grounded member with an empty source text",
            "give the text the values are copied from",
        )
