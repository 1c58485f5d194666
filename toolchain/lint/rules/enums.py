"""enum/*, size/enum-large, schema/dynamic-enum: enumerations as grammars see them."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding, Fix
from gramwright.lint.facts import canonical, declared_types, short, value_has_type
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix in code points (a "character" here is what the user reads)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _enum(node: Node) -> list[Any] | None:
    value = node.obj.get("enum")
    return value if isinstance(value, list) else None


@node_rule(
    "enum/duplicate",
    on=("enum",),
    what="Repeated `enum` values (JSON equality: `1` equals `1.0`).",
    why="Wasted alternatives in the grammar, and usually a sign of an intent bug (a value meant to differ).",
    anchors="SPC duplicated-entry-in-enum, SM duplicate_enum_values",
    default="warn",
    fixable=True,
)
def duplicate(node: Node, ctx: LintContext) -> Iterator[Finding]:
    values = _enum(node)
    if not values:
        return
    seen: dict[str, int] = {}
    dupes: list[Any] = []
    unique: list[Any] = []
    for v in values:
        key = canonical(v)
        if key in seen:
            dupes.append(v)
        else:
            seen[key] = 1
            unique.append(v)
    if dupes:
        pointer = join_pointer(node.pointer, "enum")
        shown = ", ".join(short(v) for v in dupes[:5])
        fix = Fix("drop the repeated values", ({"op": "replace", "path": pointer, "value": unique},))
        yield Finding(pointer, f"repeated enum values: {shown}", "remove the repeats", fix=fix)


@node_rule(
    "enum/type-mismatch",
    on=("enum", "const"),
    what="`enum`/`const` values that the subschema's `type` does not allow.",
    why="Those alternatives can never validate: an unsatisfiable branch, and the grammar and the validator "
    "disagree about them.",
    anchors="SPC typed-enum, SM enum_with_type",
    default="error",
)
def type_mismatch(node: Node, ctx: LintContext) -> Iterator[Finding]:
    types = declared_types(node.obj)
    if types is None:
        return
    values = _enum(node) or []
    bad = [v for v in values if not value_has_type(v, types)]
    if bad:
        shown = ", ".join(short(v) for v in bad[:5])
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"enum values not of type {sorted(types)}: {shown}",
            "fix the values or the `type`",
        )
    if "const" in node.obj and not value_has_type(node.obj["const"], types):
        yield Finding(
            join_pointer(node.pointer, "const"),
            f"const {short(node.obj['const'])} is not of type {sorted(types)}",
            "fix the value or the `type`",
        )


@node_rule(
    "enum/complex-values",
    on=("enum", "const"),
    what="Objects or arrays as `enum`/`const` values.",
    why="Anthropic rejects them; they are also hard to keep in sync with the surrounding schema.",
    anchors="ANT doc",
    default="info",
)
def complex_values(node: Node, ctx: LintContext) -> Iterator[Finding]:
    values = list(_enum(node) or [])
    if "const" in node.obj:
        values.append(node.obj["const"])
    if any(isinstance(v, dict | list) for v in values):
        yield Finding(
            node.pointer,
            "object or array values in `enum`/`const`",
            "use scalar values (e.g. an id) and map them in code",
        )


@node_rule(
    "enum/case-collision",
    on=("enum",),
    what="String `enum` values that differ only in letter case.",
    why="Anthropic does not guarantee the case of enum/const output; downstream code compares exact strings.",
    anchors="ANT doc",
    default="info",
)
def case_collision(node: Node, ctx: LintContext) -> Iterator[Finding]:
    groups: dict[str, list[str]] = {}
    for v in _enum(node) or []:
        if isinstance(v, str):
            groups.setdefault(v.casefold(), []).append(v)
    clashes = [g for g in groups.values() if len(set(g)) > 1]
    if clashes:
        shown = "; ".join(" / ".join(short(v) for v in sorted(set(g))) for g in clashes[:3])
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"values differ only in case: {shown}",
            "keep one spelling per value",
        )


@node_rule(
    "enum/single",
    on=("enum",),
    what="An `enum` with exactly one value.",
    why="`const` says the same thing more clearly and compiles to a single literal.",
    anchors="SM enum_to_const",
    default="info",
    fixable=True,
)
def single(node: Node, ctx: LintContext) -> Iterator[Finding]:
    values = _enum(node)
    if values is not None and len(values) == 1 and "const" not in node.obj:
        fix = Fix(
            "replace the one-value enum with const",
            (
                {"op": "remove", "path": join_pointer(node.pointer, "enum")},
                {"op": "add", "path": join_pointer(node.pointer, "const"), "value": values[0]},
            ),
        )
        yield Finding(
            join_pointer(node.pointer, "enum"), f"one-value enum {short(values[0])}", "use `const`", fix=fix
        )


@node_rule(
    "enum/empty",
    on=("enum",),
    what="`enum: []`.",
    why="No value is allowed: the subschema is unsatisfiable and decoding deadlocks if it is reached.",
    anchors="SM forbid_empty_enum",
    default="error",
)
def empty(node: Node, ctx: LintContext) -> Iterator[Finding]:
    if _enum(node) == []:
        yield Finding(
            join_pointer(node.pointer, "enum"),
            "empty enum: nothing can be generated here",
            "list the allowed values, or remove the property",
        )


@node_rule(
    "enum/prefix-overlap",
    on=("enum",),
    what="String `enum` values where one is a prefix of another, or that share a long common prefix "
    '("待客户确认" / "待客户补充材料").',
    why="After the shared prefix the engine must keep the state across token boundaries that split the "
    "values differently; a regression-test category for masks (and for the model's choice).",
    anchors="seed 004",
    default="info",
)
def prefix_overlap(node: Node, ctx: LintContext) -> Iterator[Finding]:
    min_chars = ctx.profile.int_limit("enum_prefix_min_chars") or 3
    values = sorted({v for v in _enum(node) or [] if isinstance(v, str)})
    pairs: list[tuple[str, str]] = []
    for a, b in itertools.pairwise(values):
        common = _common_prefix(a, b)
        if (a and b.startswith(a)) or (common >= min_chars and common * 2 >= min(len(a), len(b))):
            pairs.append((a, b))
    if pairs:
        shown = ", ".join(f"{short(a, 24)} / {short(b, 24)}" for a, b in pairs[:3])
        more = f" (+{len(pairs) - 3} more)" if len(pairs) > 3 else ""
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"enum values overlap at the start: {shown}{more}",
            "add a mask regression test for these values; consider distinct leading words",
        )


@node_rule(
    "size/enum-large",
    on=("enum",),
    what="An `enum` so large it should become a two-stage choice.",
    why="A huge alternation is slow to compile and mask, and the model chooses badly among hundreds of "
    "options: retrieve candidates first, then constrain to the shortlist.",
    anchors="seed 000 §25.5, §16.3",
    default="warn",
    limits=("enum_two_stage",),
)
def enum_large(node: Node, ctx: LintContext) -> Iterator[Finding]:
    limit = ctx.profile.int_limit("enum_two_stage")
    values = _enum(node) or []
    if limit is not None and len(values) > limit:
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"enum of {len(values)} values (more than {limit})",
            "two stages: retrieve the top candidates, then constrain the enum to them",
        )


_ID_LIKE = re.compile(
    r"^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"  # UUID
    r"|[0-9a-fA-F]{12,}"  # hashes
    r"|\d{5,}"  # numeric ids
    r"|[A-Za-z]{1,10}[-_:#]?\d{3,}"  # PRJ-00123, user_1234
    r"|[0-9A-HJKMNP-TV-Z]{26})$"  # ULID
)
_DYNAMIC_HINT = re.compile(
    r"^x-.*(?:dynamic|per[-_]?request|lookup|(?:enum|options|values|choices)[-_]?(?:source|from|provider|endpoint))",
    re.IGNORECASE,
)


@node_rule(
    "schema/dynamic-enum",
    on=None,
    what="An enum that looks per-request: an `x-` hint (`x-dynamic-enum`, `x-enum-source`, …) or a large "
    "enum of id-like values.",
    why="A schema that changes per request defeats grammar caching (compile on every call); ids belong in a "
    "retrieval step.",
    anchors="seeds 000 §9.3, 003 §3.6",
    default="warn",
)
def dynamic_enum(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in node.obj:
        if key.startswith("x-") and _DYNAMIC_HINT.match(key):
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` marks a per-request enum",
                "keep the schema static: constrain to a retrieved shortlist in a second step",
            )
            return
    values = _enum(node)
    min_values = ctx.profile.int_limit("dynamic_enum_min_values")
    ratio = ctx.profile.limit("dynamic_enum_id_ratio")
    if not values or min_values is None or ratio is None or len(values) < min_values:
        return
    ids = sum(
        1 for v in values if isinstance(v, str | int) and not isinstance(v, bool) and _ID_LIKE.match(str(v))
    )
    if ids >= ratio * len(values):
        yield Finding(
            join_pointer(node.pointer, "enum"),
            f"{ids} of {len(values)} enum values look like ids",
            "look the ids up at request time instead of baking them into the schema",
        )
