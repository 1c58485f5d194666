"""compile/*, size/grammar-budget: what *our* compiler reports about the schema.

These rules read the compile report of ``gramwright.schema.compile_schema``; with ``--no-compile``
they find nothing. A schema too deep to compile is ``size/nesting-depth``'s to report, not theirs.
"""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.registry import document_rule


@document_rule(
    "compile/uncompilable-keyword",
    what="Every keyword our compiler approximates or discards, with its JSON Pointer.",
    why="The grammar does not enforce it exactly: the value is checked after generation only (validation, "
    "repair, retry), so it can cost attempts.",
    anchors="seeds 000 §6, 001",
    default="warn",
    variants={"approximated": "info", "discarded": "warn"},
)
def uncompilable_keyword(ctx: LintContext) -> Iterator[Finding]:
    outcome = ctx.compiled
    if outcome is None or outcome.status != "ok":
        return
    for entry in outcome.entries:
        if entry.status not in ("approximated", "discarded"):
            continue
        reason = f": {entry.reason}" if entry.reason else ""
        yield Finding(
            entry.pointer,
            f"`{entry.keyword}` is {entry.status} by the compiler{reason}; "
            "it will be checked after generation only",
            "keep the validation layer on, or rewrite the constraint in a form the grammar expresses",
            variant=entry.status,
        )


@document_rule(
    "compile/error",
    what="Our compiler rejects the schema (unsatisfiable or unsupported), or crashes on it.",
    why="Nothing can be generated under a grammar for this schema.",
    anchors="ARCHITECTURE: an unsatisfiable schema is a compile-time error with a reason",
    default="error",
    variants={"crash": "warn", "timeout": "warn"},
)
def compile_error(ctx: LintContext) -> Iterator[Finding]:
    outcome = ctx.compiled
    if outcome is None:
        return
    if outcome.status == "rejected":
        yield Finding(
            outcome.error_pointer,
            f"the compiler rejects the schema: {outcome.error_reason}",
            "fix the subschema at this pointer",
        )
    elif outcome.status == "timeout":
        yield Finding(
            "",
            f"the compiler gave up: {outcome.error_reason}",
            "simplify the schema (large enums, unions, optional properties)",
            variant="timeout",
        )
    elif outcome.status == "crashed":
        yield Finding(
            "", f"the compiler crashed: {outcome.error_reason}", "please report this bug", variant="crash"
        )


@document_rule(
    "size/grammar-budget",
    what="The compiled grammar has more rules or more GBNF bytes than the profile's budget.",
    why='Stands in for provider complexity limits (Anthropic "too complex for compilation", llguidance '
    '"schema too large") and for our own mask-computation cost.',
    anchors="ANT doc, LLG shared_context.rs",
    default="warn",
    limits=("grammar_max_rules", "grammar_max_bytes"),
)
def grammar_budget(ctx: LintContext) -> Iterator[Finding]:
    outcome = ctx.compiled
    if outcome is None or outcome.status != "ok":
        return
    max_rules = ctx.profile.int_limit("grammar_max_rules")
    max_bytes = ctx.profile.int_limit("grammar_max_bytes")
    if max_rules is not None and outcome.grammar_rules is not None and outcome.grammar_rules > max_rules:
        yield Finding(
            "",
            f"the grammar has {outcome.grammar_rules} rules (budget {max_rules})",
            "shrink enums, unions and optional properties",
        )
    if max_bytes is not None and outcome.gbnf_bytes is not None and outcome.gbnf_bytes > max_bytes:
        yield Finding(
            "",
            f"the GBNF text is {outcome.gbnf_bytes} bytes (budget {max_bytes})",
            "shrink enums, unions and optional properties",
        )
