"""Loading schema files: errors name file:line:column."""

from __future__ import annotations

from pathlib import Path

import pytest

from gramwright.schema import SchemaLoadError, load_schema
from gramwright.schema.load import parse_schema_text


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
