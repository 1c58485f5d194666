"""Layers 2–3 for outputs made elsewhere (a hosted API, an unconstrained run): ``gramwright validate``.

There is no model to retry with, so the text is one attempt: read (extraction, repair only when it
does not parse — logged), validated with the schema and the rules, then salvaged by the policy.
A value that validates as read is ``ok`` at layer 2 (``repaired`` says whether json-repair
changed it); a text that was cut (``finish_reason=length`` given, or it ends mid-value) is never
``ok``.
"""

from __future__ import annotations

from typing import Any

from gramwright.pipeline.judge import judge_text
from gramwright.pipeline.outcome import conclude, succeed
from gramwright.pipeline.policy import Policy
from gramwright.pipeline.result import Attempt, StructuredResult
from gramwright.pipeline.retry import RulesArg, resolve_rules
from gramwright.sources import CompiledSource, load_source

__all__ = ["validate_text"]


def validate_text(
    text: str,
    source: str | CompiledSource,
    *,
    rules: RulesArg = None,
    policy: Policy | None = None,
    finish_reason: str = "stop",
    **overrides: Any,
) -> StructuredResult:
    compiled = source if isinstance(source, CompiledSource) else load_source(source)
    policy = (policy or Policy.from_schema(compiled.schema)).with_overrides(**overrides)
    ruleset = resolve_rules(rules, compiled.schema)
    judged = judge_text(
        text,
        finish_reason,
        index=0,
        schema=compiled.schema,
        registry=compiled.registry,
        rules=ruleset,
        made_with_mask=False,
    )
    attempt = Attempt(0, 0, 0, 0.0, finish_reason, text, 0, list(judged.errors), judged.parsed, judged.ok)
    if judged.ok:
        return succeed(judged, [attempt], ruleset, layer=2, policy=policy)
    cause = "truncated" if judged.cut else "invalid"
    return conclude(
        judged,
        [attempt],
        policy=policy,
        schema=compiled.schema,
        registry=compiled.registry,
        rules=ruleset,
        cause=cause,
        cause_error=None,
    )
