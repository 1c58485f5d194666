"""string/*: lengths, patterns and formats — bounded, anchored, expressible, supported."""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.budget import FORMAT_MAX_BYTES
from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import declared_types, is_string
from gramwright.lint.regex import pattern_facts, regex_error
from gramwright.lint.registry import node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer


def _bounded_pattern(pattern: object) -> bool:
    if not isinstance(pattern, str):
        return False
    facts = pattern_facts(pattern)
    return facts.anchored and not facts.unbounded


@node_rule(
    "string/unbounded",
    on=("type", "pattern", "minLength"),
    what="A string without `maxLength` (and without `enum`, `const`, a bounded `format` or a bounded, "
    "anchored `pattern`).",
    why="Small models produce very long or endless strings and the decoder cannot force the closing quote; "
    "the token budget cannot be estimated.",
    anchors="Specmatic string-max-length-or-enum; LCPP char{0,N}; seeds 000 §25.4, 001",
    default="info",
)
def string_unbounded(node: Node, ctx: LintContext) -> Iterator[Finding]:
    obj = node.obj
    types = declared_types(obj)
    if node.via == "propertyNames" or not is_string(obj) or (types is not None and "string" not in types):
        return
    if any(k in obj for k in ("maxLength", "enum", "const", "$ref")):
        return
    fmt = obj.get("format")
    if (isinstance(fmt, str) and fmt in FORMAT_MAX_BYTES) or _bounded_pattern(obj.get("pattern")):
        return
    yield Finding(node.pointer, "string without `maxLength`", "add `maxLength` (or an `enum`/`const`)")


@node_rule(
    "string/length-unsupported",
    on=("minLength", "maxLength"),
    what="`minLength`/`maxLength`.",
    why="Anthropic rejects them, OpenAI's fine-tuned models reject them, Gemini ignores them.",
    anchors="ANT/OAI/GEM doc",
    default="off",
)
def length_unsupported(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in ("minLength", "maxLength"):
        if key in node.obj:
            yield Finding(
                join_pointer(node.pointer, key),
                f"`{key}` is not enforced by this target",
                "state the length in the description and check it after generation",
            )


@node_rule(
    "string/pattern-unanchored",
    on=("pattern",),
    what="A `pattern` not written as `^…$`.",
    why="JSON Schema patterns *search*; grammar engines *match the whole string* (llguidance always "
    "anchors, llama.cpp requires anchors): the same pattern means two different things.",
    anchors="LCPP README, ANT full and partial matching",
    default="warn",
)
def pattern_unanchored(node: Node, ctx: LintContext) -> Iterator[Finding]:
    pattern = node.obj["pattern"]
    if not isinstance(pattern, str) or regex_error(pattern):
        return
    if not pattern_facts(pattern).anchored:
        yield Finding(
            join_pointer(node.pointer, "pattern"),
            f"pattern {pattern!r} is not anchored",
            "write `^…$` for a full match, or `^.*(…).*$` if a search is really meant",
        )


@node_rule(
    "string/pattern-unsupported-regex",
    on=("pattern",),
    what="Regex features grammars cannot express: backreferences, lookaround, `\\b`, huge `{n,m}` bounds.",
    why="llguidance cannot do lookarounds, Anthropic rejects these features, and large repetition bounds "
    "blow up the automaton.",
    anchors="LLG doc, ANT doc",
    default="warn",
    variants={"large-repeat": "warn"},
)
def pattern_unsupported(node: Node, ctx: LintContext) -> Iterator[Finding]:
    pattern = node.obj["pattern"]
    if not isinstance(pattern, str):
        return
    facts = pattern_facts(pattern)
    pointer = join_pointer(node.pointer, "pattern")
    for flag, variant, what in (
        (facts.lookaround, "lookaround", "a lookaround"),
        (facts.backreference, "backreference", "a backreference"),
        (facts.word_boundary, "word-boundary", "a word boundary (`\\b`)"),
    ):
        if flag:
            yield Finding(
                pointer,
                f"pattern uses {what}, which no regular grammar expresses",
                "rewrite without it, or check after generation",
                variant=variant,
            )
    limit = ctx.profile.int_limit("pattern_repeat_large")
    if limit is not None and facts.max_repeat > limit:
        yield Finding(
            pointer,
            f"pattern repeats up to {facts.max_repeat} times (over {limit})",
            "use `maxLength` for long bounds",
            variant="large-repeat",
        )


@node_rule(
    "string/format-unsupported",
    on=("format",),
    what="A `format` outside the target's supported set.",
    why="llguidance errors (`Unknown format`); the others ignore it, so the value is unchecked while "
    "generating.",
    anchors="LLG schema.rs, OAI/ANT/GEM doc, LCPP",
    default="warn",
)
def format_unsupported(node: Node, ctx: LintContext) -> Iterator[Finding]:
    fmt = node.obj["format"]
    supported = ctx.profile.formats
    if supported is None or not isinstance(fmt, str) or fmt in supported:
        return
    yield Finding(
        join_pointer(node.pointer, "format"),
        f"format `{fmt}` is not supported by {ctx.profile.name}",
        "use a `pattern`, or check the format after generation",
    )
