"""Unified diffs (git, GNU diff, aider's udiff) → :class:`Patch`, parsed by ``unidiff``.

``unidiff`` is strict about hunk sizes: the counts in ``@@ -a,b +c,d @@`` must equal the body. Models
get them wrong or leave them out (aider asks for ``@@ ... @@``), so a pre-pass (:mod:`.recount`)
rewrites those headers from the body first, one line for one line, so that patch line numbers stay
true. Hunks whose header had no numbers carry no line hint and no git anchoring.

Paths: git diffs lose their first component (``-p1``: ``a/x`` → ``x``); plain ``---``/``+++`` pairs
lose ``a/``/``b/`` only when both sides carry them (aider's rule). ``--- /dev/null`` creates a
file, ``+++ /dev/null`` deletes one (and its ``-`` lines are the content it must have), and git's
``rename from``/``rename to`` move one. ``\\ No newline at end of file`` removes the terminator of
the line before it, on the side that line belongs to.
"""

from __future__ import annotations

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

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

_DEV_NULL = "/dev/null"
# git quotes a path with unusual bytes as a C string: "a/caf\303\251.txt"
_C_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, '"': 34, "\\": 92}


def _unquote(name: str) -> str:
    if not (len(name) >= 2 and name.startswith('"') and name.endswith('"')):
        return name
    body, out, index = name[1:-1], bytearray(), 0
    while index < len(body):
        char = body[index]
        if char == "\\" and body[index + 1 : index + 4].isdigit():
            out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
            index += 4
        elif char == "\\" and index + 1 < len(body) and body[index + 1] in _C_ESCAPES:
            out.append(_C_ESCAPES[body[index + 1]])
            index += 2
        else:
            out += char.encode("utf-8")
            index += 1
    return out.decode("utf-8", "replace")


def _info(pf: PatchedFile, prefix: str) -> str | None:
    for line in pf.patch_info or ():
        if line.startswith(prefix):
            return _unquote(line[len(prefix) :].rstrip("\r\n"))
    return None


def _paths(pf: PatchedFile) -> tuple[str | None, str | None]:
    source, target = _unquote(pf.source_file or ""), _unquote(pf.target_file or "")
    git = _info(pf, "diff --git ") is not None
    src = None if source in (_DEV_NULL, "") else source
    dst = None if target in (_DEV_NULL, "") else target

    def strip(name: str | None, mark: str) -> str | None:
        if name is None:
            return None
        if git:  # git apply's default -p1: drop everything up to the first slash
            return name.split("/", 1)[1] if "/" in name else name
        return name[2:] if name.startswith(mark) else name

    prefixed = (src is None or src.startswith("a/")) and (dst is None or dst.startswith("b/"))
    if not git and not prefixed:
        return src, dst
    return strip(src, "a/"), strip(dst, "b/")


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
    try:
        patchset = PatchSet(recounted.text)
    except UnidiffParseError as exc:
        line = _where_failed(str(exc), split_lines(recounted.text))
        raise PatchError(
            f"not a unified diff: {exc}",
            where=f"patch line {line}",
            hint="each file needs ---/+++ lines and hunks '@@ -a,b +c,d @@' of ' ', '-', '+' lines",
        ) from None
    edits: list[Edit] = []
    creates: list[FileCreate] = []
    deletes: list[FileDelete] = []
    renames: list[FileRename] = []
    notes = list(recounted.notes)
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
        src, dst = _paths(pf)
        rename_from, rename_to = _info(pf, "rename from "), _info(pf, "rename to ")
        if src is None and dst is None:
            raise PatchError(
                "a file with no name", where=f"patch line {header}", hint="write --- a/PATH / +++ b/PATH"
            )
        hunks = [(h, *_sides(h)) for h in pf]
        if src is None:
            assert dst is not None
            content = "".join(line for _, _, new, _ in hunks for line in new)
            creates.append(FileCreate(path=dst, content=content, patch_line=header))
            continue
        if dst is None:
            expected = tuple(line for _, old, _, _ in hunks for line in old)
            deletes.append(FileDelete(path=src, patch_line=header, expected=expected))
            continue
        path = src
        if rename_from is not None and rename_to is not None:
            path = rename_from
            renames.append(FileRename(path=rename_from, new_path=rename_to, patch_line=header))
        elif src != dst:
            path = dst  # GNU style "--- x.py.orig" / "+++ x.py": the target names the file
        if not pf and rename_from is None:
            notes.append(f"patch line {header}: {path} has no hunks (a mode change?): nothing to do")
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
    )
