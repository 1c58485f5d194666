"""Typed errors of the regex front end; each one says what and where (a code-point offset)."""

from __future__ import annotations

from gramwright.errors import GrammarError

# How a pattern that is no regular expression at all is reported (compile report reasons start
# with it after "regex not expressible: "; ``ReportEntry.invalid_regex`` looks for it).
INVALID_REGEX = "invalid ECMA-262 regex"


class RegexUnsupported(GrammarError):
    """A pattern (or one construct in it) that cannot become a grammar expression.

    ``reason`` is one line for the compile report; ``position`` is the code-point offset of the
    construct in the pattern. The schema compiler approximates such a pattern (free string) and
    reports it; validation then checks the real pattern.
    """

    def __init__(self, reason: str, position: int, pattern: str = "") -> None:
        self.reason = reason
        self.position = position
        self.pattern = pattern
        super().__init__(reason, where=f"pattern offset {position}")

    def get_context(self, text: str = "", span: int = 30) -> str:
        """The pattern around the offending offset with a caret under it (as lark's errors do)."""
        if not self.pattern:
            return ""
        start = max(0, self.position - span)
        return self.pattern[start : self.position + span] + "\n" + " " * (self.position - start) + "^"


class RegexSyntaxError(RegexUnsupported):
    """Text that is not an ECMA-262 regular expression at all (a linter finding, not a limitation)."""
