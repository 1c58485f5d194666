"""Where a run of old lines occurs in a file: exact, then tolerant levels in a fixed order.

Levels are cumulative (each also allows everything before it) and each has a name reported to the
user: ``exact``; ``trailing-whitespace`` (spaces/tabs at line ends); ``crlf`` (line terminators
ignored: LF text against a CRLF file and back); ``indent`` (every non-blank line shifted by one
uniform prefix, which the new text then gets too); ``unicode`` (curly quotes, dashes and odd spaces
read as their ASCII look-alikes, as Codex's last pass does). Pure functions on line tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.editors.patch.model import line_content, line_ending

__all__ = ["LEVELS", "Match", "find_matches", "reindent"]

LEVELS = ("exact", "trailing-whitespace", "crlf", "indent", "unicode")
_WS, _CRLF, _INDENT, _UNICODE = 1, 2, 3, 4

_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
        "\u2026": "...",
    }
)


@dataclass(frozen=True)
class Match:
    """File lines ``start:end`` (0-based, end exclusive) matched at ``level`` (index in LEVELS).

    For the ``indent`` level, ``shift`` is the prefix and ``direction`` +1 when the file has it in
    front of the patch's lines, -1 when the patch has it in front of the file's.
    """

    start: int
    end: int
    level: int
    shift: str = ""
    direction: int = 1

    @property
    def tolerance(self) -> str | None:
        return LEVELS[self.level] if self.level else None


def _norm(line: str, level: int) -> str:
    content = line_content(line)
    if level >= _WS:
        content = content.rstrip(" \t")
    if level >= _CRLF:
        content = content.rstrip(" \t\r")
    if level >= _UNICODE:
        content = content.translate(_LOOKALIKES)
    return content


def _same_ending(file_line: str, old_line: str, level: int, exact_eol: bool) -> bool:
    if level >= _CRLF:
        return True
    mine, theirs = line_ending(file_line), line_ending(old_line)
    # text that cannot spell a missing final newline (SEARCH/REPLACE) matches the last line anyway
    return mine == theirs or (not exact_eol and mine == "")


def _indent(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def _shift(segment: tuple[str, ...], old: tuple[str, ...], level: int) -> tuple[str, int] | None:
    """The uniform indentation shift between ``segment`` and ``old``, or None when there is none."""
    prefix: str | None = None
    direction = 1
    for file_line, old_line in zip(segment, old, strict=True):
        mine, theirs = _norm(file_line, level), _norm(old_line, level)
        if not mine.strip() and not theirs.strip():
            continue  # blank lines match blank lines at any indentation
        if mine.lstrip() != theirs.lstrip():
            return None
        fi, oi = _indent(mine), _indent(theirs)
        if prefix is None:
            if fi.endswith(oi):
                prefix, direction = fi[: len(fi) - len(oi)], 1
            elif oi.endswith(fi):
                prefix, direction = oi[: len(oi) - len(fi)], -1
            else:
                return None
        elif (fi != prefix + oi) if direction == 1 else (oi != prefix + fi):
            return None
    return prefix or "", direction


def _matches_at(
    lines: tuple[str, ...], old: tuple[str, ...], start: int, level: int, exact_eol: bool
) -> Match | None:
    segment = lines[start : start + len(old)]
    if level >= _INDENT:
        found = _shift(segment, old, level)
        if found is None:
            return None
        return Match(start, start + len(old), level, shift=found[0], direction=found[1])
    for file_line, old_line in zip(segment, old, strict=True):
        if _norm(file_line, level) != _norm(old_line, level):
            return None
        if not _same_ending(file_line, old_line, level, exact_eol):
            return None
    return Match(start, start + len(old), level)


def find_matches(lines: tuple[str, ...], old: tuple[str, ...], level: int, *, exact_eol: bool) -> list[Match]:
    """Every place ``old`` (non-empty) matches ``lines`` at exactly this level, in file order."""
    if not old or len(old) > len(lines):
        return []
    # a cheap first-line filter before comparing whole runs
    first = _norm(old[0], level)
    if level >= _INDENT:
        first = first.strip()
    found: list[Match] = []
    for start in range(len(lines) - len(old) + 1):
        head = _norm(lines[start], level)
        if (head.strip() if level >= _INDENT else head) != first:
            continue
        match = _matches_at(lines, old, start, level, exact_eol)
        if match is not None:
            found.append(match)
    return found


def reindent(line: str, match: Match) -> str:
    """A new line moved by the match's indentation shift (blank lines stay as they are)."""
    if not match.shift or not line_content(line).strip():
        return line
    if match.direction == 1:
        return match.shift + line
    return line[len(match.shift) :] if line.startswith(match.shift) else line
