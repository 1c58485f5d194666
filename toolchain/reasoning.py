"""A bounded reasoning section before the constrained output: ``<think>…</think>`` of at most N
tokens, then the value.

The section is free text that never contains the closing marker, between the two markers
(configurable: a model's chat template may use ``<thinking>`` or ``<|begin_of_thought|>``).
Its token bound is kept by the engine (:mod:`gramwright.engine.sections`): the budget-aware
masks close the section in time, so it never takes more than N tokens and there is always room
for the answer; the grammar applies to the answer only after the closing marker — never inside
the section, never skipped after it. The result keeps the reasoning apart from the value.
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.errors import GramwrightError
from gramwright.grammar.analysis import prepare
from gramwright.grammar.freetext import self_synchronizing, text_without
from gramwright.grammar.ir import Grammar, literal, seq

__all__ = ["Reasoning", "ReasoningError", "split_reasoning"]


class ReasoningError(GramwrightError):
    """A reasoning section that cannot be set up (bad markers or bound)."""


@dataclass(frozen=True)
class Reasoning:
    """At most ``max_tokens`` tokens between ``open`` and ``close`` (the markers counted)."""

    max_tokens: int
    open: str = "<think>"
    close: str = "</think>"

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ReasoningError(f"--reasoning {self.max_tokens}: give 1 or more tokens")
        if not self.open:
            raise ReasoningError("the reasoning section needs an opening marker")
        if not self_synchronizing(self.close):
            raise ReasoningError(
                f"closing marker {self.close!r}: its first character must occur only at its start",
                hint="markers like </think> or </reasoning> work",
            )

    def grammar(self) -> Grammar:
        """The section: the opening marker, text without the closing marker, the closing marker."""
        body = seq(literal(self.open), text_without(self.close), literal(self.close))
        return prepare(Grammar({"root": body}))

    def to_dict(self) -> dict[str, object]:
        return {"max_tokens": self.max_tokens, "open": self.open, "close": self.close}


def split_reasoning(text: str, reasoning: Reasoning) -> tuple[str | None, str]:
    """(the reasoning between the markers, the rest); (None, text) when there is no section."""
    if not text.startswith(reasoning.open):
        return None, text
    end = text.find(reasoning.close, len(reasoning.open))
    if end < 0:
        return text[len(reasoning.open) :], ""
    return text[len(reasoning.open) : end], text[end + len(reasoning.close) :]
