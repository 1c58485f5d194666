"""The pipeline's policy: attempts, budgets, feedback, partial results, salvage, decode mode.

One frozen dataclass, filled in three steps, each overriding the one before: the defaults here, the
schema's ``x-runtime`` block, then the caller's overrides (the API's keyword arguments, the CLI's
flags). The ``x-runtime`` keys are read by :func:`gramwright.x_runtime.parse_runtime`, the same
function the linter's ``runtime/*`` rules call, so the linter and the pipeline never disagree on
what a key means; an unknown key is a lint warning and a note on the policy, never dropped
silently.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gramwright.errors import PipelineError
from gramwright.x_runtime import FALLBACKS, RUNTIME_KEYS, DecodeMode, Fallback, RuntimeProblem, parse_runtime

__all__ = ["FALLBACKS", "RUNTIME_KEYS", "Policy", "RuntimeProblem", "parse_runtime"]


@dataclass(frozen=True)
class Policy:
    """How one call may spend attempts, tokens and seconds, and what it may return when no attempt
    validates. ``notes``: what the ``x-runtime`` block held that the policy does not use."""

    max_attempts: int = 3
    max_tokens: int = 256  # the first attempt's limit; a truncation may raise it once
    token_budget: int = 2048  # output tokens over all attempts (an attempt is clipped to the rest)
    time_budget_s: float = 300.0  # wall seconds over all attempts (checked at every token)
    feedback_on_fail: bool = True
    partial_ok: bool = True
    allow_degrade: bool = False
    high_risk: bool = False
    fallback: Fallback = "partial"
    decode_mode: DecodeMode = "constrained"
    open_objects: bool = False  # generation closes objects unless the schema or the caller opts out
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.max_tokens < 1 or self.token_budget < 1:
            raise PipelineError("max_attempts, max_tokens and token_budget must be at least 1")
        if self.time_budget_s <= 0:
            raise PipelineError("time_budget_s must be positive")
        if self.fallback not in FALLBACKS:
            raise PipelineError(f"unknown fallback {self.fallback!r}", hint=" | ".join(FALLBACKS))
        if self.decode_mode not in ("constrained", "unconstrained"):
            raise PipelineError(
                f"unknown decode_mode {self.decode_mode!r}", hint="constrained | unconstrained"
            )

    @property
    def salvage(self) -> bool:
        """Does layer 3 run at all? Not for high-risk calls, not with ``fallback: none``."""
        return not self.high_risk and self.fallback != "none"

    @property
    def may_degrade(self) -> bool:
        return self.salvage and (self.allow_degrade or self.fallback in ("flag_for_review", "rule_engine"))

    @property
    def may_be_partial(self) -> bool:
        return self.salvage and self.partial_ok

    def with_overrides(self, **overrides: Any) -> Policy:
        """This policy with the given fields replaced (``None`` values are ignored: an unset flag)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        unknown = set(given) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise PipelineError(f"unknown policy field(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **given)

    @classmethod
    def from_schema(cls, schema: Any, **overrides: Any) -> Policy:
        """Defaults ← the schema's ``x-runtime`` ← ``overrides``. An invalid value is a
        :class:`PipelineError` naming its pointer; unknown keys become ``notes``."""
        block = schema.get("x-runtime") if isinstance(schema, dict) else None
        fields, problems = parse_runtime(block)
        invalid = [p for p in problems if p.kind == "invalid"]
        if invalid:
            first = invalid[0]
            raise PipelineError(
                first.message, where=first.pointer, hint="see docs/pipeline.md, x-runtime keys"
            )
        notes = tuple(f"{p.pointer}: {p.message}" for p in problems)
        return cls(**fields, notes=notes).with_overrides(**overrides)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["notes"] = list(self.notes)
        return out
