"""`gramwright edit` through the real app (CliRunner): bad input refused before any model loads;
on the embedded model (``model``-marked, one short run) a constrained edit of a real file applies,
and `gramwright undo` puts the file back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_binary_file_is_refused_in_one_line_before_any_model(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    code, out, err = run(
        "edit",
        str(tmp_path / "blob.bin"),
        "-i",
        "x",
        "--root",
        str(tmp_path),
        "--model",
        str(tmp_path / "no-model"),
    )
    assert code == 2 and not out
    assert err.startswith("error: binary file") and len(err.strip().splitlines()) == 1


def test_empty_file_and_file_outside_root_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_bytes(b"")
    code, _out, err = run("edit", str(tmp_path / "empty.py"), "-i", "x", "--root", str(tmp_path))
    assert code == 2 and "no run of its lines occurs only once" in err
    other = tmp_path.parent / f"{tmp_path.name}-outside.py"
    other.write_text("x = 1\n")
    code, _out, err = run("edit", str(other), "-i", "x", "--root", str(tmp_path))
    assert code == 2 and "outside the root" in err


def test_at_most_one_mode(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    code, _out, err = run("edit", str(tmp_path / "a.py"), "-i", "x", "--check", "--apply")
    assert code == 2 and "at most one of" in err


@pytest.mark.model
def test_constrained_edit_applies_and_undo_restores_the_bytes(tmp_path: Path) -> None:
    target = tmp_path / "config.py"
    original = b'NAME = "demo"\nPORT = 8000\nDEBUG = False\n'
    target.write_bytes(original)
    code, out, err = run(
        "edit",
        str(target),
        "-i",
        "Change PORT to 9000.",
        "--root",
        str(tmp_path),
        "--max-tokens",
        "64",
        "--max-replace-lines",
        "2",  # the 135M model repeats itself in a free REPLACE; two lines, then the marker
        "--apply",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert data["constrained"] and data["schema"] == "gramwright.edit-result/1"
    if data["finish_reason"] == "stop":
        # a finished constrained patch always applies (the grammar knows the file)
        assert code == 0, err
        assert data["applicable"] and data["applied"] and data["check"]["summary"]["failed"] == 0
        assert data["backup_id"]
        code, _out, err = run("undo", "--root", str(tmp_path))
        assert code == 0, err
        assert target.read_bytes() == original
    else:
        # truncated: reported as such, nothing written
        assert data["finish_reason"] == "length" and code == 1 and target.read_bytes() == original
        pytest.skip("the model did not finish its block within 64 tokens")


@pytest.mark.parametrize(
    ("fmt", "bound"), [("search-replace", "REPLACE section"), ("udiff", "run of + lines")]
)
def test_a_truncated_unparsed_output_says_what_to_raise(fmt: str, bound: str) -> None:
    from gramwright.cli.render.edit import render_edit
    from gramwright.editors.generate.edit import EditResult
    from gramwright.editors.patch.model import EditFormat
    from gramwright.generation import Generation

    cut = "app.py\n<<<<<<< SEARCH\ndef f():\n=======\nx = 1\n"
    gen = Generation(text=cut, finish_reason="length", tokens=24, metrics={}, model="m")
    error = "the block opened at patch line 2 has no >>>>>>> REPLACE line"
    result = EditResult(
        format=EditFormat(fmt), constrained=True, root=".", files=("app.py",), generation=gen,
        patch_text=cut, patch=None, parse_error=error, report=None,
    )  # fmt: skip
    text = render_edit(result)
    assert (
        "not parsed:" in text and "truncated at 24 tokens (finish_reason length): raise --max-tokens" in text
    )
    assert f"or bound each {bound} with --max-replace-lines N" in text
