"""From attempts to one :class:`StructuredResult`: ``ok`` straight from layer 2, or layer 3's
decision — ``partial``, ``degraded`` or ``failed`` — from the best attempt and the policy.

The invariants live here, in one place: ``ok`` only for a complete (not cut) attempt that
validates and passes every ``error`` rule; ``partial`` only for a salvaged value that validates
with every required member in place, from a complete attempt, with nothing computed; a cut is at
best ``degraded``; with salvage off (``fallback: none``, ``high_risk``) nothing but ``ok`` or
``failed``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gramwright.pipeline.judge import Judged, warn_rules
from gramwright.pipeline.policy import Policy
from gramwright.pipeline.result import (
    Attempt,
    Dropped,
    ResultError,
    Status,
    StructuredResult,
    confidence,
    count_leaves,
)
from gramwright.pipeline.rules import RuleSet
from gramwright.pipeline.salvage import salvage

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["conclude", "succeed"]


def succeed(
    judged: Judged, attempts: list[Attempt], rules: RuleSet | None, *, layer: int, policy: Policy
) -> StructuredResult:
    assert judged.ok, "only a complete, valid attempt is ok"
    result = StructuredResult(
        judged.value, "ok", layer, attempts, [], 0.0, False, "valid", warnings=warn_rules(rules, judged.value)
    )
    return _finish(result, judged, policy, leaves=(1, 1), passes=(True, True))


def conclude(
    best: Judged | None,
    attempts: list[Attempt],
    *,
    policy: Policy,
    schema: Any,
    registry: SchemaRegistry | None,
    rules: RuleSet | None,
    cause: str,
    cause_error: ResultError | None,
    source_text: str | None = None,
) -> StructuredResult:
    """Layer 3 (when the policy allows it), else ``failed``; the cause is always recorded."""
    errors = list(best.errors) if best else []
    if cause_error is not None:
        errors.append(cause_error)
    failed = StructuredResult(None, "failed", None, attempts, errors, 0.0, False, cause)
    if best is None or best.value is None or not policy.salvage:
        return _finish(failed, best, policy, leaves=(1, 1), passes=(False, False))
    reading_cut = best.reading is not None and best.reading.truncated
    source = next((a for a in attempts if a.index == best.index), None)
    kept = salvage(
        best.value,
        schema,
        registry=registry,
        rules=rules,
        cut=reading_cut,
        # the rules' fallback block is itself the opt-in to computed members: it applies whenever
        # layer 3 runs, not only when the fallback is also named rule_engine
        fill=bool(rules and rules.fills),
        budget_cut=source.cut if source is not None and source.closed_by_budget else (),
        source_text=source_text,
    )
    dropped = (
        [Dropped(best.cut_at, "being written when the output was cut (not kept)")] if best.cut_at else []
    )
    dropped += kept.dropped
    partial = (
        kept.valid
        and not best.cut
        and not kept.required_lost
        and not kept.elements_dropped
        and not kept.filled
        and policy.may_be_partial
    )
    # content_errors checks rules only on a schema-valid value: rule errors alone mean the schema passed
    schema_ok = kept.valid or all(e.keyword == "rule" for e in kept.errors)
    status: Status
    if partial:
        status, degraded = "partial", False
    elif (policy.may_degrade or kept.filled) and schema_ok and kept.value not in (None, {}, []):
        # degraded still lacks nothing the schema requires: a value missing a required member, or
        # failing the schema anywhere, is not returned as a value (the result is failed)
        status, degraded = "degraded", True
    else:
        failed.dropped = dropped
        return _finish(failed, best, policy, leaves=(1, 1), passes=(False, False))
    result = StructuredResult(
        kept.value,
        status,
        3,
        attempts,
        errors + [e for e in kept.errors if e not in errors],
        0.0,
        degraded,
        cause,
        warnings=warn_rules(rules, kept.value),
        dropped=dropped,
        filled=kept.filled,
    )
    leaves = (count_leaves(best.value), count_leaves(kept.value))
    return _finish(result, best, policy, leaves=leaves, passes=(schema_ok, kept.valid))


def _finish(
    result: StructuredResult,
    judged: Judged | None,
    policy: Policy,
    *,
    leaves: tuple[int, int],
    passes: tuple[bool, bool],
) -> StructuredResult:
    if judged is not None and judged.reading is not None:
        result.reading = judged.reading.to_dict()
        result.repaired = judged.reading.repaired
    result.source_attempt = judged.index if judged is not None else None
    result.needs_review = policy.fallback == "flag_for_review" and result.status != "ok"
    result.confidence = confidence(result, leaves_before=leaves[0], leaves_after=leaves[1])
    result.metrics = _metrics(result, *passes)
    return result


def _metrics(result: StructuredResult, schema_pass: bool, rules_pass: bool) -> dict[str, Any]:
    attempts = result.attempts
    first = attempts[0] if attempts else None
    masses = [a.clipped_mass for a in attempts if a.clipped_mass is not None]
    seconds = result.seconds
    return {
        "attempts": len(attempts),
        "format_first_pass": bool(first and first.parsed and first.finish_reason == "stop"),
        "schema_pass": schema_pass,  # the returned value validates against the schema
        "rules_pass": rules_pass,  # … and passes every error rule
        "repaired": result.repaired,
        "partial": result.status == "partial",
        "degraded": result.degraded,
        "clipped_mass_avg": round(sum(masses) / len(masses), 4) if masses else None,
        "output_tokens": result.output_tokens,
        "prompt_tokens": result.prompt_tokens,
        "seconds": round(seconds, 4),
        "tokens_per_s": round(result.output_tokens / seconds, 2) if seconds else None,
        "finish_reasons": [a.finish_reason for a in attempts],
        # attempts the masks closed early as their token limit neared (complete, values cut short)
        "budget_closes": sum(a.closed_by_budget for a in attempts),
        "first_budget_closed": bool(first and first.closed_by_budget),
    }
