"""The linter's plain data: findings, diagnostics, the cost estimate and the per-file report.

Rules yield :class:`Finding` (no severity: that depends on the target profile); the linter turns each
into a :class:`Diagnostic` with the profile's severity. Renderers consume diagnostics only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warn", "info"]
SEVERITIES: tuple[Severity, ...] = ("info", "warn", "error")
SEVERITY_RANK: dict[str, int] = {"info": 0, "warn": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class Fix:
    """A mechanical fix as RFC 6902 JSON Patch operations against the linted schema."""

    description: str
    patch: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"description": self.description, "patch": [dict(op) for op in self.patch]}


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule reports: where (RFC 6901 pointer), what, and what to do about it.

    ``variant`` selects a sub-case of the rule whose severity a profile may set separately
    (``rule#variant`` in the profile's ``severity`` table).
    """

    pointer: str
    message: str
    hint: str = ""
    variant: str = ""
    fix: Fix | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    rule: str
    severity: Severity
    message: str
    pointer: str
    profile: str
    hint: str = ""
    fix: Fix | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "pointer": self.pointer,
            "profile": self.profile,
            "hint": self.hint,
            "fix": self.fix.to_dict() if self.fix else None,
        }


@dataclass(slots=True)
class CostEstimate:
    """What the schema will cost to compile and to generate.

    ``grammar_rules``, ``gbnf_bytes`` and ``compile_ms`` come from our compiler and are ``None`` when
    it is not available (``compiler`` then says why). ``max_depth`` is ``None`` for recursive schemas.
    ``max_output_tokens`` is ``None`` when the worst case is unbounded (``tokens_unbounded_at`` says
    where and why).
    """

    optional_properties: int = 0
    max_depth: int | None = 0
    largest_enum: int = 0
    grammar_rules: int | None = None
    gbnf_bytes: int | None = None
    compile_ms: float | None = None
    compiler: str = "not run"
    max_output_tokens: int | None = None
    tokens_unbounded: bool = False
    tokens_unbounded_at: str = ""
    tokens_approximate: bool = True
    token_counter: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class LintReport:
    """Everything the linter found in one schema document."""

    file: str
    profile: str
    dialect: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    cost: CostEstimate = field(default_factory=CostEstimate)
    lint_ms: float = 0.0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {s: 0 for s in SEVERITIES}
        for d in self.diagnostics:
            out[d.severity] += 1
        return out

    def worst(self) -> Severity | None:
        if not self.diagnostics:
            return None
        return max((d.severity for d in self.diagnostics), key=SEVERITY_RANK.__getitem__)
