"""The applicability check for one edit: where its old text is in the file, or why it is nowhere.

Exact whole-line matches first (a patch line may end in LF where the file's ends in CRLF, or
back: still exact, the file's endings kept, reported as normalised), and they must be unique:
several are an error listing every candidate (never a silent first match), unless the format
itself chooses — a unified diff's header line (nearest candidate first, in git apply's order:
the line, one after, one before, …) or apply-patch anchor lines (the first match after them).
Tolerant levels (:mod:`.match`) are tried only when there is no exact match; they are accepted
only with ``fuzzy`` and must be unique too — except Codex's own seek levels for apply-patch text
(``codex_seek``), which Codex's ``apply_patch`` accepts by default. A failure carries the nearest
lines of the file (:mod:`.nearest`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.editors.patch.match import CODEX_LEVELS, FUZZY_LEVELS, LEVELS, Match, find_matches
from gramwright.editors.patch.model import Edit, line_content, line_ending
from gramwright.editors.patch.nearest import Nearest, nearest_lines

__all__ = ["Location", "locate"]


@dataclass(frozen=True)
class Location:
    """Where an edit goes (``match``), or why it cannot (``match`` is None and ``message`` says)."""

    edit: Edit
    match: Match | None
    offset: int | None = None  # matched start − the diff header's line, when there was a header
    candidates: tuple[int, ...] = ()  # 1-based start lines of every candidate (when ambiguous)
    message: str = ""
    hint: str = ""
    nearest: Nearest | None = None
    # why it failed, as a stable code (docs/patches.md): not-found, ambiguous, tolerant-only,
    # eof-marker, position, anchor, no-place, overlap, no-file, refused-file, conflict
    reason: str = ""

    @property
    def status(self) -> str:
        if self.match is None:
            return "failed"
        return "tolerant" if self.match.level else "exact"


def _lines_list(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _anchor_floor(edit: Edit, lines: tuple[str, ...], cursor: int) -> int | str:
    """The index after the edit's anchor lines (found in order from ``cursor``), or a message."""
    floor = cursor
    for depth, anchor in enumerate(edit.anchor):
        found = [i for i in range(floor, len(lines)) if line_content(lines[i]).strip() == anchor]
        if not found:
            return f"the @@ line {anchor!r} is not in the file (after line {floor})"
        if depth == 0 and len(found) > 1:
            return f"the @@ line {anchor!r} is at several places: lines {_lines_list([i + 1 for i in found])}"
        floor = found[0] + 1
    return floor


def _git_rank(start: int, hint: int) -> int:
    distance = start - hint
    return 2 * abs(distance) - (1 if distance > 0 else 0)


def _insertion(edit: Edit, lines: tuple[str, ...], floor: int) -> Location:
    """Place an edit with no old lines: after its anchor, at the end, or at its diff header line."""
    if edit.anchor:
        position: int | None = floor
    elif edit.hint_line is not None:
        position = edit.hint_line  # "-N,0": after line N
    elif edit.at_end or not lines:
        position = len(lines)
    else:
        position = None
    if position is None:
        return Location(
            edit,
            None,
            message="only added lines, and nothing says where they go",
            hint="add context lines around them (or an '@@ line' anchor / '*** End of File' in apply-patch)",
            reason="no-place",
        )
    if position > len(lines) or (edit.at_start and position != 0) or (edit.at_end and position != len(lines)):
        where = "an empty file" if edit.at_start and edit.at_end else f"line {position}"
        return Location(
            edit,
            None,
            message=f"the hunk only adds lines, at {where}; the file ({len(lines)} lines) does not fit",
            hint="regenerate the diff against the current file, with context lines",
            reason="position",
        )
    return Location(edit, Match(position, position, 0), offset=0 if edit.hint_line is not None else None)


def _allowed(match: Match, edit: Edit, floor: int, size: int) -> bool:
    if match.start < floor:
        return False
    if edit.at_start and match.start != 0:
        return False
    return not (edit.at_end and match.end != size)


def _not_found(edit: Edit, lines: tuple[str, ...], floor: int) -> Location:
    anywhere = [m.start + 1 for m in find_matches(lines, edit.old, 0, exact_eol=edit.exact_eol, eol=True)]
    reason = "position"
    if anywhere and edit.at_start:
        message = f"the old lines are at line {_lines_list(anywhere)}, but a hunk at line 1 must match there"
        hint = "fix the hunk's line numbers (git apply's rule: -1,N hunks match at the file's start)"
    elif anywhere and edit.at_end:
        message = (
            f"the old lines are at line {_lines_list(anywhere)},"
            " but a hunk without trailing context must end the file"
        )
        hint = "add the context lines after the change (git apply's rule)"
    elif anywhere:
        message = f"the old lines are at line {_lines_list(anywhere)}, before the previous chunk or anchor"
        hint = "chunks of one file must be in file order, after their @@ lines"
    else:
        reason = "not-found"
        message = "the old lines are not in the file"
        hint = "copy the old lines exactly from the file (see the nearest lines), then retry"
    already = find_matches(lines, edit.new, 0, exact_eol=edit.exact_eol) if edit.new else []
    if not anywhere and already:
        message += f"; the new lines are already there at line {already[0].start + 1} (applied before?)"
    nearest = nearest_lines(lines, edit.old)
    return Location(edit, None, message=message, hint=hint, nearest=nearest, reason=reason)


def _past_eof_marker(edit: Edit, lines: tuple[str, ...], floor: int) -> Location | None:
    """A diff whose last old line is marked "\\ No newline at end of file", and that matches
    exactly but for that line's terminator: the file goes on past the end the diff expects.

    git apply takes such a hunk (it compares bytes) and joins that line to the next one; we refuse.
    """
    if not edit.exact_eol or not edit.old or line_ending(edit.old[-1]):
        return None
    for ending in ("\n", "\r\n"):
        variant = (*edit.old[:-1], edit.old[-1] + ending)
        found = [
            m for m in find_matches(lines, variant, 0, exact_eol=True) if _allowed(m, edit, floor, len(lines))
        ]
        if found:
            return Location(
                edit,
                None,
                candidates=tuple(m.start + 1 for m in found),
                message=f"the diff says line {found[0].end} ends the file ('\\ No newline at end of file'),"
                " but the file goes on after it",
                hint="regenerate the diff against the current file (or --fuzzy to accept it)",
                reason="eof-marker",
            )
    return None


def locate(edit: Edit, lines: tuple[str, ...], *, fuzzy: bool = False, cursor: int = 0) -> Location:
    """Locate ``edit`` in the file ``lines``; ``cursor`` is where an in-order edit may start."""
    floor = _anchor_floor(edit, lines, cursor if edit.in_order else 0)
    if isinstance(floor, str):
        return Location(
            edit,
            None,
            message=floor,
            hint="copy the @@ line exactly from the file, or drop it",
            reason="anchor",
        )
    if not edit.old:
        return _insertion(edit, lines, floor)
    if edit.codex_seek:  # Codex's own order, accepted as Codex accepts it; --fuzzy adds ours first
        levels = (*FUZZY_LEVELS, *CODEX_LEVELS[3:]) if fuzzy else CODEX_LEVELS
    else:
        levels = FUZZY_LEVELS
    for level in levels:
        found = [
            m
            for m in find_matches(lines, edit.old, level, exact_eol=edit.exact_eol)
            if _allowed(m, edit, floor, len(lines))
        ]
        if not found and level == 0:  # exact but for LF vs CRLF: still exact, the endings normalised
            found = [
                m
                for m in find_matches(lines, edit.old, 0, exact_eol=edit.exact_eol, eol=True)
                if _allowed(m, edit, floor, len(lines))
            ]
        if found:
            break
        past_eof = None if level or fuzzy else _past_eof_marker(edit, lines, floor)
        if past_eof is not None:
            return past_eof
    else:
        return _not_found(edit, lines, floor)
    starts = tuple(m.start + 1 for m in found)
    if level and not fuzzy and not edit.codex_seek:
        return Location(
            edit,
            None,
            candidates=starts,
            message=f"not in the file exactly; a tolerant match ({LEVELS[level]})"
            f" at line {_lines_list(list(starts))}",
            hint="rerun with --fuzzy to accept it, or copy the old lines exactly",
            reason="tolerant-only",
        )
    if len(found) > 1 and edit.anchor:
        found = found[:1]
    elif len(found) > 1 and edit.hint_line is not None:
        hint = edit.hint_line - 1
        found = [min(found, key=lambda m: _git_rank(m.start, hint))]
    if len(found) > 1:
        return Location(
            edit,
            None,
            candidates=starts,
            message=f"the old lines match {len(found)} places: lines {_lines_list(list(starts))}",
            hint="add neighbouring lines to the old text until it matches one place",
            reason="ambiguous",
        )
    match = found[0]
    offset = match.start - (edit.hint_line - 1) if edit.hint_line is not None else None
    return Location(edit, match, offset=offset)
