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
    """GBNF text that does not parse; points at line:column and says what was expected.

    An error inside a group, string or character class that is still open also names where that
    construct began (``opened``, ``opened_line``, ``opened_column``): an unclosed ``(`` is only
    noticed lines later, where its continuation stops making sense. ``text`` is the grammar text,
    kept so that :meth:`get_context` can show the lines without being handed them again.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        expected: str,
        source: str = "",
        text: str = "",
        opened: tuple[str, int, int] | None = None,
    ) -> None:
        self.line = line
        self.column = column
        self.expected = expected
        self.source = source
        self.text = text
        self.opened = opened[0] if opened else ""  # "group", "string" or "character class"
        self.opened_line = opened[1] if opened else 0
        self.opened_column = opened[2] if opened else 0
        where = f"{source}:{line}:{column}" if source else f"{line}:{column}"
        began = f"; the {self.opened} began at line {self.opened_line}:{self.opened_column}" if opened else ""
        super().__init__(f"{message}; expected {expected}{began}", where=where)

    def get_context(self, text: str = "", span: int = 40) -> str:
        """The offending line with a caret under the column (as lark's errors do), and one under
        where an open group, string or class began — on its own line first when that is earlier."""
        lines = (text or self.text).splitlines()
        if not self.opened or self.opened_line > self.line:
            return _caret(lines, self.line, [self.column], span)
        if self.opened_line == self.line:
            return _caret(lines, self.line, [self.opened_column, self.column], span)
        began = _caret(lines, self.opened_line, [self.opened_column], span)
        here = _caret(lines, self.line, [self.column], span)
        return f"{began} {self.opened} began here\n{here}" if began and here else began or here


def _caret(lines: list[str], line: int, columns: list[int], span: int) -> str:
    """``line`` of ``lines`` (cut to ``span`` characters around the last column) over a line with
    a caret under each of ``columns``."""
    if not 1 <= line <= len(lines):
        return ""
    row = lines[line - 1]
    start = max(0, columns[-1] - 1 - span)
    marks = [" "] * (columns[-1] - start)
    for column in columns:
        if column - 1 >= start:
            marks[column - 1 - start] = "^"
    return row[start : columns[-1] - 1 + span] + "\n" + "".join(marks)


class UndefinedRuleError(GrammarError):
    """Rules referenced (or the start rule) but never defined; ``source`` names the grammar file."""

    def __init__(self, missing: dict[str, list[str]], source: str = "") -> None:
        self.missing = missing
        parts = [f"{name} (used in {', '.join(users)})" for name, users in missing.items()]
        self.hint = "define the rule or fix the reference's spelling"
        super().__init__("undefined rule(s): " + "; ".join(parts), where=source or None)


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
