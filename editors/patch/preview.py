"""The ``--dry-run`` preview: a report's file changes as one git-style unified diff.

Written so that ``git apply`` accepts it (``diff --git`` headers, ``new file mode`` / ``deleted file
mode`` / ``rename from``/``to``, ``\\ No newline at end of file``, CRLF lines kept as they are), so
the preview says exactly what applying will do — deletions and renames included.
"""

from __future__ import annotations

import difflib

from gramwright.editors.patch.model import split_lines
from gramwright.editors.patch.report import CheckReport, FileChange

__all__ = ["preview_diff"]

_CONTEXT = 3
_NO_NEWLINE = "\\ No newline at end of file\n"


def _text(change: FileChange, data: bytes | None) -> str:
    if data is None:
        return ""
    before = change.before
    if before is None:
        return data.decode("utf-8")
    return data[len(before.bom) :].decode(before.encoding)


def _range(start: int, length: int) -> str:
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _hunks(old: tuple[str, ...], new: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(_CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            marked = [(" ", line) for line in old[a1:a2]] if tag == "equal" else []
            if tag in ("replace", "delete"):
                marked += [("-", line) for line in old[a1:a2]]
            if tag in ("replace", "insert"):
                marked += [("+", line) for line in new[b1:b2]]
            for mark, line in marked:
                out.append(mark + line if line.endswith("\n") else f"{mark}{line}\n{_NO_NEWLINE}")
    return out


def _mode_of(mode: int) -> str:
    return "100755" if mode & 0o111 else "100644"


def _mode(change: FileChange) -> str:
    return _mode_of(change.before.mode) if change.before is not None else "100644"


def preview_diff(report: CheckReport) -> str:
    """Every file change of ``report`` as a unified diff (empty when nothing changes)."""
    out: list[str] = []
    for change in report.files:
        old_text = change.before.text if change.before else ""
        new_text = _text(change, change.after)
        a, b = change.path, change.new_path or change.path
        if (
            change.action != "rename"
            and old_text == new_text
            and (change.before is not None) == (change.after is not None)
        ):
            continue
        if change.replaced is not None:  # the file a rename overwrites goes first, as a deletion
            gone = change.replaced
            out.append(f"diff --git a/{b} b/{b}\ndeleted file mode {_mode_of(gone.mode)}\n")
            hunks = _hunks(gone.lines, ())
            if hunks:
                out.extend([f"--- a/{b}\n", "+++ /dev/null\n", *hunks])
        out.append(f"diff --git a/{a} b/{b}\n")
        if change.action == "create":
            out.append(f"new file mode {_mode(change)}\n")
        elif change.action == "delete":
            out.append(f"deleted file mode {_mode(change)}\n")
        elif change.action == "rename":
            out.append(f"rename from {a}\nrename to {b}\n")
        hunks = _hunks(split_lines(old_text), split_lines(new_text))
        if hunks:
            out.append("--- /dev/null\n" if change.action == "create" else f"--- a/{a}\n")
            out.append("+++ /dev/null\n" if change.action == "delete" else f"+++ b/{b}\n")
            out.extend(hunks)
    return "".join(out)
