"""A file's new content from its snapshot and its located edits (in memory; nothing is written).

Exact matches of unified-diff hunks are spliced in as written, terminators and all, which is what
``git apply`` does. Everywhere else the new text is merged against the old: lines the edit keeps
(difflib's ``equal`` runs of old against new) are copied from the *file*, so a tolerant match
keeps the file's own trailing spaces, CRLFs and quote characters on the lines it did not change;
lines the edit adds get the match's indentation shift and, past the ``crlf`` level or where the
match was exact but for LF vs CRLF, the file's newline.

The final newline: an edit whose old text ends at the file's last line decides how the file ends
— a diff spells it out (``\\ No newline at end of file``); SEARCH/REPLACE and apply-patch text are
whole lines, so the file then ends with a newline, as aider leaves it. A file whose last line no
edit touches ends as it did.
"""

from __future__ import annotations

import difflib

from gramwright.editors.patch.locate import Location
from gramwright.editors.patch.match import reindent
from gramwright.editors.patch.model import line_content, line_ending
from gramwright.editors.patch.snapshot import FileSnapshot

__all__ = ["replacement_lines", "splice"]

_CRLF_LEVEL = 2


def _with_ending(line: str, ending: str) -> str:
    return line_content(line) + ending if line_ending(line) else line


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
    opcodes = difflib.SequenceMatcher(None, edit.old, edit.new, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            for kept, new in zip(segment[i1:i2], edit.new[j1:j2], strict=True):
                # the file's last line, kept but no longer last or now ending as the new text does
                ending = preferred if convert else line_ending(new)
                out.append(kept if line_ending(kept) else line_content(kept) + ending)
            continue
        for line in edit.new[j1:j2]:
            moved = reindent(line, match)
            out.append(_with_ending(moved, preferred) if convert else moved)
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
