"""A file's new content from its snapshot and its located edits (in memory; nothing is written).

Exact matches of unified-diff hunks are spliced in as written, terminators and all, which is what
``git apply`` does. Everywhere else the new text is merged against the old: lines the edit keeps
are copied from the *file*, so a tolerant match keeps the file's own trailing spaces, CRLFs and
quote characters on the lines it did not change. Which lines are kept is what the patch says (its
context lines, :attr:`Edit.ops`) — in ``same\r\nsame\n`` a ``-same`` / `` same`` chunk keeps
the second line, not the first — and, for SEARCH/REPLACE, difflib's ``equal`` runs of old against
new. Lines the edit adds get the match's indentation shift and, past the ``crlf`` level or where
the match was exact but for LF vs CRLF, a terminator from the file: a line that replaces another
takes the ending of the line it replaces (the k-th new line of a run that of the k-th old one,
extra ones that of the run's last old line); a line inserted between kept lines takes the ending
of the line before it (else the one after it); the file's majority ending is the last resort.

The final newline: an edit whose old text ends at the file's last line decides how the file ends
— a diff spells it out (``\\ No newline at end of file``); SEARCH/REPLACE and apply-patch text are
whole lines, so the file then ends with a newline, as aider leaves it. A file whose last line no
edit touches ends as it did.
"""

from __future__ import annotations

import difflib
import itertools

from gramwright.editors.patch.locate import Location
from gramwright.editors.patch.match import reindent
from gramwright.editors.patch.model import Edit, line_content, line_ending
from gramwright.editors.patch.snapshot import FileSnapshot

__all__ = ["replacement_lines", "splice"]

_CRLF_LEVEL = 2


def _with_ending(line: str, ending: str) -> str:
    return line_content(line) + ending if line_ending(line) else line


def _opcodes(edit: Edit) -> list[tuple[str, int, int, int, int]]:
    """Runs of kept and changed lines as the patch spells them (its context lines), or as difflib
    aligns old and new when the patch does not say (SEARCH/REPLACE, or ops that do not fit)."""
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for kept, run in itertools.groupby(edit.ops, key=lambda op: op == " "):
        ops = "".join(run)
        di, dj = len(ops) - ops.count("+"), len(ops) - ops.count("-")
        if kept and edit.old[i : i + di] != edit.new[j : j + dj]:
            break
        tag = "equal" if kept else ("replace" if di and dj else ("delete" if di else "insert"))
        codes.append((tag, i, i + di, j, j + dj))
        i, j = i + di, j + dj
    else:
        if edit.ops and (i, j) == (len(edit.old), len(edit.new)) and set(edit.ops) <= set(" -+"):
            return codes
    matcher = difflib.SequenceMatcher(None, edit.old, edit.new, autojunk=False)
    return [(str(tag), i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _neighbour_ending(lines: tuple[str, ...], at: int, preferred: str) -> str:
    """The ending for a line inserted before ``lines[at]``: the previous line's, else the next's."""
    before = line_ending(lines[at - 1]) if at > 0 else ""
    after = line_ending(lines[at]) if at < len(lines) else ""
    return before or after or preferred


def replacement_lines(location: Location, lines: tuple[str, ...], preferred: str) -> list[str]:
    """The lines a located edit puts in place of its match, exactly as the file will get them."""
    match, edit = location.match, location.edit
    assert match is not None
    if match.level == 0 and edit.exact_eol and not match.eol:
        return list(edit.new)
    # past the crlf level, or exact but for LF vs CRLF: every line gets the file's terminators
    convert = match.level >= _CRLF_LEVEL or match.eol
    segment = lines[match.start : match.end]
    out: list[str] = []
    for tag, i1, i2, j1, j2 in _opcodes(edit):
        if tag == "equal":
            for kept, new in zip(segment[i1:i2], edit.new[j1:j2], strict=True):
                # the file's last line, kept but no longer last or now ending as the new text does
                ending = preferred if convert else line_ending(new)
                out.append(kept if line_ending(kept) else line_content(kept) + ending)
            continue
        for k, line in enumerate(edit.new[j1:j2]):
            moved = reindent(line, match)
            if not convert:
                out.append(moved)
                continue
            if i2 > i1:  # it replaces segment[i1 + k] (or the run's last old line)
                ending = line_ending(segment[min(i1 + k, i2 - 1)]) or preferred
            else:
                ending = _neighbour_ending(lines, match.start + i1, preferred)
            out.append(_with_ending(moved, ending))
    return out


def splice(snapshot: FileSnapshot, locations: list[Location]) -> str:
    """The new text of ``snapshot`` with every (located, non-overlapping) edit applied."""
    lines = snapshot.lines
    preferred = snapshot.preferred_ending
    ordered = sorted(locations, key=lambda loc: (loc.match.start, loc.match.end) if loc.match else (0, 0))
    out: list[str] = []
    position = 0
    for location in ordered:
        match = location.match
        assert match is not None
        out.extend(lines[position : match.start])
        out.extend(replacement_lines(location, lines, preferred))
        position = match.end
    out.extend(lines[position:])
    # a line without a terminator can only be the last one (one that lost its place needs one)
    out = [line if line_ending(line) else line + preferred for line in out[:-1]] + out[-1:]
    return "".join(out)
