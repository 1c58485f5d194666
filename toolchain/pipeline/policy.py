"""The pipeline's policy: attempts, budgets, feedback, partial results, salvage, decode mode.

One frozen dataclass, filled in three steps, each overriding the one before: the defaults here, the
schema's ``x-runtime`` block (:func:`runtime_block`), then the caller's overrides (the API's
keyword arguments, the CLI's flags). The ``x-runtime`` keys are read by :func:`parse_runtime`, the
same function the linter's ``runtime/*`` rules call, so the linter and the pipeline never disagree
on what a key means; an unknown key is a lint warning and a note on the policy, never dropped
silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from gramwright.errors import PipelineError
from gramwright.pointer import join_pointer

__all__ = ["FALLBACKS", "RUNTIME_KEYS", "Policy", "RuntimeProblem", "parse_runtime"]

Fallback = Literal["none", "partial", "flag_for_review", "rule_engine"]
DecodeMode = Literal["constrained", "unconstrained"]
FALLBACKS: tuple[Fallback, ...] = ("none", "partial", "flag_for_review", "rule_engine")
# the seed documents' spellings, accepted as aliases (case-insensitive)
_FALLBACK_ALIASES = {"rule_engine": "rule_engine", "flag": "flag_for_review", "review": "flag_for_review"}
_DECODE_ALIASES = {
    "constrained_fsm": "constrained",
    "constrained_cfg": "constrained",
    "free": "unconstrained",
}

# key → (expected JSON type(s), what it sets); nested blocks list their own keys
RUNTIME_KEYS: dict[str, str] = {
    "decode_mode": "constrained | unconstrained (seed alias: constrained_fsm)",
    "mask_cache": "bool; masks are always cached in memory and on disk: false has no effect",
    "retry": "object: max (retries after the first attempt), feedback_on_fail (bool)",
    "max_attempts": "integer ≥ 1 (alternative to retry.max; give one of them)",
    "budget": "object: tokens (output tokens over all attempts), seconds, max_tokens (first attempt)",
    "partial_ok": "bool: all required members valid, failed optional ones dropped → status partial",
    "allow_degrade": "bool: layer 3 may return a degraded value (flagged)",
    "high_risk": "bool: tool calls, SQL — no layer 3 at all (no partial, no degraded)",
    "fallback": "none | partial | flag_for_review | rule_engine (seed: RULE_ENGINE)",
    "open_objects": "bool: generation keeps the spec's open objects (default: closed, no invented members)",
}
RETRY_KEYS = ("max", "feedback_on_fail")
BUDGET_KEYS = ("tokens", "seconds", "max_tokens")


@dataclass(frozen=True)
class RuntimeProblem:
    """A key of ``x-runtime`` the pipeline cannot use: ``unknown`` (ignored, with a note) or
    ``invalid`` (the pipeline refuses to run)."""

    pointer: str
    kind: Literal["unknown", "invalid", "no-effect"]
    message: str


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


def parse_runtime(block: Any) -> tuple[dict[str, Any], list[RuntimeProblem]]:
    """The policy fields an ``x-runtime`` block sets, and what is wrong with it."""
    where = "/x-runtime"
    if block is None:
        return {}, []
    if not isinstance(block, Mapping):
        return {}, [RuntimeProblem(where, "invalid", "x-runtime must be an object")]
    out: dict[str, Any] = {}
    problems: list[RuntimeProblem] = []
    reader = _Reader(out, problems)
    for key, value in block.items():
        at = join_pointer(where, key)
        if key == "decode_mode":
            mode = _DECODE_ALIASES.get(str(value).lower(), str(value).lower())
            reader.choice(at, "decode_mode", mode, ("constrained", "unconstrained"), value)
        elif key == "fallback":
            name = str(value).lower()
            reader.choice(at, "fallback", _FALLBACK_ALIASES.get(name, name), FALLBACKS, value)
        elif key in ("partial_ok", "allow_degrade", "high_risk", "open_objects"):
            reader.boolean(at, key, value)
        elif key == "mask_cache":
            if not isinstance(value, bool):
                problems.append(RuntimeProblem(at, "invalid", "mask_cache must be true or false"))
            elif not value:
                problems.append(
                    RuntimeProblem(at, "no-effect", "masks are always cached: false has no effect")
                )
        elif key == "max_attempts":
            reader.integer(at, "max_attempts", value, minimum=1)
        elif key == "retry":
            _retry(reader, at, value)
        elif key == "budget":
            _budget(reader, at, value)
        else:
            problems.append(RuntimeProblem(at, "unknown", f"unknown x-runtime key {key!r} (ignored)"))
    if "max_attempts" in block and isinstance(block.get("retry"), Mapping) and "max" in block["retry"]:
        problems.append(RuntimeProblem(where, "invalid", "give retry.max or max_attempts, not both"))
    return out, problems


def _retry(reader: _Reader, at: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        reader.problems.append(RuntimeProblem(at, "invalid", "retry must be an object"))
        return
    for key, item in value.items():
        sub = join_pointer(at, key)
        if key == "max":
            if reader.integer(sub, "max_attempts", item, minimum=0):
                reader.out["max_attempts"] = cast(int, item) + 1  # retries after the first attempt
        elif key == "feedback_on_fail":
            reader.boolean(sub, "feedback_on_fail", item)
        else:
            reader.problems.append(RuntimeProblem(sub, "unknown", f"unknown retry key {key!r} (ignored)"))


def _budget(reader: _Reader, at: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        reader.problems.append(RuntimeProblem(at, "invalid", "budget must be an object"))
        return
    fields = {"tokens": "token_budget", "seconds": "time_budget_s", "max_tokens": "max_tokens"}
    for key, item in value.items():
        sub = join_pointer(at, key)
        if key == "seconds":
            if isinstance(item, bool) or not isinstance(item, int | float) or item <= 0:
                reader.problems.append(
                    RuntimeProblem(sub, "invalid", "budget.seconds must be a positive number")
                )
            else:
                reader.out["time_budget_s"] = float(item)
        elif key in fields:
            reader.integer(sub, fields[key], item, minimum=1)
        else:
            reader.problems.append(RuntimeProblem(sub, "unknown", f"unknown budget key {key!r} (ignored)"))


@dataclass
class _Reader:
    out: dict[str, Any]
    problems: list[RuntimeProblem]

    def boolean(self, at: str, field: str, value: Any) -> None:
        if isinstance(value, bool):
            self.out[field] = value
        else:
            self.problems.append(RuntimeProblem(at, "invalid", f"{field} must be true or false"))

    def integer(self, at: str, field: str, value: Any, *, minimum: int) -> bool:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problems.append(RuntimeProblem(at, "invalid", f"must be an integer ≥ {minimum}"))
            return False
        self.out[field] = value
        return True

    def choice(self, at: str, field: str, value: str, allowed: tuple[str, ...], raw: Any) -> None:
        if isinstance(raw, str) and value in allowed:
            self.out[field] = value
        else:
            self.problems.append(
                RuntimeProblem(at, "invalid", f"{field} {raw!r} is not one of {' | '.join(allowed)}")
            )
