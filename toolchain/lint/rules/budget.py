"""budget/max-tokens: can the worst-case output fit the generation budget?"""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.registry import document_rule


@document_rule(
    "budget/max-tokens",
    what="The estimated maximum output tokens (worst-case instance, counted with the real tokenizer when one "
    "is given, else bytes/3.5) against `--max-tokens` (or the profile's `max_output_tokens`).",
    why="A truncated output (`finish_reason = length`) never parses: the budget must cover the worst case, "
    "or the schema must bound its strings and arrays.",
    anchors="seeds 000 §7, 001",
    default="warn",
    variants={"unbounded": "warn", "exceeds": "warn"},
)
def max_tokens(ctx: LintContext) -> Iterator[Finding]:
    budget = ctx.options.max_tokens or ctx.profile.int_limit("max_output_tokens")
    if budget is None:
        return
    est = ctx.token_estimate
    if est.tokens is None:
        yield Finding(
            est.unbounded_pointer,
            f"the worst-case output is unbounded ({est.unbounded_why}); max_tokens={budget} can truncate it",
            "bound strings (`maxLength`) and arrays (`maxItems`)",
            variant="unbounded",
        )
    elif est.tokens > budget:
        approx = "≈" if est.approximate else ""
        yield Finding(
            "",
            f"the worst-case output is {approx}{est.tokens} tokens ({est.counter}), over max_tokens={budget}",
            "raise max_tokens or lower `maxLength`/`maxItems`",
            variant="exceeds",
        )
