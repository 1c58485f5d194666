"""Which of the three formats a patch text is (``--edit-format auto``), and the one parse entry point.

Each format has lines no other format has at the start of a line: ``*** Begin Patch`` (or its
section markers), a ``<<<<<<< SEARCH`` marker, or a unified diff's ``---``/``+++`` pair,
``diff --git`` or ``@@`` header. A patch can quote another format inside it (a SEARCH block whose
text is a diff), so the *first* such line decides, and the report says which line that was.
"""

from __future__ import annotations

import re
from dataclasses import replace

from gramwright.editors.patch.model import EditFormat, Patch, line_content, split_lines
from gramwright.editors.patch.parse_apply_patch import BEGIN, parse_apply_patch
from gramwright.editors.patch.parse_search_replace import HEAD, parse_search_replace
from gramwright.editors.patch.parse_udiff import parse_udiff
from gramwright.errors import PatchError

__all__ = ["detect_format", "parse_patch"]

_ENVELOPE = re.compile(r"^\*\*\* (Begin Patch|Update File:|Add File:|Delete File:)")
_DIFF = re.compile(r"^(diff --git |@@ )")


def detect_format(text: str) -> tuple[EditFormat, str]:
    """The format of ``text`` and the evidence (``"udiff: '--- a/x' / '+++ b/x' at patch line 3"``)."""
    lines = split_lines(text)
    for index, raw in enumerate(lines):
        line = line_content(raw)
        where = f"at patch line {index + 1}"
        if _ENVELOPE.match(line.strip()):
            return EditFormat.APPLY_PATCH, f"apply-patch: {line.strip()[:40]!r} {where}"
        if HEAD.match(line.strip()):
            return EditFormat.SEARCH_REPLACE, f"search-replace: {line.strip()!r} {where}"
        if _DIFF.match(line):
            return EditFormat.UDIFF, f"udiff: {line[:40]!r} {where}"
        if line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ "):
            return EditFormat.UDIFF, f"udiff: '---' / '+++' file header {where}"
    raise PatchError(
        "cannot tell the edit format: no '<<<<<<< SEARCH' block, no '---'/'+++' or '@@' diff lines,"
        f" no '{BEGIN}'",
        where="patch line 1",
        hint="pass --edit-format search-replace|udiff|apply-patch, or check that this is a patch",
    )


_PARSERS = {
    EditFormat.SEARCH_REPLACE: parse_search_replace,
    EditFormat.UDIFF: parse_udiff,
    EditFormat.APPLY_PATCH: parse_apply_patch,
}


def parse_patch(text: str, fmt: EditFormat | str = "auto") -> Patch:
    """Parse ``text`` as ``fmt`` (an :class:`EditFormat` value, or ``"auto"`` to detect it).

    The returned :attr:`Patch.detected` says how the format was chosen.
    """
    if fmt == "auto":
        chosen, detected = detect_format(text)
    else:
        try:
            chosen = EditFormat(fmt)
        except ValueError:
            names = ", ".join(f.value for f in EditFormat)
            raise PatchError(f"unknown edit format {fmt!r}", hint=f"use auto, {names}") from None
        detected = f"--edit-format {chosen.value}"
    return replace(_PARSERS[chosen](text), detected=detected)
