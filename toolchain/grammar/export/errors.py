"""The one error of the export targets: a target that cannot say what the grammar says refuses,
naming the rule and the reason, instead of writing a different language."""

from __future__ import annotations

from gramwright.errors import GrammarError

__all__ = ["ExportRefused"]


class ExportRefused(GrammarError):
    def __init__(self, target: str, rule: str, reason: str, hint: str = "") -> None:
        self.target = target
        self.rule = rule
        self.reason = reason
        super().__init__(
            f"the {target} target cannot express rule {rule!r}: {reason}", where=f"rule {rule}", hint=hint
        )
