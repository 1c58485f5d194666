"""Offsets in a text ↔ 1-based line and column, for every message that says where.

One convention everywhere (GBNF errors, JSON errors, check verdicts, lint annotations, the TUI's
cursor): lines are counted by ``\\n`` and start at 1; a column counts *characters* (code points)
from 1, also when the offset is a byte offset into UTF-8 data — an editor's column, not a byte
count, so a line with ``é`` before the fault still points under the right character. A leaf
module: it imports nothing from the package, so every layer may import it.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["LineIndex", "line_col"]


def line_col(data: str | bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` (a character offset into ``str``, a byte offset into
    ``bytes``; an offset past the end counts as the end)."""
    if isinstance(data, bytes):
        before_bytes = data[:offset]
        last = before_bytes.rfind(b"\n")
        # a multi-byte character cut by the offset counts as one (errors="replace")
        column = len(before_bytes[last + 1 :].decode("utf-8", "replace")) + 1
        return before_bytes.count(b"\n") + 1, column
    offset = min(offset, len(data))
    return data.count("\n", 0, offset) + 1, offset - (data.rfind("\n", 0, offset) + 1) + 1


class LineIndex:
    """Line starts of one text, for many look-ups (a SARIF log places every diagnostic of a file)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def offset(self, line: int, column: int) -> int:
        line = max(1, min(line, len(self.starts)))
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return min(start + max(column, 1) - 1, end)
