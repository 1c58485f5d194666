"""The patch data model: what every parser produces and every later step consumes (plain data, no IO).

An :class:`Edit` is one change to one file: the exact old text as a run of whole lines and the new
text that replaces it. A :class:`Patch` is an ordered list of edits over one or more files, plus file
creations, deletions and renames. Lines keep their terminators (``"x\\n"``, ``"x\\r\\n"``, or ``"x"``
for a last line without one), so ``"".join(lines)`` is the text again and CRLF or a missing final
newline is never lost on the way through.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "Edit",
    "EditFormat",
    "FileCreate",
    "FileDelete",
    "FileRename",
    "Patch",
    "line_content",
    "line_ending",
    "split_lines",
]


class EditFormat(StrEnum):
    """The three formats models emit (names as aider's ``--edit-format`` spells them)."""

    SEARCH_REPLACE = "search-replace"
    UDIFF = "udiff"
    APPLY_PATCH = "apply-patch"


def split_lines(text: str) -> tuple[str, ...]:
    """Split on ``\\n`` only, keeping terminators: ``"a\\r\\nb"`` → ``("a\\r\\n", "b")``.

    ``str.splitlines`` also splits on ``\\r``, ``\\x0b``, ``\\u2028`` …, which would change a line's
    content; files and patches are lines ended by ``\\n`` (with an optional ``\\r`` before it).
    """
    if not text:
        return ()
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return tuple(lines)


def line_ending(line: str) -> str:
    """The terminator of one line: ``"\\r\\n"``, ``"\\n"`` or ``""`` (last line without one)."""
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def line_content(line: str) -> str:
    """The line without its terminator."""
    return line[: len(line) - len(line_ending(line))]


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (a run of whole lines of the file at ``path``) with ``new``.

    ``patch_line`` is the 1-based line of the patch text where the edit starts (for messages).
    The other fields say how strictly the location is pinned, as the source format defines it:

    - ``hint_line``: the 1-based line where the patch expects ``old`` to start (a unified diff's
      ``@@ -N`` header); it chooses among several exact matches, nearest first.
    - ``at_start`` / ``at_end``: the match must start at the file's first line / end at its last
      (git apply's rule for hunks at line 1 and hunks without trailing context; Codex's
      ``*** End of File``).
    - ``exact_eol``: line terminators and the missing final newline are part of the old text
      (unified diffs spell them out; SEARCH/REPLACE text cannot, so there the file's own are kept).
    - ``anchor``: lines that must come before the match, found in order (Codex's ``@@ class A`` /
      ``@@ def f():``); the match is then the first one after the last of them.
    - ``in_order``: the match must start after the previous edit of the same file (Codex's
      chunks are in file order).
    - ``may_create``: the edit has no old lines and creates its file when the file is missing
      (git apply's rule for a diff that says neither "new" nor "deleted").
    - ``codex_seek``: when the old lines are not in the file exactly, Codex's own tolerant seek
      applies without ``fuzzy`` (trailing whitespace, then both ends, then Unicode punctuation;
      the level is reported): apply-patch text is what Codex's ``apply_patch`` accepts.
    - ``ops``: the patch's own line kinds in order, ``" "`` kept (in ``old`` and ``new``),
      ``"-"`` removed, ``"+"`` added (diff hunks, apply-patch chunks); which of several equal
      lines is kept is then the patch's word, not a guess. Empty: not spelled out.
    """

    path: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    patch_line: int
    hint_line: int | None = None
    at_start: bool = False
    at_end: bool = False
    exact_eol: bool = False
    anchor: tuple[str, ...] = ()
    in_order: bool = False
    may_create: bool = False
    codex_seek: bool = False
    ops: str = ""


@dataclass(frozen=True)
class FileCreate:
    """Create ``path`` with ``content``; refused when the file exists (unless it is empty and
    ``if_empty``: git apply refuses any existing file, aider writes into an empty one), or, with
    ``overwrite`` (Codex's ``*** Add File:``), replaced whole, reported and kept in the backup."""

    path: str
    content: str
    patch_line: int
    if_empty: bool = True
    overwrite: bool = False


@dataclass(frozen=True)
class FileDelete:
    """Delete ``path``. ``expected`` (unified diffs) is the whole content the file must have."""

    path: str
    patch_line: int
    expected: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FileRename:
    """Move ``path`` to ``new_path``; the patch's edits of ``path`` apply before the move. An
    existing ``new_path`` is refused, or with ``overwrite`` (Codex's ``*** Move to:``) replaced,
    reported and kept in the backup."""

    path: str
    new_path: str
    patch_line: int
    overwrite: bool = False


@dataclass(frozen=True)
class Patch:
    """A parsed patch: edits in patch order, plus whole-file operations, over one or more files.

    ``detected`` says how the format was chosen (``"--edit-format udiff"`` or the evidence that
    auto-detection saw); ``notes`` are things a parser did that the user should know about
    (a recounted hunk header, a path taken from the previous block).
    """

    format: EditFormat
    edits: tuple[Edit, ...] = ()
    creates: tuple[FileCreate, ...] = ()
    deletes: tuple[FileDelete, ...] = ()
    renames: tuple[FileRename, ...] = ()
    text: str = ""
    detected: str = ""
    notes: tuple[str, ...] = field(default=())
    # (path, patch line) of sections with nothing to apply (a git mode change): the file must exist
    named: tuple[tuple[str, int], ...] = ()

    def paths(self) -> tuple[str, ...]:
        """Every path the patch names, in first-mention order (rename targets included)."""
        seen: dict[str, None] = {}
        for edit in self.edits:
            seen.setdefault(edit.path, None)
        for create in self.creates:
            seen.setdefault(create.path, None)
        for delete in self.deletes:
            seen.setdefault(delete.path, None)
        for rename in self.renames:
            seen.setdefault(rename.path, None)
            seen.setdefault(rename.new_path, None)
        return tuple(seen)
