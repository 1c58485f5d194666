"""The backup journal under the project root: one entry per apply, written before any file is.

::

    .gramwright/journal/<id>/entry.json   time, format, status, and per file: path, action, the
                                          hash/mode/existence before and after
    .gramwright/journal/<id>/patch.txt    the patch text as given
    .gramwright/journal/<id>/<n>.orig     the original bytes of file n (when it existed)

``entry.json`` is written last, so a half-written entry (the process died) is not an entry.
The journal is ignored by git (a ``.gitignore`` of ``*`` in ``.gramwright/``).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gramwright.editors.patch.paths import JOURNAL_DIR
from gramwright.errors import PatchError
from gramwright.fsutil import atomic_write_bytes, atomic_write_text

__all__ = [
    "FileRecord",
    "JournalEntry",
    "entries",
    "load_entry",
    "new_entry",
    "original",
    "remove_entry",
    "save_status",
]

_ENTRY = "entry.json"


@dataclass(frozen=True)
class FileRecord:
    """One file's state before and after an apply (the path is relative to the root)."""

    path: str
    action: str
    before_sha256: str | None  # None: the file did not exist
    before_mode: int | None
    blob: str | None  # the file in the entry holding the original bytes
    after_sha256: str | None  # None: the apply removed the file
    empty_dirs: tuple[str, ...] = ()  # empty directories the new file took the place of


@dataclass(frozen=True)
class JournalEntry:
    id: str
    time: str
    format: str
    status: str  # "applied" | "undone" | "incomplete" (a failed write that could not be put back)
    files: tuple[FileRecord, ...]
    undone_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "files": [asdict(f) for f in self.files]}


def _journal(root: Path) -> Path:
    return root / JOURNAL_DIR / "journal"


def _now() -> datetime:
    return datetime.now(UTC)


def new_entry(
    root: Path, fmt: str, patch_text: str, files: list[tuple[FileRecord, bytes | None]]
) -> JournalEntry:
    """Store the originals and the patch as a new entry (before anything is written)."""
    base = root / JOURNAL_DIR
    base.mkdir(exist_ok=True)
    if not (base / ".gitignore").exists():
        atomic_write_text(base / ".gitignore", "*\n")
    now = _now()
    journal = _journal(root)
    journal.mkdir(exist_ok=True)
    while True:  # ids sort by time; the random tail keeps two applies in one second apart
        entry_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        directory = journal / entry_id
        try:
            directory.mkdir()
            break
        except FileExistsError:
            continue
    records = []
    for number, (record, data) in enumerate(files):
        if data is not None:
            blob = f"{number}.orig"
            atomic_write_bytes(directory / blob, data)
            record = replace(record, blob=blob)
        records.append(record)
    atomic_write_text(directory / "patch.txt", patch_text)
    entry = JournalEntry(entry_id, now.isoformat(timespec="microseconds"), fmt, "applied", tuple(records))
    atomic_write_text(directory / _ENTRY, json.dumps(entry.as_dict(), indent=2) + "\n")
    return entry


def _read(directory: Path) -> JournalEntry:
    try:
        data = json.loads((directory / _ENTRY).read_text(encoding="utf-8"))
        files = tuple(
            FileRecord(**{**f, "empty_dirs": tuple(f.get("empty_dirs", ()))}) for f in data.pop("files")
        )
        return JournalEntry(files=files, **data)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise PatchError(
            f"unreadable journal entry: {exc}",
            where=str(directory / _ENTRY),
            hint="the entry is damaged; restore by hand from its .orig files",
        ) from None


def entries(root: Path) -> list[JournalEntry]:
    """Every entry, oldest first."""
    journal = _journal(root)
    if not journal.is_dir():
        return []
    found = [_read(d) for d in journal.iterdir() if (d / _ENTRY).is_file()]
    return sorted(found, key=lambda e: e.time)


def load_entry(root: Path, entry_id: str | None) -> JournalEntry:
    """The entry ``entry_id``, or the latest one still applied when it is None."""
    if entry_id is None:
        live = [e for e in entries(root) if e.status == "applied"]
        if not live:
            raise PatchError(
                "nothing to undo: no applied patch in the journal",
                where=str(_journal(root)),
                hint="see `gramwright history`",
            )
        return live[-1]
    directory = _journal(root) / entry_id
    if "/" in entry_id or entry_id.startswith(".") or not (directory / _ENTRY).is_file():
        raise PatchError(
            f"no journal entry {entry_id!r}",
            where=str(_journal(root)),
            hint="see `gramwright history` for the ids",
        )
    return _read(directory)


def original(root: Path, entry: JournalEntry, record: FileRecord) -> bytes | None:
    """The bytes the file had before the apply (None: it did not exist)."""
    if record.blob is None:
        return None
    return (_journal(root) / entry.id / record.blob).read_bytes()


def save_status(root: Path, entry: JournalEntry, status: str) -> JournalEntry:
    undone_at = _now().isoformat(timespec="microseconds") if status == "undone" else entry.undone_at
    updated = replace(entry, status=status, undone_at=undone_at)
    atomic_write_text(_journal(root) / entry.id / _ENTRY, json.dumps(updated.as_dict(), indent=2) + "\n")
    return updated


def remove_entry(root: Path, entry: JournalEntry) -> None:
    """Drop an entry whose apply changed nothing (its write failed and everything was put back)."""
    directory = _journal(root) / entry.id
    for child in directory.iterdir():
        child.unlink()
    directory.rmdir()
