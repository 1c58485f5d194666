"""Per-edit review of a patch before anything is written: accept or reject each edit, change an
edit's new text, then apply, check or export only the accepted set.

What users of patch tools ask for most is to decide hunk by hunk and to be safe from files that
change while they decide. So a :class:`Review` reads each file once (the snapshots every check
and the final apply work from), checks the whole patch to give every edit its status, and, when
asked to apply, first re-hashes every file it would write: any file whose bytes on disk are no
longer the snapshot's is named (all of them, not just the first) and nothing is written
(:class:`StaleFiles`); :func:`recheck` reads them again. The apply itself is
:func:`~.apply.apply_checked` (all-or-nothing, journal, undo), as ``gramwright apply`` does it.

A review is immutable: each decision returns a new one (the TUI keeps the latest).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gramwright.editors.patch.apply import ApplyResult, apply_checked
from gramwright.editors.patch.check import check_patch
from gramwright.editors.patch.locate import Location
from gramwright.editors.patch.model import Edit, Patch, line_ending, split_lines
from gramwright.editors.patch.paths import resolve_path
from gramwright.editors.patch.preview import preview_diff
from gramwright.editors.patch.report import CheckReport, EditCheck
from gramwright.editors.patch.snapshot import FileSnapshot, read_snapshot
from gramwright.editors.patch.splice import replacement_lines
from gramwright.editors.patch.transaction import current_hash
from gramwright.errors import PatchError

__all__ = [
    "DiffLine",
    "Review",
    "StaleFile",
    "StaleFiles",
    "apply_review",
    "edit_diff",
    "export_accepted",
    "open_review",
    "recheck",
    "replace_edit",
    "set_accepted",
    "set_new_text",
    "stale_files",
]

CONTEXT = 3


@dataclass(frozen=True)
class StaleFile:
    """A file whose bytes on disk are no longer those the review read."""

    path: str
    state: str  # "changed" | "removed" | "created" (did not exist when read, exists now)

    def one_line(self) -> str:
        return f"{self.path} {self.state} since the review read it"


class StaleFiles(PatchError):
    """Files changed on disk during the review: nothing written (re-check, then decide again)."""

    def __init__(self, stale: tuple[StaleFile, ...]) -> None:
        names = ", ".join(f"{s.path} ({s.state})" for s in stale)
        super().__init__(
            f"changed on disk since the review read them: {names}; nothing written",
            where=stale[0].path,
            hint="re-check the patch against the files as they are now, then apply again",
        )
        self.stale = stale


@dataclass(frozen=True)
class DiffLine:
    """One row of an edit's diff: ``mark`` is ``" "`` (context), ``"-"`` or ``"+"``; ``number`` is
    the 1-based line of the file as it is (None for an added line)."""

    mark: str
    number: int | None
    text: str  # without its terminator


@dataclass(frozen=True)
class Review:
    """A patch under review: ``accepted`` holds 1-based edit numbers (as :class:`EditCheck.index`);
    ``new_text`` the edits whose new lines the reviewer replaced; ``report`` the check of every edit
    (with those replacements) against ``snapshots``, the files as read."""

    patch: Patch
    root: Path
    fuzzy: bool
    snapshots: Mapping[str, FileSnapshot]
    report: CheckReport
    accepted: frozenset[int]
    new_text: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def edit(self, index: int) -> Edit:
        """Edit ``index`` as it stands (with the reviewer's new text)."""
        edit = self.patch.edits[index - 1]
        return replace(edit, new=self.new_text[index]) if index in self.new_text else edit

    def check(self, index: int) -> EditCheck:
        return next(check for check in self.report.edits if check.index == index)

    @property
    def edited_patch(self) -> Patch:
        """Every edit, with the reviewer's new text."""
        edits = tuple(self.edit(i) for i in range(1, len(self.patch.edits) + 1))
        return replace(self.patch, edits=edits)

    @property
    def accepted_patch(self) -> Patch:
        """The accepted edits (with the reviewer's new text) and the patch's whole-file operations."""
        edits = tuple(self.edit(i) for i in sorted(self.accepted))
        return replace(self.patch, edits=edits)

    def check_accepted(self) -> CheckReport:
        """What applying the accepted set would do, against the snapshots (nothing read again)."""
        return check_patch(self.accepted_patch, self.root, self.fuzzy, snapshots=self.snapshots)

    def files_to_write(self) -> tuple[str, ...]:
        """The files an apply of the accepted set would create, change or remove."""
        report = self.check_accepted()
        out: list[str] = []
        for change in report.files:
            if change.before is not None and change.after == change.before.data:
                continue
            out.append(change.path)
            if change.new_path:
                out.append(change.new_path)
        return tuple(out)


def _read_snapshots(patch: Patch, root: Path) -> dict[str, FileSnapshot]:
    """Every existing file the patch edits, deletes or renames, read once (unreadable ones are left
    to the check, which reports them)."""
    found: dict[str, FileSnapshot] = {}
    items = [(e.path, e.patch_line) for e in patch.edits]
    items += [(d.path, d.patch_line) for d in patch.deletes]
    items += [(r.path, r.patch_line) for r in patch.renames]
    for path, line in items:
        where = resolve_path(root, path, line)
        if where.path in found or not where.real.is_file():
            continue
        try:
            found[where.path] = read_snapshot(where.path, where.real)
        except PatchError:
            continue
    return found


def _checked(review: Review) -> Review:
    report = check_patch(review.edited_patch, review.root, review.fuzzy, snapshots=review.snapshots)
    return replace(review, report=report)


def open_review(patch: Patch, root: Path | str, *, fuzzy: bool = False) -> Review:
    """Read the files, check every edit; every edit that applies starts accepted, failed ones not."""
    base = Path(root).resolve()
    snapshots = _read_snapshots(patch, base)
    report = check_patch(patch, base, fuzzy, snapshots=snapshots)
    accepted = frozenset(check.index for check in report.edits if check.status != "failed")
    return Review(patch, base, fuzzy, snapshots, report, accepted)


def recheck(review: Review) -> Review:
    """Read every file again and re-check (after a file changed on disk, or an undo)."""
    snapshots = _read_snapshots(review.edited_patch, review.root)
    return _checked(replace(review, snapshots=snapshots))


def set_accepted(review: Review, index: int, accepted: bool) -> Review:
    if not 1 <= index <= len(review.patch.edits):
        raise PatchError(f"no edit {index} in this patch", hint=f"edits are 1–{len(review.patch.edits)}")
    chosen = review.accepted | {index} if accepted else review.accepted - {index}
    return replace(review, accepted=frozenset(chosen))


def set_new_text(review: Review, index: int, text: str) -> Review:
    """Replace edit ``index``'s new lines with ``text`` and re-check at once.

    The last line keeps a terminator when the edit's new (or old) text had one, so a text box
    that drops the final newline does not join the edit's last line with the next line of the file.
    """
    original = review.patch.edits[index - 1]
    lines = split_lines(text)
    model = (original.new or original.old)[-1:] if (original.new or original.old) else ()
    ending = line_ending(model[0]) if model else "\n"
    if lines and not line_ending(lines[-1]) and ending:
        lines = (*lines[:-1], lines[-1] + ending)
    new_text = dict(review.new_text)
    if lines == original.new:
        new_text.pop(index, None)
    else:
        new_text[index] = lines
    return _checked(replace(review, new_text=new_text))


def replace_edit(review: Review, index: int, candidates: Sequence[Edit]) -> Review:
    """Edit ``index`` replaced by a regenerated one: of ``candidates`` (a new patch's edits), the
    edit of the same file whose old text is most like the original's. Re-checked at once; it is
    accepted when it applies. :class:`PatchError` when no candidate edits that file."""
    original = review.patch.edits[index - 1]
    key = resolve_path(review.root, original.path, original.patch_line).key
    same = [c for c in candidates if resolve_path(review.root, c.path, c.patch_line).key == key]
    if not same:
        raise PatchError(
            f"the regenerated patch has no edit of {original.path}",
            where=original.path,
            hint="regenerate again, or edit the new text by hand (e)",
        )
    old = "".join(original.old)

    def likeness(edit: Edit) -> float:
        return difflib.SequenceMatcher(None, "".join(edit.old), old, autojunk=False).ratio()

    best = replace(max(same, key=likeness), path=original.path, patch_line=original.patch_line)
    edits = (*review.patch.edits[: index - 1], best, *review.patch.edits[index:])
    new_text = {i: lines for i, lines in review.new_text.items() if i != index}
    checked = _checked(replace(review, patch=replace(review.patch, edits=edits), new_text=new_text))
    return set_accepted(checked, index, checked.check(index).status != "failed")


def stale_files(review: Review) -> tuple[StaleFile, ...]:
    """The files the accepted set touches whose bytes on disk differ from what the review read."""
    stale: list[StaleFile] = []
    seen: set[str] = set()
    for change in review.check_accepted().files:
        for path, key, before in (
            (change.path, change.key, change.before),
            (change.new_path, change.new_key, None),
        ):
            if path is None or key is None or path in seen:
                continue
            seen.add(path)
            now = current_hash(review.root / key)
            if before is None:
                snap = review.snapshots.get(path)
                expected = snap.sha256 if snap is not None else None
            else:
                expected = before.sha256
            if now == expected:
                continue
            state = "removed" if now is None else ("created" if expected is None else "changed")
            stale.append(StaleFile(path, state))
    return tuple(stale)


def apply_review(review: Review) -> ApplyResult:
    """Apply the accepted set, all-or-nothing, through the journal (undo with :func:`~.undo.undo`).

    Every file is re-hashed first: :class:`StaleFiles` names each one that changed and nothing is
    written. The journal keeps the accepted set as a unified diff (what was actually applied).
    """
    stale = stale_files(review)
    if stale:
        raise StaleFiles(stale)
    report = review.check_accepted()
    return apply_checked(report, replace(review.accepted_patch, text=preview_diff(report)))


def export_accepted(review: Review) -> str:
    """The accepted set as a unified diff (``git apply`` and ``gramwright apply`` take it).

    Raises :class:`PatchError` when the accepted set does not apply (the diff is computed from
    the files as they would become).
    """
    report = review.check_accepted()
    if not report.ok:
        first = next((c for c in report.edits if c.status == "failed"), None)
        what = (
            f"edit {first.path} (patch line {first.location.edit.patch_line}) does not apply"
            if first is not None
            else report.problems[0].one_line()
        )
        raise PatchError(
            f"the accepted set does not apply: {what}", hint="reject or fix that edit, then export"
        )
    return preview_diff(report)


def _content(line: str) -> str:
    return line[: len(line) - len(line_ending(line))]


def edit_diff(review: Review, index: int, context: int = CONTEXT) -> tuple[DiffLine, ...]:
    """Edit ``index`` as a diff against its file with ``context`` lines around (empty when the edit
    does not apply: its nearest lines say why)."""
    check = review.check(index)
    location: Location = check.location
    snapshot = review.snapshots.get(check.path)
    if location.match is None or snapshot is None:
        return ()
    lines, match = snapshot.lines, location.match
    new = replacement_lines(location, lines, snapshot.preferred_ending)
    segment = lines[match.start : match.end]
    out = [
        DiffLine(" ", n + 1, _content(lines[n])) for n in range(max(0, match.start - context), match.start)
    ]
    matcher = difflib.SequenceMatcher(None, segment, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(DiffLine(" ", match.start + i + 1, _content(segment[i])) for i in range(i1, i2))
            continue
        out.extend(DiffLine("-", match.start + i + 1, _content(segment[i])) for i in range(i1, i2))
        out.extend(DiffLine("+", None, _content(new[j])) for j in range(j1, j2))
    end = min(len(lines), match.end + context)
    out.extend(DiffLine(" ", n + 1, _content(lines[n])) for n in range(match.end, end))
    return tuple(out)
