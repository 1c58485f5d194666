"""runtime/x-runtime: the schema's ``x-runtime`` block, read exactly as the pipeline reads it.

The pipeline's :func:`~gramwright.pipeline.policy.parse_runtime` is the one reader, so a key the
linter accepts is a key the pipeline uses: unknown keys (the pipeline ignores them, with a note)
warn, invalid values (the pipeline refuses to run) are errors, and ``mask_cache: false`` (masks are
always cached) is info.
"""

from __future__ import annotations

from collections.abc import Iterator

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.registry import document_rule

_HINTS = {
    "unknown": "known keys: decode_mode, mask_cache, retry {max, feedback_on_fail}, max_attempts, budget "
    "{tokens, seconds, max_tokens}, partial_ok, allow_degrade, high_risk, fallback, open_objects "
    "(docs/pipeline.md)",
    "invalid": "the pipeline refuses to run with this value (docs/pipeline.md, x-runtime keys)",
    "no-effect": "remove the key",
}


@document_rule(
    "runtime/x-runtime",
    what="An `x-runtime` key the pipeline does not know (warn), a value it refuses (error), or a setting "
    "with no effect (info).",
    why="An unknown key is ignored by the pipeline: a misspelt `partail_ok` or `retries` would silently "
    "leave the default policy in force. An invalid value stops every call at run time.",
    anchors="seed 004 x-runtime block, ARCHITECTURE three-layer pipeline",
    default="warn",
    variants={"invalid": "error", "no-effect": "info"},
)
def runtime_block(ctx: LintContext) -> Iterator[Finding]:
    if not isinstance(ctx.schema, dict) or "x-runtime" not in ctx.schema:
        return
    from gramwright.pipeline.policy import parse_runtime

    _, problems = parse_runtime(ctx.schema["x-runtime"])
    for problem in problems:
        variant = "" if problem.kind == "unknown" else problem.kind
        yield Finding(problem.pointer, problem.message, _HINTS[problem.kind], variant=variant)
