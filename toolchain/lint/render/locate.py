"""JSON Pointer → (line, column) in the source text, for editor and CI annotations (SARIF, the
TUI's "go to"). The scanning is :func:`gramwright.pointer.pointer_offsets` (a member's position
is its key's, so an annotation lands on the line that names the property); lines and columns
are :mod:`gramwright.positions`' convention."""

from __future__ import annotations

from gramwright.pointer import locate, pointer_offsets
from gramwright.positions import LineIndex

__all__ = ["locate", "pointer_positions"]


def pointer_positions(text: str) -> dict[str, tuple[int, int]]:
    """Every pointer of the document → 1-based (line, column); partial if the text is not valid JSON."""
    index = LineIndex(text)
    return {pointer: index.line_col(offset) for pointer, offset in pointer_offsets(text).items()}
