"""gramwright.positions: offsets ↔ 1-based line and column (in characters)."""

from __future__ import annotations

import pytest

from gramwright.positions import LineIndex, line_col


def test_text_offsets() -> None:
    text = "ab\ncd\n\nef"
    assert line_col(text, 0) == (1, 1)
    assert line_col(text, 2) == (1, 3)  # the newline itself ends line 1
    assert line_col(text, 3) == (2, 1)
    assert line_col(text, 7) == (4, 1)
    assert line_col(text, 99) == (4, 3)  # past the end: the end


def test_byte_offsets_count_characters_in_the_column() -> None:
    data = "é€x\ny".encode()
    assert line_col(data, 0) == (1, 1)
    assert line_col(data, 2) == (1, 2)  # after "é" (2 bytes)
    assert line_col(data, 5) == (1, 3)  # after "€" (3 bytes)
    assert line_col(data, 7) == (2, 1)
    assert line_col(data, 3) == (1, 3)  # inside "€": the cut character counts as one


@pytest.mark.parametrize("text", ["", "one line", "a\nb\n", "\n\n\n", "x\r\ny"])
def test_index_agrees_with_line_col_and_goes_back(text: str) -> None:
    index = LineIndex(text)
    for offset in range(len(text) + 1):
        line, col = index.line_col(offset)
        assert (line, col) == line_col(text, offset)
        assert index.offset(line, col) == offset


def test_index_offset_clamps() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset(0, 0) == 0
    assert index.offset(1, 99) == 2  # the end of line 1 (its newline)
    assert index.offset(9, 1) == 3  # the last line
