"""How a SEARCH/REPLACE block may end when another model wrote it: ``>>>>>>> REPLACE`` (canonical),
a second ``=======`` (read as aider reads it, with a note), and a stray ``>>>>>>> REPLACE`` right
after a block the second ``=======`` closed (skipped with a note, as aider skips it). Run through
the real CLI on real files."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.editors.patch.parse_search_replace import parse_search_replace


def apply(root: Path, patch: str, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["apply", "-", "--root", str(root), *extra], input=patch)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


# the model closed the block with a second divider, then wrote the canonical close as well
STRAY = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n>>>>>>> REPLACE\n"


def test_a_stray_replace_after_a_divider_closed_block_is_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 0\n")
    code, out, err = apply(tmp_path, STRAY)
    assert code == 0, out + err
    assert (tmp_path / "a.py").read_text() == "x = 2\ny = 0\n"
    assert "stray >>>>>>> REPLACE" in out and "patch line 7" in out and "skipped" in out
    assert "second ======= line" in out  # the divider-closed block keeps its own note


def test_the_stray_replace_note_is_in_the_json_report(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    code, out, _ = apply(tmp_path, STRAY, "--format", "json")
    assert code == 0
    notes = json.loads(out)["notes"]
    assert any("stray >>>>>>> REPLACE" in n and "patch line 7" in n for n in notes), notes


def test_a_stray_replace_after_blank_lines_and_before_the_next_block_is_skipped() -> None:
    text = STRAY.replace("=======\n>>>>>>>", "=======\n\n>>>>>>>") + (
        "b.py\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n"
    )
    patch = parse_search_replace(text)
    assert [(e.path, e.new) for e in patch.edits] == [("a.py", ("x = 2\n",)), ("b.py", ("w\n",))]
    assert sum("stray" in n for n in patch.notes) == 1


def test_a_replace_marker_with_no_block_before_it_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    code, out, err = apply(tmp_path, "a.py\n>>>>>>> REPLACE\n", "--edit-format", "search-replace")
    assert code == 2 and "without a <<<<<<< SEARCH line" in err and out == ""
    # after a canonically closed block a second close is not the second-divider slip: refused too
    canonical = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    code, _, err = apply(tmp_path, canonical + ">>>>>>> REPLACE\n")
    assert code == 2 and "patch line 7" in err
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
