"""``undo`` and ``history``: put an apply's files back byte for byte, list what was applied.

Undo refuses — naming the file, writing nothing — when any file is not exactly as the apply left
it (a later edit would be lost). It restores through the same all-or-nothing writer as apply,
then marks the entry undone. Every path is checked against the root again (the journal is a file
on disk like any other).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gramwright.editors.patch import journal
from gramwright.editors.patch.paths import find_root, resolve_path
from gramwright.editors.patch.transaction import Write, commit, current_hash
from gramwright.errors import PatchError

__all__ = ["UndoRefused", "UndoResult", "history", "undo"]


class UndoRefused(PatchError):
    """A file is not as the apply left it: undo would lose a later change."""


@dataclass(frozen=True)
class UndoResult:
    entry: journal.JournalEntry
    restored: tuple[str, ...]


def undo(root: Path | str | None = None, entry_id: str | None = None) -> UndoResult:
    """Undo entry ``entry_id`` (default: the latest still applied) under ``root``."""
    base = Path(root).resolve() if root is not None else find_root()
    entry = journal.load_entry(base, entry_id)
    if entry.status != "applied":
        raise PatchError(
            f"entry {entry.id} is {entry.status}, not applied",
            where=entry.id,
            hint="see `gramwright history`",
        )
    writes: list[Write] = []
    for record in entry.files:
        where = resolve_path(base, record.path, 0)
        now = current_hash(where.real)
        if now != record.after_sha256:
            state = (
                "was removed"
                if now is None
                else ("was created again" if record.after_sha256 is None else "changed")
            )
            raise UndoRefused(
                f"{state} after apply {entry.id}: refused, nothing restored",
                where=record.path,
                hint="undo would lose that later change; save it, or restore by hand from the journal",
            )
        data = journal.original(base, entry, record)
        writes.append(Write(record.path, where.real, record.after_sha256, data, record.before_mode))
    # commit removes first: a renamed file's new path goes before its old one comes back
    # empty directories a created file took the place of (checked before anything is written)
    dirs = [resolve_path(base, d, 0).real for record in entry.files for d in record.empty_dirs]
    commit(writes, why=f"after apply {entry.id}", root=base)
    for directory in dirs:
        directory.mkdir(parents=True, exist_ok=True)
    updated = journal.save_status(base, entry, "undone")
    return UndoResult(updated, tuple(w.path for w in writes))


def history(root: Path | str | None = None) -> list[journal.JournalEntry]:
    """Every journal entry under ``root``, oldest first."""
    base = Path(root).resolve() if root is not None else find_root()
    return journal.entries(base)
