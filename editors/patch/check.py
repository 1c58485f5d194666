"""``check_patch``: is this patch applicable to the files under ``root``, and what would they become?

Order matters for safety: every path is resolved and checked first (an escaping path raises before
any file is read); then each file is read once into a snapshot; then every edit is located, edits
of one file must not overlap, and each file's new bytes are computed in memory; a file that
parsed before and would not after (:mod:`.syntax`) stops the patch. Nothing is
written here — :mod:`.apply` writes exactly what this report computed.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from gramwright.editors.patch.locate import Location, locate
from gramwright.editors.patch.model import Edit, EditFormat, FileCreate, FileDelete, FileRename, Patch
from gramwright.editors.patch.paths import ResolvedPath, inside_root, resolve_path
from gramwright.editors.patch.report import CheckReport, EditCheck, FileChange, Problem
from gramwright.editors.patch.snapshot import FileSnapshot, read_snapshot
from gramwright.editors.patch.splice import splice
from gramwright.editors.patch.syntax import new_syntax_error
from gramwright.errors import PatchError

__all__ = ["check_patch"]

# what each level of a Codex seek ignored, for the note that names it
_SEEK = {
    "trailing-whitespace": "trailing whitespace ignored",
    "crlf": "line terminators and trailing whitespace ignored",
    "indent": "a uniform indentation shift, applied to the new lines too",
    "unicode": "a uniform indentation shift and Unicode punctuation read as ASCII",
    "trim": "each line's leading and trailing whitespace ignored",
    "trim-unicode": "each line trimmed and Unicode punctuation read as ASCII",
}


@dataclass
class _Target:
    where: ResolvedPath
    edits: list[tuple[int, Edit]] = field(default_factory=list)
    creates: list[FileCreate] = field(default_factory=list)
    deletes: list[FileDelete] = field(default_factory=list)
    renames: list[FileRename] = field(default_factory=list)


class _Checker:
    def __init__(
        self,
        patch: Patch,
        root: Path,
        fuzzy: bool,
        snapshots: Mapping[str, FileSnapshot] | None = None,
        allow_broken_syntax: bool = False,
        given_root: Path | None = None,
    ) -> None:
        self.patch, self.root, self.fuzzy = patch, root, fuzzy
        self.given_root = given_root or root
        self.snapshots = snapshots or {}
        self.allow_broken_syntax = allow_broken_syntax
        self.notes: list[str] = list(patch.notes)
        self.targets: dict[str, _Target] = {}
        self.rename_to: dict[str, tuple[ResolvedPath, FileRename]] = {}
        self.checks: list[EditCheck] = []
        self.changes: list[FileChange] = []
        self.problems: list[Problem] = []

    def resolve(self, path: str, line: int) -> ResolvedPath:
        if self.patch.format is EditFormat.APPLY_PATCH:  # Codex takes absolute paths
            path = inside_root(path, self.given_root, self.root) or path
        return resolve_path(self.root, path, line)

    def target(self, path: str, line: int) -> _Target:
        where = self.resolve(path, line)
        return self.targets.setdefault(where.key, _Target(where))

    def collect(self) -> None:
        """Resolve every path (raising on the first unsafe one) before anything is read."""
        for index, edit in enumerate(self.patch.edits, 1):
            self.target(edit.path, edit.patch_line).edits.append((index, edit))
        for create in self.patch.creates:
            self.target(create.path, create.patch_line).creates.append(create)
        for delete in self.patch.deletes:
            self.target(delete.path, delete.patch_line).deletes.append(delete)
        for rename in self.patch.renames:
            self.target(rename.path, rename.patch_line).renames.append(rename)
            dest = self.resolve(rename.new_path, rename.patch_line)
            self.rename_to[dest.key] = (dest, rename)
        for path, line in self.patch.named:
            self.resolve(path, line)

    def problem(self, where: ResolvedPath, line: int, message: str, hint: str = "") -> None:
        self.problems.append(Problem(where.path, line, message, hint))

    def fail_edits(self, target: _Target, message: str, hint: str, reason: str) -> None:
        for index, edit in target.edits:
            location = Location(edit, None, message=message, hint=hint, reason=reason)
            self.checks.append(EditCheck(index, target.where.path, location))

    def run(self) -> CheckReport:
        self.collect()
        for target in self.targets.values():
            self.check_target(target)
        for path, line in self.patch.named:  # a mode change: nothing to do, but on a real file
            where = self.resolve(path, line)
            if not where.real.is_file():
                self.problem(
                    where, line, "no such file (the section changes its mode only)", "check the path"
                )
        self.checks.sort(key=lambda check: check.index)
        if not self.problems and all(check.status != "failed" for check in self.checks):
            self.check_changes_something()
        return CheckReport(
            format=self.patch.format,
            detected=self.patch.detected,
            root=str(self.root),
            edits=tuple(self.checks),
            files=tuple(self.changes),
            problems=tuple(self.problems),
            notes=tuple(self.notes),
        )

    def check_changes_something(self) -> None:
        """A patch that applies but would leave every file as it is, is not applicable: an agent
        that trusts the exit status would think the edit was made (an empty envelope, a hunk of
        context lines only, a REPLACE equal to its SEARCH, mode changes that are ignored)."""
        if any(c.action != "modify" or c.before is None or c.after != c.before.data for c in self.changes):
            return
        paths = self.patch.paths()
        lines = [e.patch_line for e in self.patch.edits] or [1]
        what = (
            "every edit's new lines equal its old lines"
            if self.patch.edits
            else "it has no edits, creations, deletions or renames"
        )
        self.problems.append(
            Problem(
                paths[0] if paths else "",
                min(lines),
                f"the patch changes nothing: {what}",
                "make the new lines differ from the old ones (or was it applied before?)",
                reason="no-change",
            )
        )

    def breaks_syntax(self, where: ResolvedPath, line: int, before: str | None, after: str) -> bool:
        """True (and a problem recorded) when ``after`` no longer parses where ``before`` did; with
        ``allow_broken_syntax`` the finding is a note and the change goes ahead."""
        found = new_syntax_error(where.path, before, after)
        if found is None:
            return False
        what = (
            f"would no longer parse as {found.language}"
            if before is not None
            else (f"would not parse as {found.language}")
        )
        if self.allow_broken_syntax:
            self.notes.append(
                f"{where.path}: {what} ({found.one_line()}); written anyway (--allow-broken-syntax)"
            )
            return False
        self.problems.append(
            Problem(
                where.path,
                line,
                f"the patched file {what}: {found.one_line()}",
                "fix the new lines (or --allow-broken-syntax to write it anyway)",
                reason="syntax",
                line=found.line,
            )
        )
        return True

    def leaves(self, path: Path) -> bool:
        """Whether this patch removes the file at ``path`` (deletes it, or renames it away)."""
        key = path.relative_to(self.root).as_posix()
        target = self.targets.get(key)
        return target is not None and bool(target.deletes or target.renames) and key not in self.rename_to

    def occupied(self, where: ResolvedPath, line: int, *, parents: bool = False) -> bool:
        """True (and a problem recorded) when ``where`` cannot become a file: it is a directory
        that still holds something once this patch's removals have pruned the directories they
        empty (or, with ``parents``, a parent is a file the patch keeps). A file and a directory
        may so trade places (``foo`` -> ``foo/baz`` and back), as git applies it: removals are
        written first."""
        parent = next((p for p in where.real.parents if p.exists()), self.root)
        if parents and not parent.is_dir() and not self.leaves(parent):
            self.problem(where, line, f"cannot create it: {parent.name} is a file, not a directory")
            return True
        if not where.real.is_dir():
            return False
        gone = [key for key in self.targets if self.leaves(self.root / key)]
        stays = [
            name
            for name in (f.relative_to(self.root).as_posix() for f in sorted(where.real.rglob("*")))
            if name not in gone and not any(key.startswith(name + "/") for key in gone)
        ]
        if stays:
            self.problem(
                where,
                line,
                f"cannot create it: it is a directory holding {stays[0]}",
                "remove what the directory holds in the same patch, or pick another name",
            )
        return bool(stays)

    def read(self, target: _Target, line: int) -> FileSnapshot | bool | None:
        """The snapshot, None when the file does not exist, False when it cannot be used."""
        if target.where.path in self.snapshots:
            return self.snapshots[target.where.path]
        if not target.where.real.exists():
            return None
        try:
            return read_snapshot(target.where.path, target.where.real)
        except PatchError as exc:
            self.problem(
                target.where, line, f"{exc.message} ({exc.where})" if exc.where else exc.message, exc.hint
            )
            self.fail_edits(target, "file refused (see the problem above)", exc.hint, "refused-file")
            return False

    def check_target(self, target: _Target) -> None:
        where = target.where
        first = min(
            [e.patch_line for _, e in target.edits]
            + [c.patch_line for c in target.creates]
            + [d.patch_line for d in target.deletes]
            + [r.patch_line for r in target.renames]
        )
        if len(target.creates) + len(target.deletes) + len(target.renames) > 1 or (
            (target.creates or target.deletes) and target.edits
        ):
            self.problem(
                where, first, "the patch both creates/deletes/renames this file and changes it again"
            )
            self.fail_edits(
                target, "conflicts with another operation on this file", "one operation per file", "conflict"
            )
            return
        if where.key in self.rename_to and self.rename_to[where.key][1] not in target.renames:
            self.problem(
                where, first, "a rename in this patch moves another file here", "one operation per file"
            )
            return
        snapshot = None if target.creates and target.where.real.is_dir() else self.read(target, first)
        if snapshot is False:
            return
        assert snapshot is not True
        if target.creates:
            self.check_create(target, target.creates[0], snapshot)
        elif target.deletes:
            self.check_delete(target, target.deletes[0], snapshot)
        else:
            self.check_edits(target, snapshot)

    def check_create(self, target: _Target, create: FileCreate, snapshot: FileSnapshot | None) -> None:
        where = target.where
        overwrite = snapshot is not None and (bool(snapshot.data) or not create.if_empty)
        if overwrite and not create.overwrite:
            self.problem(
                where,
                create.patch_line,
                "already exists",
                "to change it, give old lines to replace; to replace it whole, delete it first",
            )
            return
        if self.occupied(where, create.patch_line):
            return
        for parent in where.real.parents:
            if parent.exists():
                if not parent.is_dir() and not self.leaves(parent):
                    self.problem(
                        where,
                        create.patch_line,
                        f"cannot create it: {parent.name} is a file, not a directory",
                    )
                    return
                break
        if self.breaks_syntax(where, create.patch_line, None, create.content):
            return
        if overwrite and snapshot is not None:  # Codex's Add File: the file is what the patch says
            self.notes.append(
                f"{where.path}: '*** Add File:' names an existing file: overwrote it, as Codex does"
                " (the old content is in the backup; `gramwright undo` restores it)"
            )
            after = create.content.encode("utf-8")
            change = FileChange(where.path, where.key, "modify", snapshot, after, overwrote=True)
        elif snapshot is not None:  # an existing empty file takes the new content in its encoding
            change = FileChange(where.path, where.key, "modify", snapshot, snapshot.encode(create.content))
        else:
            change = FileChange(where.path, where.key, "create", None, create.content.encode("utf-8"))
        self.changes.append(change)

    def check_delete(self, target: _Target, delete: FileDelete, snapshot: FileSnapshot | None) -> None:
        where = target.where
        if snapshot is None:
            self.problem(where, delete.patch_line, "no such file to delete", "check the path")
            return
        if delete.expected is not None and "".join(delete.expected) != snapshot.text:
            mine, theirs = snapshot.lines, delete.expected
            line = next(
                (i + 1 for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                min(len(mine), len(theirs)) + 1,
            )
            self.problem(
                where,
                delete.patch_line,
                f"differs from the content the diff deletes (from line {line} on)",
                "regenerate the diff against the current file",
            )
            return
        self.changes.append(FileChange(where.path, where.key, "delete", snapshot, None))

    def check_edits(self, target: _Target, snapshot: FileSnapshot | None) -> None:
        where = target.where
        if snapshot is None and target.edits and all(e.may_create for _, e in target.edits):
            _, edit = target.edits[0]
            target.edits = []
            self.check_create(target, FileCreate(where.path, "".join(edit.new), edit.patch_line), None)
            return
        if snapshot is None:
            hint = "check the path; to create a file use an empty SEARCH, '--- /dev/null' or '*** Add File:'"
            self.fail_edits(target, "no such file", hint, "no-file")
            if not target.edits:
                self.problem(where, target.renames[0].patch_line, "no such file to rename", "check the path")
            return
        located: list[tuple[int, Location]] = []
        cursor = 0
        for index, edit in target.edits:
            location = locate(edit, snapshot.lines, fuzzy=self.fuzzy, cursor=cursor)
            # a chunk of added lines placed at the end for want of context does not move the next
            # chunk's start (Codex's order: it is placed, the seek goes on where it was)
            if location.match is not None and edit.in_order and (edit.old or edit.anchor):
                cursor = location.match.end
            if location.match is not None and location.match.level and edit.codex_seek:
                level = location.match.tolerance or ""
                what = _SEEK.get(level, "")
                self.notes.append(
                    f"patch line {edit.patch_line}: not in {where.path} exactly; matched at line"
                    f" {location.match.start + 1} by Codex's tolerant seek ({level}: {what});"
                    " the lines the chunk keeps keep the file's own characters"
                )
            located.append((index, location))
        located = _mark_overlaps(located)
        self.checks.extend(EditCheck(index, where.path, loc) for index, loc in located)
        if any(loc.match is None for _, loc in located):
            return
        text = splice(snapshot, [loc for _, loc in located])
        first = min((edit.patch_line for _, edit in target.edits), default=0)
        if target.renames:
            rename = target.renames[0]
            dest = self.resolve(rename.new_path, rename.patch_line)
            # judged in the language of the new name, against the content it had before
            if self.breaks_syntax(dest, first or rename.patch_line, snapshot.text, text):
                return
            replaced = None
            if dest.key != where.key and (
                (dest.real.exists() and not dest.real.is_dir()) or dest.real.is_symlink()
            ):
                replaced = self.replaced(where, dest, rename)
                if replaced is None:
                    return
            if dest.key != where.key and self.occupied(dest, rename.patch_line, parents=True):
                return
            after = snapshot.encode(text)
            self.changes.append(
                FileChange(
                    where.path, where.key, "rename", snapshot, after, dest.path, dest.key, replaced=replaced
                )
            )
        elif not self.breaks_syntax(where, first, snapshot.text, text):
            self.changes.append(FileChange(where.path, where.key, "modify", snapshot, snapshot.encode(text)))

    def replaced(self, where: ResolvedPath, dest: ResolvedPath, rename: FileRename) -> FileSnapshot | None:
        """The file a rename would overwrite (Codex's Move to onto an existing file), read so the
        backup keeps it; None (and a problem) when the rename may not overwrite it."""
        if not rename.overwrite:
            self.problem(
                where,
                rename.patch_line,
                f"cannot rename to {dest.path}: it exists",
                "delete it first or pick another name",
            )
            return None
        try:
            replaced = read_snapshot(dest.path, dest.real)
        except PatchError as exc:
            self.problem(where, rename.patch_line, f"cannot overwrite {dest.path}: {exc.message}", exc.hint)
            return None
        self.notes.append(
            f"{dest.path}: '*** Move to:' names an existing file: overwrote it, as Codex does"
            " (the old content is in the backup; `gramwright undo` restores it)"
        )
        return replaced


def _mark_overlaps(located: list[tuple[int, Location]]) -> list[tuple[int, Location]]:
    """Edits of one file that touch the same lines both fail, each naming the other."""
    placed = sorted((loc.match.start, loc.match.end, i) for i, (_, loc) in enumerate(located) if loc.match)
    clashes: dict[int, int] = {}
    for (s1, e1, a), (s2, e2, b) in itertools.pairwise(placed):
        if s2 < e1 or (s1 == e1 == s2 == e2):
            clashes.setdefault(a, b)
            clashes.setdefault(b, a)
    out = list(located)
    for mine, other in clashes.items():
        index, loc = located[mine]
        other_index, other_loc = located[other]
        assert loc.match is not None and other_loc.match is not None
        message = (
            f"overlaps edit {other_index} (patch line {other_loc.edit.patch_line}): both touch lines"
            f" {loc.match.start + 1}–{max(loc.match.end, loc.match.start + 1)}"
        )
        out[mine] = (
            index,
            replace(loc, match=None, message=message, hint="merge the two edits into one", reason="overlap"),
        )
    return out


def check_patch(
    patch: Patch,
    root: Path | str,
    fuzzy: bool = False,
    *,
    snapshots: Mapping[str, FileSnapshot] | None = None,
    allow_broken_syntax: bool = False,
) -> CheckReport:
    """Check ``patch`` against the files under ``root`` without writing anything.

    ``snapshots`` (by path relative to ``root``) are files the caller has read already: they are
    not read again (an apply still re-checks each file's hash before it writes). A file that
    parsed in its language (:mod:`.syntax`) and would not after the patch is a problem (reason
    ``syntax``, with the line of the first error); ``allow_broken_syntax`` turns that into a note.
    Raises :class:`PatchError` for a path that escapes ``root`` (before any file is read); every
    other finding is in the report (``report.ok`` says whether the patch applies).
    """
    given = Path(root).absolute()
    return _Checker(patch, given.resolve(), fuzzy, snapshots, allow_broken_syntax, given).run()
