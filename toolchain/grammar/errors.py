"""Typed grammar errors. Each carries where the problem is and says it in one line."""

from __future__ import annotations

from gramwright.errors import GrammarError

__all__ = [
    "EmptyLanguageError",
    "GrammarError",
    "GrammarSyntaxError",
    "LeftRecursionError",
    "UndefinedRuleError",
]


class GrammarSyntaxError(GrammarError):
    """GBNF text that does not parse; points at line:column and says what was expected."""

    def __init__(self, message: str, *, line: int, column: int, expected: str, source: str = "") -> None:
        self.line = line
        self.column = column
        self.expected = expected
        self.source = source
        where = f"{source}:{line}:{column}" if source else f"{line}:{column}"
        super().__init__(f"{message}; expected {expected}", where=where)

    def get_context(self, text: str = "", span: int = 40) -> str:
        """The offending line with a caret under the column (as lark's errors do)."""
        lines = text.splitlines()
        if not 1 <= self.line <= len(lines):
            return ""
        row = lines[self.line - 1]
        start = max(0, self.column - 1 - span)
        return row[start : self.column - 1 + span] + "\n" + " " * (self.column - 1 - start) + "^"


class UndefinedRuleError(GrammarError):
    def __init__(self, missing: dict[str, list[str]]) -> None:
        self.missing = missing
        parts = [f"{name} (used in {', '.join(users)})" for name, users in missing.items()]
        self.hint = "define the rule or fix the reference's spelling"
        super().__init__("undefined rule(s): " + "; ".join(parts))


class EmptyLanguageError(GrammarError):
    """The root derives no finite string (every alternative needs a non-productive rule)."""

    def __init__(self, root: str, nonproductive: list[str]) -> None:
        self.root = root
        self.nonproductive = nonproductive
        self.hint = "give each recursive rule a non-recursive alternative"
        super().__init__(f"rule {root!r} derives no string; non-productive rules: {', '.join(nonproductive)}")


class LeftRecursionError(GrammarError):
    """A rule can reach itself without consuming input; the top-down recognizer cannot run it."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = cycle
        self.hint = "rewrite left recursion as repetition, e.g. `a ::= b (op b)*`"
        super().__init__("left recursion: " + " -> ".join(cycle))
