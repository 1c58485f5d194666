"""Where a run of old lines occurs in a file: exact, then tolerant levels in a fixed order.

Levels are cumulative (each also allows everything before it) and each has a name reported to the
user: ``exact``; ``trailing-whitespace`` (spaces/tabs at line ends); ``crlf`` (line terminators
ignored: LF text against a CRLF file and back); ``indent`` (every non-blank line shifted by one
uniform prefix, which the new text then gets too); ``unicode`` (curly quotes, dashes and odd spaces
read as their ASCII look-alikes, as Codex's last pass does). Two more levels are Codex's own seek,
tried for apply-patch text (:data:`CODEX_LEVELS`): ``trim`` (each line's leading and trailing
whitespace ignored, any indentation) and ``trim-unicode`` (that, and the look-alikes). Pure
functions on line tuples.

Apart from the levels, an exact match may differ from the file in line terminators alone (LF in
the patch, CRLF in the file, or back): models write LF whatever the file has, and git applies
such a diff exactly where it converts line endings (``core.autocrlf``). Such a match is exact
with ``eol`` set; the file keeps its own terminators and the report says they were normalised.
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.editors.patch.model import line_content, line_ending

__all__ = ["CODEX_LEVELS", "FUZZY_LEVELS", "LEVELS", "Match", "find_matches", "reindent"]

LEVELS = ("exact", "trailing-whitespace", "crlf", "indent", "unicode", "trim", "trim-unicode")
_WS, _CRLF, _INDENT, _UNICODE, _TRIM, _TRIM_UNICODE = 1, 2, 3, 4, 5, 6
# Codex's seek order (codex-rs/apply-patch seek_sequence): exact, trailing whitespace ignored
# (with the line terminator: Codex splits on LF), both ends trimmed, then Unicode punctuation
# read as ASCII too. gramwright's --fuzzy levels are cumulative and re-indent the new lines;
# Codex's trim is per line (any indentation) and writes the new lines as the patch has them.
CODEX_LEVELS = (0, _WS, _CRLF, _TRIM, _TRIM_UNICODE)
FUZZY_LEVELS = (0, _WS, _CRLF, _INDENT, _UNICODE)

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
    eol: bool = False  # exact but for LF vs CRLF: the new lines take the file's terminators

    @property
    def tolerance(self) -> str | None:
        return LEVELS[self.level] if self.level else None


def _norm(line: str, level: int) -> str:
    content = line_content(line)
    if level >= _WS:
        content = content.rstrip(" \t")
    if level >= _CRLF:
        content = content.rstrip(" \t\r")
    if level in (_UNICODE, _TRIM_UNICODE):
        content = content.translate(_LOOKALIKES)
    if level >= _TRIM:
        content = content.strip()
    return content


def _same_ending(file_line: str, old_line: str, level: int, exact_eol: bool, eol: bool = False) -> bool:
    if level >= _CRLF:
        return True
    mine, theirs = line_ending(file_line), line_ending(old_line)
    if eol and mine and theirs:
        return True  # "\n" against "\r\n": a line end either way
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
    lines: tuple[str, ...], old: tuple[str, ...], start: int, level: int, exact_eol: bool, eol: bool
) -> Match | None:
    segment = lines[start : start + len(old)]
    if _INDENT <= level <= _UNICODE:
        found = _shift(segment, old, level)
        if found is None:
            return None
        return Match(start, start + len(old), level, shift=found[0], direction=found[1])
    for file_line, old_line in zip(segment, old, strict=True):
        if _norm(file_line, level) != _norm(old_line, level):
            return None
        if not _same_ending(file_line, old_line, level, exact_eol, eol):
            return None
    return Match(start, start + len(old), level, eol=eol)


def find_matches(
    lines: tuple[str, ...], old: tuple[str, ...], level: int, *, exact_eol: bool, eol: bool = False
) -> list[Match]:
    """Every place ``old`` (non-empty) matches ``lines`` at exactly this level, in file order;
    with ``eol`` (level 0 only) a LF line end also matches a CRLF one and back."""
    if not old or len(old) > len(lines):
        return []
    # a cheap first-line filter before comparing whole runs
    shifted = _INDENT <= level <= _UNICODE
    first = _norm(old[0], level)
    if shifted:
        first = first.strip()
    found: list[Match] = []
    for start in range(len(lines) - len(old) + 1):
        head = _norm(lines[start], level)
        if (head.strip() if shifted else head) != first:
            continue
        match = _matches_at(lines, old, start, level, exact_eol, eol)
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
