"""Unified diffs (git, GNU diff, aider's udiff) → :class:`Patch`, parsed by ``unidiff``.

``unidiff`` is strict about hunk sizes: the counts in ``@@ -a,b +c,d @@`` must equal the body. Models
get them wrong or leave them out (aider asks for ``@@ ... @@``), so a pre-pass (:mod:`.recount`)
rewrites those headers from the body first, one line for one line, so that patch line numbers stay
true. Hunks whose header had no numbers carry no line hint and no git anchoring.

Names and operations come from :mod:`.headers` (git apply's rules: git diffs lose their first
component, ``-p1``; plain ``---``/``+++`` pairs lose ``a/``/``b/`` only when both sides carry
them, aider's rule). ``--- /dev/null`` (or an epoch timestamp) creates a file, ``+++ /dev/null``
deletes one (and its ``-`` lines are the content it must have), git's ``rename from``/``rename
to`` move one, and a one-hunk section without old lines creates a missing file.
``\\ No newline at end of file`` removes the terminator of
the line before it, on the side that line belongs to.
"""

from __future__ import annotations

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

from gramwright.editors.patch.headers import Section, read_headers, unquote
from gramwright.editors.patch.model import (
    Edit,
    EditFormat,
    FileCreate,
    FileDelete,
    FileRename,
    Patch,
    split_lines,
)
from gramwright.editors.patch.recount import recount_hunks
from gramwright.errors import PatchError

__all__ = ["parse_udiff"]


def _info(pf: PatchedFile, prefix: str) -> str | None:
    for line in pf.patch_info or ():
        if line.startswith(prefix):
            return unquote(line[len(prefix) :].rstrip("\r\n"))
    return None


def _sides(hunk: Hunk) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """The hunk's old lines, new lines and number of trailing context lines."""
    entries: list[list[str]] = []
    for line in hunk:
        if line.line_type == "\\":
            if entries:  # the line before the marker has no terminator in its file
                value = entries[-1][1]
                entries[-1][1] = value[:-1] if value.endswith("\n") else value
        elif line.line_type in (" ", "-", "+"):
            entries.append([line.line_type, line.value])
    old = tuple(value for kind, value in entries if kind in " -")
    new = tuple(value for kind, value in entries if kind in " +")
    trailing = 0
    for kind, _ in reversed(entries):
        if kind != " ":
            break
        trailing += 1
    return old, new, trailing


def _where_failed(message: str, lines: tuple[str, ...]) -> int:
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if text and message.rstrip().endswith(text):
            return number
    return 1


def parse_udiff(text: str) -> Patch:
    """Parse a unified diff; :class:`PatchError` names the patch line and what was expected."""
    recounted = recount_hunks(text)
    restated, sections = read_headers(recounted.text)
    try:
        patchset = PatchSet(restated)
    except UnidiffParseError as exc:
        line = _where_failed(str(exc), split_lines(recounted.text))
        raise PatchError(
            f"not a unified diff: {' '.join(str(exc).split())}",  # unidiff's message ends in a newline
            where=f"patch line {line}",
            hint="each file needs ---/+++ lines and hunks '@@ -a,b +c,d @@' of ' ', '-', '+' lines",
        ) from None
    edits: list[Edit] = []
    creates: list[FileCreate] = []
    deletes: list[FileDelete] = []
    renames: list[FileRename] = []
    notes = list(recounted.notes)
    named: list[tuple[str, int]] = []
    for pf in patchset:
        header = pf.diff_line_no or 1
        if pf.is_binary_file:
            raise PatchError(
                "binary patches are not supported",
                where=f"patch line {header}",
                hint="patches here change text files only",
            )
        if pf.is_symlink or pf.is_submodule or _info(pf, "copy from ") is not None:
            raise PatchError(
                "symlink, submodule and copy patches are not supported",
                where=f"patch line {header}",
                hint="patches here change regular text files (edit, create, delete, rename)",
            )
        section = sections.get(header) or Section(header, False, None, None)
        src, dst = section.old, section.new
        if src is None and dst is None:
            raise PatchError(
                "a file with no name", where=f"patch line {header}", hint="write --- a/PATH / +++ b/PATH"
            )
        hunks = [(h, *_sides(h)) for h in pf]
        if section.create or src is None:
            assert dst is not None
            if any(old for _, old, _, _ in hunks):
                raise PatchError(
                    f"new file {dst} depends on old contents",
                    where=f"patch line {header}",
                    hint="a creation's hunks have only '+' lines",
                )
            content = "".join(line for _, _, new, _ in hunks for line in new)
            creates.append(FileCreate(path=dst, content=content, patch_line=header, if_empty=False))
            continue
        if section.delete or dst is None:
            expected = tuple(line for _, old, _, _ in hunks for line in old)
            deletes.append(FileDelete(path=src, patch_line=header, expected=expected))
            continue
        path = src
        rename_from = src if section.rename else None
        if section.rename:
            renames.append(FileRename(path=src, new_path=dst, patch_line=header))
        # git apply: a traditional section that says neither "new" nor "deleted" creates a missing
        # file when its one hunk has no old lines (a git section says "new file mode" instead)
        maybe_create = not section.git and len(hunks) == 1 and not hunks[0][1]
        if not pf and rename_from is None:
            notes.append(f"patch line {header}: {path} has no hunks (a mode change?): nothing to do")
            named.append((path, header))  # still a file that must exist, as git apply checks
        for hunk, old, new, trailing in hunks:
            first = (hunk[0].diff_line_no or header + 1) - 1 if len(hunk) else header
            numbered = first not in recounted.numberless
            edits.append(
                Edit(
                    path=path,
                    old=old,
                    new=new,
                    patch_line=first,
                    hint_line=hunk.source_start if numbered else None,
                    # git apply: a hunk at line 1 must match at the start, one without trailing
                    # context at the end (models' numberless hunks are not held to that)
                    at_start=numbered and hunk.source_start <= 1,
                    at_end=numbered and trailing == 0,
                    exact_eol=True,
                    may_create=maybe_create,
                    ops="".join(line.line_type for line in hunk if line.line_type in " -+"),
                )
            )
    if not patchset:
        raise PatchError(
            "no files in this diff",
            where="patch line 1",
            hint="a unified diff starts each file with '--- a/PATH' and '+++ b/PATH' lines",
        )
    return Patch(
        format=EditFormat.UDIFF,
        edits=tuple(edits),
        creates=tuple(creates),
        deletes=tuple(deletes),
        renames=tuple(renames),
        text=text,
        notes=tuple(notes),
        named=tuple(named),
    )
