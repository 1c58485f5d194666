"""The schema's ``x-runtime`` block: its keys and the one reader of them.

:func:`parse_runtime` turns the block into policy fields and problems. The pipeline builds its
policy from the fields (``pipeline/policy.py``); the linter's ``runtime/x-runtime`` rule reports the
problems. Both read the block here, so a key the linter accepts is a key the pipeline uses, and
neither layer imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from gramwright.pointer import join_pointer

__all__ = ["FALLBACKS", "RUNTIME_KEYS", "DecodeMode", "Fallback", "RuntimeProblem", "parse_runtime"]

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
