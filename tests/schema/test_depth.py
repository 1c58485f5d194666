"""Deep schemas: measured without recursion, refused past the documented limits in one line
(naming the file, the depth found and the limit), and everything up to the limits works."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.schema import SchemaTooDeep, compile_schema, load_schema
from gramwright.schema.depth import MAX_JSON_DEPTH, MAX_SCHEMA_DEPTH, json_depth, schema_depth, value_depth


def chain(shape: str, depth: int) -> dict[str, Any]:
    """``depth`` subschemas inside each other below the root, around a bounded string."""
    if shape in ("refprops", "refs"):
        defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(depth)}
        if shape == "refprops":
            defs = {
                f"d{i}": {
                    "type": "object",
                    "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"}},
                    "required": ["a"],
                }
                for i in range(depth)
            }
        defs[f"d{depth}"] = {"type": "string", "maxLength": 3}
        return {"$ref": "#/$defs/d0", "$defs": defs}
    schema: dict[str, Any] = {"type": "string", "maxLength": 3}
    for _ in range(depth):
        if shape == "props":
            schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
        elif shape == "items":
            schema = {"type": "array", "items": schema, "maxItems": 1}
        else:
            schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def document(shape: str, depth: int) -> str:
    if shape in ("props", "refprops"):
        return '{"a":' * depth + '"x"' + "}" * depth
    if shape == "items":
        return "[" * depth + '"x"' + "]" * depth
    return '"x"'


def deep_text(depth: int) -> str:
    """A schema text nested ``depth`` subschemas deep, built as text (json.dumps would recurse)."""
    return '{"type":"object","properties":{"a":' * depth + '{"type":"string"}' + "}}" * depth


def test_measures() -> None:
    assert json_depth('{"a": "[[[{{{", "b": [1, {"c": []}]}') == (4, -1)  # brackets in strings do not count
    assert json_depth('{"a": [1, {"c": []}]}', limit=2) == (4, 10)  # the "{" that makes it 3
    assert json_depth('"\\"["') == (0, -1) and value_depth({"a": [1, {"c": []}]}) == 4
    assert schema_depth({"type": "string"}) == (0, "")
    assert schema_depth(chain("props", 5)) == (5, "/properties/a" * 5)
    assert schema_depth(chain("items", 7))[0] == 7
    assert schema_depth(chain("anyOf", 3)) == (3, "/anyOf/0/anyOf/0/anyOf/0")
    # a $ref leads to its target without a level; a chain of refs to objects counts the objects
    assert schema_depth(chain("refs", 500))[0] == 0
    assert schema_depth(chain("refprops", 6))[0] == 6
    # recursion is cut where it closes: finite
    tree = {"$defs": {"n": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/n"}}}}}}
    tree["$ref"] = "#/$defs/n"
    assert schema_depth(tree)[0] == 2


def test_measures_take_any_depth() -> None:
    text = deep_text(10_000)
    assert json_depth(text) == (20_001, -1)
    assert schema_depth(_nested(3000))[0] == 3000  # built without json.loads


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"items": schema}
    return schema


@pytest.mark.parametrize("shape", ["props", "items", "anyOf", "refprops"])
def test_everything_works_up_to_the_limit(shape: str) -> None:
    """The limit is honest: a schema at it compiles, and its grammar accepts a document."""
    from gramwright.grammar.analysis import prepare
    from gramwright.recognizer import Recognizer, compile_grammar

    compiled = compile_schema(chain(shape, MAX_SCHEMA_DEPTH))
    rec = Recognizer(compile_grammar(prepare(compiled.grammar)))
    rec.feed(document(shape, MAX_SCHEMA_DEPTH).encode())
    assert rec.is_accepting()


@pytest.mark.parametrize("shape", ["props", "items", "anyOf", "refprops"])
def test_past_the_limit_one_error_not_a_recursion_error(shape: str) -> None:
    depth = MAX_SCHEMA_DEPTH + 1 if shape != "props" else 200  # 200: the issue's case
    with pytest.raises(SchemaTooDeep) as err:
        compile_schema(chain(shape, depth), source="deep.json")
    assert err.value.depth == depth and err.value.limit == MAX_SCHEMA_DEPTH
    line = err.value.one_line()
    assert f"schema nested {depth} levels deep" in line and f"up to {MAX_SCHEMA_DEPTH}" in line
    assert "(deep.json)" in line and "\n" not in line


def test_deep_data_in_a_const_is_refused_too() -> None:
    value: Any = 1
    for _ in range(500):
        value = [value]
    with pytest.raises(SchemaTooDeep, match=f"501 levels deep .* up to {MAX_JSON_DEPTH}"):
        compile_schema({"const": value})


def test_a_deep_text_is_refused_before_the_parser(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep_text(10_000), encoding="utf-8")
    with pytest.raises(SchemaTooDeep) as err:
        load_schema(path)
    assert err.value.depth == 20_001 and err.value.limit == MAX_JSON_DEPTH
    # the position where the nesting first goes past the limit: the "{" of level 265
    step = len('{"type":"object","properties":{"a":')
    assert (err.value.line, err.value.column) == (1, step * (MAX_JSON_DEPTH // 2) + 1)
    assert f"({path}:1:{err.value.column})" in err.value.one_line()


def test_the_base_uri_names_the_file() -> None:
    with pytest.raises(SchemaTooDeep, match=r"\(/some/dir/x y\.json\)"):
        compile_schema(chain("items", 200), base_uri="file:///some/dir/x%20y.json")


@pytest.mark.parametrize(("depth", "nesting"), [(200, "subschemas"), (10_000, "objects and arrays")])
def test_cli_compile_and_check_exit_2_with_one_line(tmp_path: Path, depth: int, nesting: str) -> None:
    from gramwright.cli.main import app

    schema = tmp_path / "deep.json"
    schema.write_text(deep_text(depth) if depth > 1000 else json.dumps(chain("items", depth)))
    doc = tmp_path / "doc.json"
    doc.write_text("[]")
    runner = CliRunner()
    for args in (["compile", str(schema)], ["check", str(schema), str(doc)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: schema nested"), result.stderr
        assert str(schema) in lines[0] and nesting in lines[0] and "Traceback" not in result.output
