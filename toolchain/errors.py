"""The one error root: every error gramwright raises on purpose is a :class:`GramwrightError`.

Each carries three parts — ``message`` (what is wrong), ``where`` (file, file:line:col, JSON Pointer,
grammar rule or byte offset) and ``hint`` (what to do about it) — and says them in one line,
``message (where) — hint``, which is what the CLI and the TUI print. Syntax errors also offer
:meth:`GramwrightError.get_context`, the offending line with a caret (as lark's errors do).

One subclass per layer, so a caller can catch one layer's errors (``except PatchError``) or all of
them (``except GramwrightError``); the subclasses keep their old builtin bases too
(``EmptyMaskError`` is still a ``RuntimeError``), so code that caught those goes on working.
This module imports nothing from the package: every layer may import it.
"""

from __future__ import annotations

__all__ = [
    "EngineError",
    "GrammarError",
    "GramwrightError",
    "ModelError",
    "PatchError",
    "PipelineError",
    "SchemaError",
    "ServingError",
    "SourceError",
]


class GramwrightError(Exception):
    """Base of every error gramwright raises on purpose: ``message``, ``where``, ``hint``."""

    # class-level defaults, so subclasses that set ``self.hint`` before or after ``__init__`` work
    hint: str = ""
    where: str = ""

    def __init__(self, message: str = "", *, where: str | None = None, hint: str | None = None) -> None:
        self.message = message
        if where is not None:
            self.where = where
        if hint is not None:
            self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.message} ({self.where})" if self.where else self.message

    def one_line(self) -> str:
        """``message (where) — hint``: what the CLI prints after ``error:``, on one line even when
        a message carries a library's multi-line text."""
        line = str(self) + (f" — {self.hint}" if self.hint else "")
        return " ".join(part.strip() for part in line.splitlines() if part.strip())

    def get_context(self, text: str = "", span: int = 40) -> str:
        """The offending line with a caret under the column, where the error knows a position in
        ``text``; empty otherwise."""
        return ""


class SourceError(GramwrightError):
    """A grammar source (schema file, GBNF file, bundled name) that cannot be read or used."""

    def __init__(self, path: str, reason: str, hint: str = "") -> None:
        self.path = path
        self.reason = reason
        super().__init__(reason, where=path, hint=hint)


class SchemaError(GramwrightError):
    """A JSON Schema that cannot be loaded or compiled."""


class GrammarError(GramwrightError):
    """A grammar (GBNF text, IR, regex) that cannot be used."""


class EngineError(GramwrightError):
    """The token engine cannot go on (a tokenizer it cannot read, a token outside the mask, …)."""


class ModelError(GramwrightError):
    """A model that cannot be found or loaded."""


class PipelineError(GramwrightError):
    """A generation or validation pipeline that cannot run (bad policy, budget, rules file)."""


class PatchError(GramwrightError):
    """A patch that cannot be parsed, located or applied (editors)."""


class ServingError(GramwrightError):
    """A serving engine that cannot be reached or used (``--server``)."""


class BudgetTooSmall(EngineError, ValueError):
    """A token budget below the shortest output the grammar accepts: refused before generating."""

    def __init__(self, shortest: int | None, max_tokens: int) -> None:
        self.shortest = shortest
        self.max_tokens = max_tokens
        if shortest is None:
            message = "no output of this grammar can be written with this vocabulary's single-byte tokens"
            hint = "the closing zone needs every byte of a shortest output as a token of its own"
        else:
            message = (
                f"the shortest output this grammar accepts is {shortest} tokens; --max-tokens is {max_tokens}"
            )
            hint = f"give --max-tokens {shortest} or more"
        super().__init__(message, hint=hint)

    @classmethod
    def check(cls, shortest: int | None, max_tokens: int) -> None:
        if shortest is None or max_tokens < shortest:
            raise cls(shortest, max_tokens)
