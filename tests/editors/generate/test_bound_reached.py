"""The blocks whose new lines reached ``--max-replace-lines`` (generate/edit.py ``bound_reached``):
the grammar closed them there, whatever the model meant to write next, so the edit says so."""

from __future__ import annotations

from gramwright.editors.generate.edit import bound_reached
from gramwright.editors.patch.model import EditFormat

SR = EditFormat.SEARCH_REPLACE

# the embedded model's answer to "Change PORT to 9000." under --max-replace-lines 2: its SEARCH
# took PORT and DEBUG, its REPLACE a blank line and the new PORT, and the bound closed it before
# DEBUG = False came back
CUT = "config.py\n<<<<<<< SEARCH\nPORT = 8000\nDEBUG = False\n=======\n\nPORT = 9000\n=======\n"


def test_a_replace_that_fills_the_bound_is_reported_with_its_block_and_line() -> None:
    assert bound_reached(CUT, SR, 2) == [{"block": 1, "path": "config.py", "patch_line": 1}]


def test_below_the_bound_or_without_one_nothing_is_reported() -> None:
    assert bound_reached(CUT, SR, 3) == []
    assert bound_reached(CUT, SR, None) == []
    assert bound_reached(CUT, SR, 0) == []


def test_only_the_blocks_at_the_bound_count_in_a_two_block_patch() -> None:
    text = (
        "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "b.py\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\ny = 3\n>>>>>>> REPLACE\n"
    )
    assert bound_reached(text, SR, 2) == [{"block": 1, "path": "b.py", "patch_line": 7}]
    assert [c["path"] for c in bound_reached(text, SR, 1)] == ["a.py"]


def test_a_diff_run_of_added_lines_at_the_bound() -> None:
    text = (
        "--- a/config.py\n+++ b/config.py\n@@ -1,2 +1,3 @@\n NAME = 1\n-PORT = 8000\n+PORT = 9000\n+X = 1\n"
        " DEBUG = False\n"
    )
    assert bound_reached(text, EditFormat.UDIFF, 2) == [{"block": 1, "path": "config.py", "patch_line": 6}]
    assert bound_reached(text, EditFormat.UDIFF, 3) == []
