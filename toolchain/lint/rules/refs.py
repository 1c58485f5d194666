"""ref/*, recursion/*, defs/*: where references point, and what they cost."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding, Fix
from gramwright.lint.registry import document_rule, node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_REF_NEUTRAL = frozenset(
    {
        "$ref",
        "$comment",
        "description",
        "title",
        "$id",
        "id",
        "$schema",
        "$defs",
        "definitions",
        "$anchor",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)


@node_rule(
    "ref/unresolvable",
    on=("$ref",),
    what="A local `$ref` whose target does not exist in the document.",
    why="The schema cannot be compiled; validators raise at the first instance that reaches it.",
    anchors="SM unknown_local_ref, CJS $ref failure",
    default="error",
)
def unresolvable(node: Node, ctx: LintContext) -> Iterator[Finding]:
    site = ctx.ref_by_node.get(node.index)
    if site is not None and site.kind == "unresolvable":
        yield Finding(
            site.pointer,
            f"`$ref: {site.ref}` cannot be resolved: {site.reason}",
            "point it at an existing definition (`#/$defs/Name`)",
        )


@node_rule(
    "ref/external",
    on=("$ref",),
    what="A `$ref` to another document (remote URL or file).",
    why="Anthropic, llguidance and llama.cpp's C++ converter never fetch it, and builds stop being offline "
    "and reproducible; gramwright reads a relative or `file://` reference from disk and fetches no URL.",
    anchors="ANT doc, LLG doc, LCPP README",
    default="warn",
)
def external(node: Node, ctx: LintContext) -> Iterator[Finding]:
    site = ctx.ref_by_node.get(node.index)
    if site is None or site.kind != "external":
        return
    if site.uri.startswith("file:"):
        # compile and check read a relative or file:// reference from disk (schema/resolve.py);
        # the engines and providers this warns for do not
        message = (
            f"`$ref: {site.ref}` points to another file{_file_path(site.ref, ctx.base_uri)}: gramwright "
            "reads it from disk, other engines and providers do not"
        )
    else:
        message = f"`$ref: {site.ref}` points to another document (not fetched: only local files are read)"
    yield Finding(site.pointer, message, "bundle the referenced schema into `$defs` and reference it locally")


def _file_path(ref: str, base_uri: str | None) -> str:
    """`` (/abs/path)`` of the file a reference reads, resolved against the schema file's URI
    (the index walks under a placeholder base); empty when the schema came from no file."""
    from urllib.parse import unquote, urldefrag, urljoin, urlsplit

    if not base_uri:
        return ""
    return f" ({unquote(urlsplit(urldefrag(urljoin(base_uri, ref))[0]).path)})"


@node_rule(
    "ref/siblings",
    on=("$ref",),
    what="Constraint keywords next to `$ref`.",
    why="Before 2019-09 they are ignored; from 2019-09 they intersect with the target. The OpenAI SDK "
    "inlines them, llguidance intersects, llama.cpp's nested-ref handling is buggy: engines disagree.",
    anchors="SPC no-$ref-siblings, SM draft_ref_siblings, openai _pydantic.py",
    default="warn",
    fixable=True,
)
def siblings(node: Node, ctx: LintContext) -> Iterator[Finding]:
    extra = [k for k in node.obj if k not in _REF_NEUTRAL and not k.startswith("x-")]
    if not extra:
        return
    names = ", ".join(f"`{k}`" for k in extra)
    if ctx.dialect.at_least("2019-09"):
        message = f"{names} beside `$ref` are intersected with the target here, but engines disagree on it"
    else:
        message = f"{names} beside `$ref` are ignored by {ctx.dialect.draft} validators"
    fix = None
    if "allOf" not in node.obj:
        ref = node.obj["$ref"]
        fix = Fix(
            "move the `$ref` into `allOf`",
            (
                {"op": "remove", "path": join_pointer(node.pointer, "$ref")},
                {"op": "add", "path": join_pointer(node.pointer, "allOf"), "value": [{"$ref": ref}]},
            ),
        )
    yield Finding(
        join_pointer(node.pointer, "$ref"), message, "wrap the `$ref` in `allOf: [{$ref}]`", fix=fix
    )


def _cycle_text(ctx: LintContext, refs: list[Node]) -> str:
    targets = [ctx.ref_target[n.index].pointer or "#" for n in refs]
    shown = ", ".join(dict.fromkeys(targets[:4]))
    return shown + (", …" if len(targets) > 4 else "")


@document_rule(
    "ref/recursive",
    what="A `$ref` cycle (a recursive schema).",
    why="Anthropic rejects recursive schemas; OpenAI accepts them; a grammar engine needs real recursion "
    "(a regex/DFA engine such as Outlines' cannot express it).",
    anchors="ANT doc, OAI doc",
    default="info",
)
def recursive(ctx: LintContext) -> Iterator[Finding]:
    for refs in ctx.cycles:
        for ref_node in refs:
            target = ctx.ref_target[ref_node.index].pointer or "#"
            yield Finding(
                join_pointer(ref_node.pointer, "$ref"),
                f"`$ref` to {target} closes a cycle",
                "unroll the recursion to a fixed depth if the target cannot recurse",
            )


@document_rule(
    "recursion/unbounded",
    what="A recursive `$ref` with no bound on the depth of the generated value.",
    why="A small model can nest without end; the token budget cannot be estimated and the output may be "
    "truncated mid-structure.",
    anchors="seeds 000 §6.2, 001",
    default="warn",
)
def recursion_unbounded(ctx: LintContext) -> Iterator[Finding]:
    for refs in ctx.cycles:
        first = refs[0]
        yield Finding(
            join_pointer(first.pointer, "$ref"),
            f"recursion through {_cycle_text(ctx, refs)} has no depth bound",
            "unroll it to the depth you need (copy the definition N levels, the last level without the "
            "recursive property), or make the recursive branch optional and bound it with `maxItems`",
        )


@document_rule(
    "defs/orphan",
    what="A `$defs`/`definitions` entry that no `$ref` reaches from the root.",
    why="It still counts toward provider size budgets (OpenAI's 120,000 characters) and compile time.",
    anchors="SM orphan_definitions, SPC oas3-unused-component",
    default="info",
    fixable=True,
)
def orphan(ctx: LintContext) -> Iterator[Finding]:
    reached = ctx.reachable
    for node in ctx.index.nodes:
        if not node.is_definition or node.index in reached:
            continue
        owner = node.parent
        if owner is not None and (owner.parent is None or owner.index in reached):
            fix = Fix(f"remove the unused definition `{node.key}`", ({"op": "remove", "path": node.pointer},))
            yield Finding(
                node.pointer,
                f"definition `{node.key}` is never referenced",
                "remove it, or reference it",
                fix=fix,
            )
