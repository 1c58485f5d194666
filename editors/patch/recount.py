"""The pre-pass before ``unidiff``: hunk headers rewritten from their bodies where they are wrong.

``unidiff`` reads exactly as many body lines as ``@@ -a,b +c,d @@`` promises and fails otherwise
("Hunk is shorter than expected", python-unidiff #54). A header is kept when its counts fit its
body; it is recounted (as ``git apply --recount`` would) when they do not, and when it has no
numbers at all (aider writes ``@@ ... @@``). A recounted body runs to the next hunk or file header
or the first line that is not a hunk line; blank lines at its end are not counted (models leave a
blank line after a hunk; one *inside* a hunk is an empty context line, as in unidiff). One line of
text is replaced by one line, so every patch line number stays true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gramwright.editors.patch.model import line_content, line_ending, split_lines

__all__ = ["Recounted", "recount_hunks"]

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


@dataclass(frozen=True)
class Recounted:
    """The rewritten text, the 1-based patch lines of headers that had no numbers, and notes."""

    text: str
    numberless: frozenset[int]
    notes: tuple[str, ...]


def _kind(line: str) -> str | None:
    """``' '``, ``'-'``, ``'+'``, ``'\\\\'`` for a hunk line (an empty line is context), else None."""
    if line_content(line) == "":
        return " "
    return line[0] if line[0] in " -+\\" else None


def _is_file_header(lines: tuple[str, ...], index: int) -> bool:
    line = lines[index]
    if line.startswith("diff --git "):
        return True
    return line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ ")


def _fits(lines: tuple[str, ...], start: int, old: int, new: int) -> bool:
    """Do the lines from ``start`` spell exactly ``old`` source and ``new`` target lines?"""
    index = start
    while old > 0 or new > 0:
        if index >= len(lines):
            return False
        kind = _kind(lines[index])
        if kind is None:
            return False
        if kind in " -":
            old -= 1
        if kind in " +":
            new -= 1
        if old < 0 or new < 0:
            return False
        index += 1
    return True


def _body_end(lines: tuple[str, ...], start: int) -> tuple[int, int]:
    """(end of the counted body, end of the trailing blank lines after it), both exclusive."""
    index = start
    while index < len(lines):
        if lines[index].startswith("@@") or _is_file_header(lines, index) or _kind(lines[index]) is None:
            break
        index += 1
    end = index
    while end > start and line_content(lines[end - 1]) == "":
        end -= 1
    return end, index


def recount_hunks(text: str) -> Recounted:
    lines = list(split_lines(text))
    frozen = tuple(lines)
    numberless: set[int] = set()
    notes: list[str] = []
    for index, line in enumerate(frozen):
        if not line.startswith("@@"):
            continue
        match = _HEADER.match(line_content(line))
        if match is not None:
            old = int(match.group(2) or "1")
            new = int(match.group(4) or "1")
            if _fits(frozen, index + 1, old, new):
                continue
        end, blank_end = _body_end(frozen, index + 1)
        body = [_kind(body_line) for body_line in frozen[index + 1 : end]]
        old = sum(1 for kind in body if kind in (" ", "-"))
        new = sum(1 for kind in body if kind in (" ", "+"))
        if match is not None:
            source, target, rest = match.group(1), match.group(3), match.group(5)
            lines[index] = f"@@ -{source},{old} +{target},{new} @@{rest}{line_ending(line)}"
            notes.append(
                f"patch line {index + 1}: hunk header {line_content(line)!r} does not match its body;"
                f" recounted as -{source},{old} +{target},{new}"
            )
        else:
            numberless.add(index + 1)
            lines[index] = f"@@ -{int(old > 0)},{old} +{int(new > 0)},{new} @@{line_ending(line) or chr(10)}"
            notes.append(f"patch line {index + 1}: hunk without line numbers; located by its lines alone")
        for blank in range(end, blank_end):  # left for unidiff to skip as trailing blank lines
            lines[blank] = "\n"
    return Recounted(text="".join(lines), numberless=frozenset(numberless), notes=tuple(notes))
