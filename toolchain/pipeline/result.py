"""What the pipeline returns: one :class:`StructuredResult` that says which layer produced the value,
what every attempt cost and why it failed (JSON Pointers), and how far to trust it.

``status``: ``ok`` (valid against the schema, every ``error`` rule passed, produced by a finished
attempt), ``partial`` (every required member valid; failed optional members dropped and listed),
``degraded`` (salvaged or computed by the rule engine; flagged), ``failed`` (no value).
``confidence`` is defined in :func:`confidence` and docs/pipeline.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from gramwright.validate import as_floats

if TYPE_CHECKING:
    from gramwright.schema.grounding import GroundedValue

__all__ = ["Attempt", "Dropped", "ResultError", "Status", "StructuredResult", "confidence"]

Status = Literal["ok", "partial", "degraded", "failed"]


@dataclass(frozen=True)
class ResultError:
    """One reason a value was rejected: a schema keyword or a rule, at a JSON Pointer."""

    pointer: str
    keyword: str  # the schema keyword, "json", "finish_reason", "budget", or "rule"
    message: str
    rule: str = ""  # the rule id when keyword == "rule"
    severity: str = "error"  # rules may be "warn" (recorded, never rejecting)
    # the member names a schema issue is about (missing required / unexpected additional ones)
    members: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, str]:
        out = {"pointer": self.pointer, "keyword": self.keyword, "message": self.message}
        if self.rule:
            out.update(rule=self.rule, severity=self.severity)
        return out

    def feedback(self) -> dict[str, str]:
        """The short form a retry prompt carries (pydantic-ai style: errors as data)."""
        return {"pointer": self.pointer or "/", "error": self.message[:160]}


@dataclass
class Attempt:
    """One call of the backend: its cost, how it ended, the raw text and what was wrong with it."""

    index: int
    prompt_tokens: int
    output_tokens: int
    seconds: float
    finish_reason: str
    text: str
    max_tokens: int
    errors: list[ResultError] = field(default_factory=list)
    parsed: bool = False
    valid: bool = False  # schema valid and every error rule passed
    clipped_mass: float | None = None
    feedback: str = ""  # the feedback this attempt's prompt carried
    closed_by_budget: bool = False  # complete, but closed early as the token limit neared
    cut: list[str] = field(default_factory=list)  # … and the values that close cut short

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "seconds": round(self.seconds, 4),
            "finish_reason": self.finish_reason,
            "max_tokens": self.max_tokens,
            "parsed": self.parsed,
            "valid": self.valid,
            "clipped_mass": self.clipped_mass,
            "errors": [e.to_dict() for e in self.errors],
            "feedback": self.feedback,
            "closed_by_budget": self.closed_by_budget,
            "cut": list(self.cut),
            "text": self.text,
        }


@dataclass(frozen=True)
class Dropped:
    pointer: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "reason": self.reason}


@dataclass
class StructuredResult:
    value: Any
    status: Status
    layer: int | None  # 1 first constrained pass, 2 after retry (or text validated), 3 salvaged
    attempts: list[Attempt]
    errors: list[ResultError]  # why the value (or the best attempt) was not ok
    confidence: float
    degraded: bool
    cause: str  # why the pipeline stopped: "valid", "attempts", "token budget", "truncated", …
    warnings: list[ResultError] = field(default_factory=list)  # warn-severity rules that failed
    dropped: list[Dropped] = field(default_factory=list)  # layer 3: members removed, with why
    filled: list[str] = field(default_factory=list)  # layer 3: members computed by the rule engine
    needs_review: bool = False  # fallback flag_for_review, on every result that is not ok
    repaired: bool = False  # text made elsewhere that json-repair changed (see reading)
    reading: dict[str, Any] = field(default_factory=dict)  # extraction/repair log of outside text
    metrics: dict[str, Any] = field(default_factory=dict)
    source_attempt: int | None = None  # the attempt the value (or the best failure) came from
    # x-grounded values of ``value`` with their span in the source (a source was given)
    grounded: list[GroundedValue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def output_tokens(self) -> int:
        return sum(a.output_tokens for a in self.attempts)

    @property
    def prompt_tokens(self) -> int:
        return sum(a.prompt_tokens for a in self.attempts)

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.attempts)

    def to_dict(self, *, texts: bool = True) -> dict[str, Any]:
        attempts = [a.to_dict() for a in self.attempts]
        if not texts:
            for a in attempts:
                a.pop("text")
        return {
            "status": self.status,
            "value": as_floats(self.value),
            "layer": self.layer,
            "degraded": self.degraded,
            "confidence": self.confidence,
            "cause": self.cause,
            "source_attempt": self.source_attempt,
            "errors": [e.to_dict() for e in self.errors],
            "warnings": [w.to_dict() for w in self.warnings],
            "dropped": [d.to_dict() for d in self.dropped],
            "filled": list(self.filled),
            "needs_review": self.needs_review,
            "repaired": self.repaired,
            "reading": self.reading,
            "output_tokens": self.output_tokens,
            "prompt_tokens": self.prompt_tokens,
            "seconds": round(self.seconds, 4),
            "attempts": attempts,
            "metrics": self.metrics,
            **({"grounded": [g.to_dict() for g in self.grounded]} if self.grounded else {}),
        }


def confidence(result: StructuredResult, *, leaves_before: int, leaves_after: int) -> float:
    """A number in [0, 1]; 0 for ``failed``. The product of:

    * ``0.9 ** (attempts - 1)`` — every retry says the model got it wrong before;
    * ``1 - clipped_mass`` of the attempt the value came from — the probability mass the mask
      removed (mean per token): high when the model wanted to write something the grammar forbids;
    * ``0.95 ** repair_changes`` (at most 10 counted) — text repaired after the fact;
    * ``0.97 ** failed_warn_rules``;
    * the share of leaf values kept (``leaves_after / leaves_before``) when layer 3 dropped some,
      times ``0.8`` per member the rule engine computed, and times ``0.5`` when ``degraded``.
    """
    if result.status == "failed":
        return 0.0
    score = 0.9 ** max(len(result.attempts) - 1, 0)
    index = result.source_attempt
    source = result.attempts[index] if index is not None and index < len(result.attempts) else None
    if source is not None and source.clipped_mass is not None:
        score *= max(0.0, 1.0 - source.clipped_mass)
    score *= 0.95 ** min(len(result.reading.get("repairs", [])), 10)
    score *= 0.97 ** len(result.warnings)
    if result.dropped and leaves_before:
        score *= leaves_after / leaves_before
    score *= 0.8 ** len(result.filled)
    if result.degraded:
        score *= 0.5
    return round(max(0.0, min(1.0, score)), 4)


def count_leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(count_leaves(v) for v in value.values()) or 1
    if isinstance(value, list):
        return sum(count_leaves(v) for v in value) or 1
    return 1


def dumps(data: Any) -> str:
    return json.dumps(as_floats(data), ensure_ascii=False)
