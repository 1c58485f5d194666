"""File headers of a unified diff read by git apply's rules, before ``unidiff`` reads the hunks.

``unidiff`` insists that a ``diff --git a/X b/Y`` line and its ``+++`` line agree, cuts a name at
its first TAB, and keeps a timestamp written after spaces as part of the name. git apply
(``apply.c``) does otherwise, and it is the oracle here:

- **git sections.** ``new file mode`` / ``deleted file mode`` / ``rename from``/``to`` say what
  happens; more than one of them is "inconsistent header lines". For a section without a rename
  the ``---``/``+++`` names win over the ``diff --git`` line (which only fills in a name that
  the ``---``/``+++`` lines leave out); old and new names that differ move the file.
- **Traditional sections** (``---``/``+++`` only) never move a file: the name is the ``+++`` one,
  or the ``---`` one when it is a prefix of it (GNU patch's choice: ``file`` over ``file.orig``
  or ``file+``). A timestamp after a TAB or spaces is not part of the name; GNU ``diff -N``'s
  epoch timestamp (``1970-01-01 00:00:00 +0000``) means ``/dev/null``.
- A traditional section that says neither "new" nor "deleted", whose one hunk has no old lines
  (``@@ -0,0 +1,N @@``), creates its file when the file is missing (``maybe_create``).

:func:`read_headers` returns the sections by the patch line where ``unidiff`` starts each file
(the ``diff --git`` line, else the ``+++`` line), and the text with each git section's ``+++``
line restated as ``unidiff`` expects (one line for one line, so patch line numbers stay true).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from unidiff.constants import RE_DIFF_GIT_HEADER, RE_DIFF_GIT_HEADER_NO_PREFIX

from gramwright.editors.patch.model import line_content, line_ending, split_lines
from gramwright.errors import PatchError

__all__ = ["Section", "read_headers", "unquote"]

DEV_NULL = "/dev/null"
# git quotes a path with unusual bytes as a C string: "a/caf\303\251.txt"
_C_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, '"': 34, "\\": 92}
# a timestamp after a name (after a TAB, or spaces), as diff writes them: ISO with an optional
# fraction and zone, or ctime's "Thu Jan  1 00:00:00 1970"
_STAMP = re.compile(
    r"[ \t]+(?P<stamp>(?P<date>\d{4}-\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d)(?:\.\d+)?"
    r"(?: (?P<zone>[-+]\d\d:?\d\d))?"
    r"|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})[ \t]*$"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EXTENSIONS = {
    "new file mode ": "new",
    "deleted file mode ": "delete",
    "rename from ": "rename",
    "copy from ": "copy",
}


@dataclass(frozen=True)
class Section:
    """One file of the diff: ``old``/``new`` names (None: ``/dev/null``, or not given) and what
    its headers say. ``line`` is the 1-based patch line of its first header line."""

    line: int
    git: bool
    old: str | None
    new: str | None
    create: bool = False
    delete: bool = False
    rename: bool = False


def unquote(name: str) -> str:
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


def _is_epoch(match: re.Match[str]) -> bool:
    if match.group("date") is None:
        return match.group("stamp").endswith(" 1970") and " Jan  1 00:00:00 " in match.group("stamp")
    zone = (match.group("zone") or "+0000").replace(":", "")
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * (1 if zone[0] == "+" else -1)
    try:
        when = datetime.fromisoformat(f"{match.group('date')}T{match.group('time')}")
    except ValueError:
        return False
    return when - offset == _EPOCH.replace(tzinfo=None)


def _name(field: str) -> tuple[str | None, bool]:
    """(the name in a ``---``/``+++`` field, whether it means ``/dev/null``), git's
    ``find_name_traditional``: a quoted name is unquoted; a timestamp is cut off (an epoch one
    means ``/dev/null``); without one, the name ends at a TAB."""
    field = field.rstrip("\r\n")
    if field.startswith('"'):
        end = field.find('"', 1)
        while end > 0 and field[end - 1] == "\\":
            end = field.find('"', end + 1)
        if end > 0:
            return unquote(field[: end + 1]), False
    stamp = _STAMP.search(field)
    if stamp is not None:
        name = field[: stamp.start()]
        return (None, True) if name == DEV_NULL or _is_epoch(stamp) else (name, False)
    name = field.split("\t", 1)[0].rstrip()
    return (None, True) if name in (DEV_NULL, "") else (name, False)


def _strip_aider(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """Plain ``---``/``+++`` pairs lose ``a/``/``b/`` only when both sides carry them (aider)."""
    if (old is None or old.startswith("a/")) and (new is None or new.startswith("b/")):
        return (old[2:] if old else None), (new[2:] if new else None)
    return old, new


def _p1(name: str | None) -> str | None:
    """git's default ``-p1``: drop everything up to the first slash (no slash: no name)."""
    if name is None or "/" not in name:
        return None
    return name.split("/", 1)[1] or None


def _header_name(line: str) -> str | None:
    """The name of a ``diff --git A B`` line when both sides name the same file (git's def_name)."""
    body = line_content(line)[len("diff --git ") :]
    if body.startswith('"'):
        return None
    for split in range(len(body)):
        if (
            body[split] == " "
            and _p1(body[:split]) is not None
            and _p1(body[:split]) == _p1(body[split + 1 :])
        ):
            return _p1(body[:split])
    return None


def _traditional(old_field: str, new_field: str, line: int) -> Section:
    old, old_null = _name(old_field)
    new, new_null = _name(new_field)
    old, new = _strip_aider(old, new)
    if old_null:
        return Section(line, False, None, new, create=True)
    if new_null:
        return Section(line, False, old, None, delete=True)
    name = old if old is not None and new is not None and len(old) < len(new) and new.startswith(old) else new
    return Section(line, False, name, name)


def _git(lines: tuple[str, ...], start: int) -> tuple[Section, int | None]:
    """The section starting at the ``diff --git`` line ``start`` (0-based), and the index of its
    ``+++`` line (None when it has none)."""
    kinds: list[tuple[str, int]] = []
    old: str | None = None
    new: str | None = None
    renamed_from = renamed_to = None
    plus = None
    old_null = new_null = False
    index = start + 1
    while index < len(lines):
        text = line_content(lines[index])
        if text.startswith(("diff --git ", "@@")):
            break
        for prefix, kind in _EXTENSIONS.items():
            if text.startswith(prefix):
                kinds.append((kind, index + 1))
        if text.startswith("rename from "):
            renamed_from = unquote(text[len("rename from ") :])
        elif text.startswith("rename to "):
            renamed_to = unquote(text[len("rename to ") :])
        elif text.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ "):
            old_raw, old_null = _name(text[4:])
            new_raw, new_null = _name(line_content(lines[index + 1])[4:])
            old, new = _p1(old_raw), _p1(new_raw)
            plus = index + 1
            break
        index += 1
    if len(kinds) > 1:
        raise PatchError(
            f"inconsistent header lines {kinds[0][1]} and {kinds[1][1]}: a section is one of new,"
            " deleted, renamed or copied",
            where=f"patch line {kinds[1][1]}",
            hint="write one git section per operation",
        )
    kind = kinds[0][0] if kinds else ""
    default = _header_name(lines[start])
    if kind == "rename" and renamed_from and renamed_to:
        return Section(start + 1, True, renamed_from, renamed_to, rename=True), plus
    if kind == "new" or old_null:
        return Section(start + 1, True, None, new or default, create=True), plus
    if kind == "delete" or new_null:
        return Section(start + 1, True, old or default, None, delete=True), plus
    if old is None and new is None:
        old = new = default
    if old is None or new is None:
        raise PatchError(
            "the git header lacks a file name (the ---/+++ and diff --git names disagree)",
            where=f"patch line {start + 1}",
            hint="write 'diff --git a/PATH b/PATH', '--- a/PATH', '+++ b/PATH'",
        )
    return Section(start + 1, True, old, new, rename=old != new), plus


def _unidiff_target(line: str) -> str | None:
    match = RE_DIFF_GIT_HEADER.match(line) or RE_DIFF_GIT_HEADER_NO_PREFIX.match(line)
    return match.group("target") if match else None


def read_headers(text: str) -> tuple[str, dict[int, Section]]:
    """The text for ``unidiff`` and every file section, by the patch line ``unidiff`` starts it."""
    lines = list(split_lines(text))
    frozen = tuple(lines)
    sections: dict[int, Section] = {}
    index = 0
    while index < len(frozen):
        line = frozen[index]
        if line.startswith("diff --git "):
            section, plus = _git(frozen, index)
            sections[index + 1] = section
            target = _unidiff_target(line_content(line))
            if plus is not None and any(x.startswith("deleted file mode ") for x in frozen[index:plus]):
                target = DEV_NULL  # what unidiff expects after "deleted file mode"
            if plus is not None and target is not None:
                lines[plus] = f"+++ {target}{line_ending(frozen[plus]) or chr(10)}"
            index = (plus or index) + 1
            continue
        if line.startswith("--- ") and index + 1 < len(frozen) and frozen[index + 1].startswith("+++ "):
            sections[index + 2] = _traditional(
                line_content(line)[4:], line_content(frozen[index + 1])[4:], index + 1
            )
            index += 2
            continue
        index += 1
    return "".join(lines), sections
