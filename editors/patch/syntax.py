"""Does a patched file still parse in its language? The check every patch passes before it is written.

A patch can match its old lines exactly and still leave a file its own language rejects (a
REPLACE that drops a ``def`` line, a hunk that deletes a closing brace). The rule is relative:
the new text must parse wherever the old text did, so a file that was already broken (or a
template, or a dialect the parser does not know) is never blamed on the patch. A file the patch
creates must parse as written.

Python goes through the standard library's ``ast`` (the interpreter's own parser); JSON through
``json``; JavaScript, TypeScript/TSX, Go and Rust through tree-sitter grammars when their wheels
are installed (a missing one leaves those files unchecked, never refused). Other files are not
checked. Pure functions of text; nothing here reads or writes a file.
"""

from __future__ import annotations

import ast
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any

__all__ = ["SyntaxFinding", "language_of", "new_syntax_error", "syntax_error"]

# file suffix → language name; the tree-sitter ones also name (module, function) of their grammar
_PYTHON = {".py", ".pyi"}
_JSON = {".json"}
_TREE_SITTER: dict[str, tuple[str, str, str]] = {
    ".js": ("JavaScript", "tree_sitter_javascript", "language"),
    ".mjs": ("JavaScript", "tree_sitter_javascript", "language"),
    ".cjs": ("JavaScript", "tree_sitter_javascript", "language"),
    ".jsx": ("JavaScript", "tree_sitter_javascript", "language"),
    ".ts": ("TypeScript", "tree_sitter_typescript", "language_typescript"),
    ".mts": ("TypeScript", "tree_sitter_typescript", "language_typescript"),
    ".cts": ("TypeScript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("TSX", "tree_sitter_typescript", "language_tsx"),
    ".go": ("Go", "tree_sitter_go", "language"),
    ".rs": ("Rust", "tree_sitter_rust", "language"),
}


@dataclass(frozen=True)
class SyntaxFinding:
    """The first syntax error of a text: 1-based ``line`` and ``column``, and the parser's words."""

    language: str
    line: int
    column: int
    message: str

    def one_line(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


def language_of(path: str) -> str | None:
    """The language this module checks ``path`` in (by its suffix), or None."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _PYTHON:
        return "Python"
    if suffix in _JSON:
        return "JSON"
    if suffix in _TREE_SITTER and _tree_sitter_parser(suffix) is not None:
        return _TREE_SITTER[suffix][0]
    return None


def _python(text: str) -> SyntaxFinding | None:
    try:
        with warnings.catch_warnings():
            # invalid escape sequences and the like warn on stderr; the core never prints
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:  # IndentationError and TabError included
        return SyntaxFinding("Python", exc.lineno or 1, exc.offset or 1, exc.msg)
    except ValueError as exc:  # "source code string cannot contain null bytes"
        return SyntaxFinding("Python", 1, 1, str(exc))
    return None


def _json(text: str) -> SyntaxFinding | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return SyntaxFinding("JSON", exc.lineno, exc.colno, exc.msg)
    except RecursionError:
        return None  # nesting deeper than this interpreter can walk: nothing to say either way
    return None


@cache
def _tree_sitter_parser(suffix: str) -> Any | None:
    """A tree-sitter parser for ``suffix``, or None when its grammar wheel is not installed."""
    import importlib

    _, module_name, function = _TREE_SITTER[suffix]
    try:
        import tree_sitter

        module = importlib.import_module(module_name)
        language = tree_sitter.Language(getattr(module, function)())
        return tree_sitter.Parser(language)
    except (ImportError, AttributeError, ValueError):  # not installed, or an ABI this binding lacks
        return None


def _first_error_node(root: Any) -> Any | None:
    """The first ERROR or MISSING node in document order (tree-sitter marks where it recovered)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            return node
        if node.has_error:
            stack.extend(reversed(node.children))
    return None


def _tree_sitter(suffix: str) -> Callable[[str], SyntaxFinding | None] | None:
    parser = _tree_sitter_parser(suffix)
    if parser is None:
        return None
    language = _TREE_SITTER[suffix][0]

    def check(text: str) -> SyntaxFinding | None:
        data = text.encode("utf-8", "surrogatepass")
        root = parser.parse(data).root_node
        if not root.has_error:
            return None
        node = _first_error_node(root) or root
        row, col = node.start_point
        lines = data.split(b"\n")
        column = len(lines[row][:col].decode("utf-8", "replace")) if row < len(lines) else col
        if node.is_missing:
            message = f"missing {node.type!r}"
        else:
            snippet = data[node.start_byte : node.end_byte].split(b"\n")[0][:40].decode("utf-8", "replace")
            message = f"unexpected {snippet!r}" if snippet else "syntax error"
        return SyntaxFinding(language, row + 1, column + 1, message)

    return check


def _checker(path: str) -> Callable[[str], SyntaxFinding | None] | None:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _PYTHON:
        return _python
    if suffix in _JSON:
        return _json
    if suffix in _TREE_SITTER:
        return _tree_sitter(suffix)
    return None


def syntax_error(path: str, text: str) -> SyntaxFinding | None:
    """The first syntax error of ``text`` as the language of ``path``; None when it parses or
    when this module does not check that language."""
    check = _checker(path)
    if check is None:
        return None
    try:
        return check(text)
    except (RecursionError, MemoryError):
        return None  # too deep or too big to tell: not a finding


def new_syntax_error(path: str, before: str | None, after: str) -> SyntaxFinding | None:
    """The first syntax error of ``after`` when ``before`` parsed (or is None: a file the patch
    creates); None when ``after`` parses, ``before`` did not, or the language is not checked."""
    found = syntax_error(path, after)
    if found is None or before is None:
        return found
    return found if syntax_error(path, before) is None else None
