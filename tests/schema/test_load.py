"""Loading schema files: errors name file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest

from gramwright.schema import SchemaLoadError, load_schema
from gramwright.schema.load import parse_schema_text, read_schema_bytes


def test_load_gives_schema_and_file_uri(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"type": "integer"}', encoding="utf-8")
    schema, base = load_schema(path)
    assert schema == {"type": "integer"}
    assert base.startswith("file://") and base.endswith("/s.json")


def test_invalid_json_points_at_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "type": "integer",\n  oops\n}', encoding="utf-8")
    with pytest.raises(SchemaLoadError) as err:
        load_schema(path)
    assert err.value.line == 3 and err.value.column == 3
    assert f"{path}:3:3" in err.value.one_line()


def test_missing_file_and_non_schema_values(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError):
        load_schema(tmp_path / "nope.json")
    with pytest.raises(SchemaLoadError, match="object or a boolean"):
        parse_schema_text("[1, 2]")


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"type": "string"}')
    assert load_schema(path)[0] == {"type": "string"}
    assert parse_schema_text('\ufeff{"type": "string"}') == {"type": "string"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": "\xff"}', "not valid UTF-8 at byte 7"),
        (b'\xef\xbb\xbf{"a": "\xff"}', "not valid UTF-8 at byte 10"),  # counted in the file, BOM included
        ('{"type": "string"}'.encode("utf-16"), "UTF-16 text (byte-order mark), not UTF-8"),
        ('{"type": "string"}'.encode("utf-32"), "UTF-32 text (byte-order mark), not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file, not JSON text (NUL byte at byte 8)"),
        (b"", "empty: no JSON value"),
        (b" \n\t", "empty: no JSON value"),
        (b'"a string"', "a schema is an object or a boolean, not a string"),
        (b"[1]", "not an array"),
    ],
)
def test_unreadable_bytes_say_what_they_are(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(data)
    with pytest.raises(SchemaLoadError) as err:
        load_schema(path)
    assert message in err.value.message and err.value.where.startswith(str(path))


def test_lint_accepts_any_json_value_the_compiler_refuses() -> None:
    assert read_schema_bytes(b"[1]", "x.json", any_value=True) == [1]


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(SchemaLoadError, match="no such file"):
        load_schema(tmp_path / "nope.json")
    with pytest.raises(SchemaLoadError, match="is a directory"):
        load_schema(tmp_path)


def test_lint_and_compile_word_a_decode_error_alike(tmp_path: Path) -> None:
    """One reader: the same file gets the same message from `lint` and from `compile`."""
    from typer.testing import CliRunner

    from gramwright.cli.main import app

    path = tmp_path / "latin1.json"
    path.write_bytes('{"description": "café"}'.encode("latin-1"))
    runner = CliRunner()
    lint = runner.invoke(app, ["lint", str(path)])
    compiled = runner.invoke(app, ["compile", str(path)])
    assert lint.exit_code == compiled.exit_code == 2
    expected = f"error: not valid UTF-8 at byte 20 ({path})"  # the "é" of café
    assert lint.stderr.startswith(expected) and compiled.stderr.startswith(expected), (
        lint.stderr,
        compiled.stderr,
    )
