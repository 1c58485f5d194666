"""The blocks a budget close may have cut short in a generated patch (generate/edit.py)."""

from __future__ import annotations

from gramwright.editors.generate.edit import cut_blocks
from gramwright.editors.patch.detect import parse_patch


def test_cut_blocks_are_the_block_being_written_and_those_after() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "a.py\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n"
    )
    patch = parse_patch(text, "search-replace")
    second = text.index("y = 2")
    assert [c["block"] for c in cut_blocks(patch, text, second)] == [2]
    assert [c["block"] for c in cut_blocks(patch, text, text.index("x = 2"))] == [1, 2]
    assert cut_blocks(patch, text, second)[0]["path"] == "a.py"
