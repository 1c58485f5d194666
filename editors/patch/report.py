"""What a check found, as plain data: per edit, per file, and the problems that stop the patch.

The CLI renders it (human text, or :meth:`CheckReport.as_dict` for ``--format json``, schema in
docs/patches.md); :meth:`CheckReport.feedback` is the same findings as text meant to go back to
the model that wrote the patch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gramwright.editors.patch.locate import Location
from gramwright.editors.patch.model import EditFormat
from gramwright.editors.patch.snapshot import FileSnapshot, sha256

__all__ = ["SCHEMA", "CheckReport", "EditCheck", "FileChange", "Problem"]

SCHEMA = "gramwright.patch-report/1"


@dataclass(frozen=True)
class EditCheck:
    """One edit's verdict: ``index`` is its 1-based number in the patch."""

    index: int
    path: str
    location: Location

    @property
    def status(self) -> str:
        return self.location.status

    @property
    def lines(self) -> tuple[int, int] | None:
        """1-based first and last file line the edit replaces (an insertion: last = first − 1)."""
        match = self.location.match
        return None if match is None else (match.start + 1, match.end)

    def as_dict(self) -> dict[str, Any]:
        loc, lines = self.location, self.lines
        nearest = loc.nearest
        return {
            "index": self.index,
            "path": self.path,
            "patch_line": loc.edit.patch_line,
            "status": self.status,
            "reason": loc.reason or None,
            "tolerance": loc.match.tolerance if loc.match else None,
            # exact but for LF vs CRLF: the file kept its own line endings
            "normalised": "line-endings" if loc.match is not None and loc.match.eol else None,
            "start_line": lines[0] if lines else None,
            "end_line": lines[1] if lines else None,
            "offset": loc.offset,
            "candidates": list(loc.candidates),
            "message": loc.message,
            "hint": loc.hint,
            "nearest": None
            if nearest is None
            else {
                "start_line": nearest.start_line,
                "end_line": nearest.end_line,
                "similarity": nearest.similarity,
                "lines": [{"line": n.number, "text": n.text, "differs": n.differs} for n in nearest.lines],
                "unmatched": list(nearest.unmatched),
            },
        }


@dataclass(frozen=True)
class Problem:
    """Something about a file, not one edit, that stops the patch (missing, binary, exists, …)."""

    path: str
    patch_line: int
    message: str
    hint: str = ""
    # a stable code where one helps (docs/patches.md): "syntax" (the patched file would not parse),
    # "no-change" (the patch applies but leaves every file as it is)
    reason: str = ""
    line: int | None = None  # the file line it is about (syntax: the first error in the new text)

    def one_line(self) -> str:
        where = (
            f"{self.path} (patch line {self.patch_line})" if self.path else f"patch line {self.patch_line}"
        )
        return f"{where}: {self.message}" + (f" — {self.hint}" if self.hint else "")


@dataclass(frozen=True)
class FileChange:
    """One file's change, computed in memory: ``after`` is None for a deletion."""

    path: str
    key: str  # the real path relative to the root
    action: str  # "modify" | "create" | "delete" | "rename"
    before: FileSnapshot | None
    after: bytes | None
    new_path: str | None = None
    new_key: str | None = None
    # Codex's Add File over an existing file (``modify``: the file is replaced whole), or the
    # file at ``new_path`` a rename replaces (``replaced``, kept in the backup)
    overwrote: bool = False
    replaced: FileSnapshot | None = None

    def as_dict(self) -> dict[str, Any]:
        before = self.before
        return {
            "path": self.path,
            "action": self.action,
            "new_path": self.new_path,
            "overwrote": self.overwrote or self.replaced is not None,
            "before_sha256": before.sha256 if before else None,
            "after_sha256": sha256(self.after) if self.after is not None else None,
            "encoding": before.encoding if before else "utf-8",
            "newline": before.newline if before else None,
            "final_newline": before.final_newline if before else None,
        }


@dataclass(frozen=True)
class CheckReport:
    """Every edit located (or not), every file's new content, and whatever stops the patch."""

    format: EditFormat
    detected: str
    root: str
    edits: tuple[EditCheck, ...]
    files: tuple[FileChange, ...]
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems and all(e.status != "failed" for e in self.edits)

    def as_dict(self) -> dict[str, Any]:
        counts = {s: sum(1 for e in self.edits if e.status == s) for s in ("exact", "tolerant", "failed")}
        return {
            "schema": SCHEMA,
            "format": self.format.value,
            "detected": self.detected,
            "root": self.root,
            "ok": self.ok,
            "summary": {
                **counts,
                "edits": len(self.edits),
                "files": len(self.files),
                "problems": len(self.problems),
            },
            "edits": [e.as_dict() for e in self.edits],
            "files": [f.as_dict() for f in self.files],
            "problems": [
                {
                    "path": p.path,
                    "patch_line": p.patch_line,
                    "message": p.message,
                    "hint": p.hint,
                    "reason": p.reason or None,
                    "line": p.line,
                }
                for p in self.problems
            ],
            "notes": list(self.notes),
        }

    def feedback(self) -> str:
        """The failures as text for the model that wrote the patch (empty when the patch applies)."""
        parts = [f"{p.one_line()}" for p in self.problems]
        for check in self.edits:
            loc = check.location
            if check.status != "failed":
                continue
            text = (
                f"edit {check.index} ({check.path}, patch line {loc.edit.patch_line}) failed: {loc.message}."
            )
            if loc.hint:
                text += f" {loc.hint[0].upper()}{loc.hint[1:]}."
            if loc.nearest is not None:
                n = loc.nearest
                text += f"\nDid you mean {n.span} ({n.similarity:.0%} similar)?"
                text += f"\n{n.render()}"
            parts.append(text)
        return "\n\n".join(parts)
