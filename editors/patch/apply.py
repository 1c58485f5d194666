"""``apply_patch``: check, back up, then write every changed file all-or-nothing.

Nothing is written unless the whole patch applies. The new bytes come from the check's report
(computed in memory); the originals go to the backup journal before the first write; the writes
re-check each file's hash and restore everything on failure (:mod:`.transaction`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gramwright.editors.patch import journal
from gramwright.editors.patch.check import check_patch
from gramwright.editors.patch.model import Patch
from gramwright.editors.patch.report import CheckReport, FileChange
from gramwright.editors.patch.snapshot import sha256
from gramwright.editors.patch.transaction import Write, WriteFailed, commit
from gramwright.errors import PatchError

__all__ = ["ApplyResult", "apply_checked", "apply_patch", "plan_writes"]


@dataclass(frozen=True)
class ApplyResult:
    """The check's report; ``applied`` when the files were written, ``entry_id`` the backup."""

    report: CheckReport
    applied: bool
    entry_id: str | None
    written: tuple[str, ...]  # paths (relative to the root) created, changed or removed


def _writes(change: FileChange, root: Path) -> list[tuple[Write, journal.FileRecord, bytes | None]]:
    before = change.before
    old_sha = before.sha256 if before else None
    mode = before.mode if before else None
    out: list[tuple[Write, journal.FileRecord, bytes | None]] = []
    if change.action == "rename":
        assert change.new_key is not None and change.after is not None and before is not None
        # a file the rename replaces (Codex's Move to) is journaled, so undo brings it back
        gone_sha = change.replaced.sha256 if change.replaced else None
        gone_mode = change.replaced.mode if change.replaced else None
        moved = Write(change.new_key, root / change.new_key, gone_sha, change.after, mode)
        record = journal.FileRecord(
            change.new_key, "rename-to", gone_sha, gone_mode, None, sha256(change.after)
        )
        out.append((moved, record, change.replaced.data if change.replaced else None))
        gone = Write(change.key, root / change.key, old_sha, None)
        out.append(
            (gone, journal.FileRecord(change.key, "rename-from", old_sha, mode, None, None), before.data)
        )
        return out
    if before is not None and change.after == before.data:
        return out  # nothing changes in this file
    write = Write(change.key, root / change.key, old_sha, change.after)
    after_sha = sha256(change.after) if change.after is not None else None
    record = journal.FileRecord(change.key, change.action, old_sha, mode, None, after_sha)
    return [(write, record, before.data if before else None)]


def _empty_dir(root: Path, record: journal.FileRecord) -> journal.FileRecord:
    """A new file may take the place of an empty directory (git tracks none): the record names
    it, so undo puts it back."""
    top = root / record.path
    if record.before_sha256 is not None or top.is_symlink() or not top.is_dir() or any(top.iterdir()):
        return record
    return replace(record, empty_dirs=(record.path,))


def plan_writes(report: CheckReport) -> list[tuple[Write, journal.FileRecord, bytes | None]]:
    """The writes (and journal records, with original bytes) that carry out ``report``."""
    root = Path(report.root)
    plan = [item for change in report.files for item in _writes(change, root)]
    return [(write, _empty_dir(root, record), data) for write, record, data in plan]


def apply_patch(
    patch: Patch, root: Path | str, *, fuzzy: bool = False, allow_broken_syntax: bool = False
) -> ApplyResult:
    """Apply ``patch`` under ``root`` if every edit applies; otherwise write nothing.

    A patch that would leave a file unparseable in its language is not applied unless
    ``allow_broken_syntax``. Raises :class:`PatchError` for unsafe paths and for a write that
    failed (after restoring every file already written); a patch that does not apply is
    ``applied=False`` with the report.
    """
    report = check_patch(patch, root, fuzzy, allow_broken_syntax=allow_broken_syntax)
    return apply_checked(report, patch)


def apply_checked(report: CheckReport, patch: Patch) -> ApplyResult:
    """Write what ``report`` — ``check_patch(patch, ...)``'s — computed, without checking the
    patch again (each write still re-checks its file's hash, so a file changed since the check is
    refused and nothing is written). A report that is not ``ok`` writes nothing."""
    if not report.ok:
        return ApplyResult(report, False, None, ())
    plan = plan_writes(report)
    if not plan:
        return ApplyResult(report, True, None, ())
    root_path = Path(report.root)
    entry = journal.new_entry(
        root_path, patch.format.value, patch.text, [(rec, data) for _, rec, data in plan]
    )
    try:
        commit([write for write, _, _ in plan], root=root_path)
    except WriteFailed as exc:
        if exc.stuck:
            journal.save_status(root_path, entry, "incomplete")
        else:
            journal.remove_entry(root_path, entry)
        raise
    except PatchError:  # refused before writing, or written and put back: nothing changed
        journal.remove_entry(root_path, entry)
        raise
    return ApplyResult(report, True, entry.id, tuple(write.path for write, _, _ in plan))
