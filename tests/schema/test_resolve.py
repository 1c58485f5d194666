"""$ref resolution: pointers, anchors, $id, remote documents from a local registry only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.schema import CompileOptions, SchemaCompileError, UnsupportedSchema, compile_schema
from gramwright.schema.resolve import SchemaRegistry, draft_of_dialect


def test_draft_detection() -> None:
    assert draft_of_dialect("http://json-schema.org/draft-07/schema#", 2020) == 7
    assert draft_of_dialect("http://json-schema.org/draft-04/schema", 2020) == 4
    assert draft_of_dialect("https://json-schema.org/draft/2020-12/schema", 7) == 2020
    assert draft_of_dialect("https://example.com/my-meta", 7) == 7
    assert draft_of_dialect(None, 2019) == 2019


def test_pointers_through_refs() -> None:
    schema = {"$defs": {"a~b/c": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/a~0b~1c"}}}
    reg = SchemaRegistry(schema)
    x = reg.child(reg.root_loc(), "properties", "x")
    assert x.pointer == "/properties/x"
    target = reg.lookup(x, "$ref")
    assert target.pointer == "/$defs/a~0b~1c"
    assert target.schema == {"type": "integer"}


def test_remote_documents_come_from_folders(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "leaf.json").write_text(json.dumps({"$defs": {"n": {"type": "number"}}}))
    remotes = {"http://localhost:1234/": tmp_path}
    schema = {"$ref": "http://localhost:1234/tree/leaf.json#/$defs/n"}
    reg = SchemaRegistry(schema, remotes=remotes)
    loc = reg.lookup(reg.root_loc(), "$ref")
    assert loc.pointer == "http://localhost:1234/tree/leaf.json#/$defs/n"
    cs = compile_schema(schema, options=CompileOptions(remotes=remotes))
    assert cs.rule_pointers["root"] in ("", loc.pointer)


def test_file_refs_relative_to_the_schema_file(tmp_path: Path) -> None:
    (tmp_path / "common.json").write_text(json.dumps({"type": "string", "maxLength": 3}))
    main = {"properties": {"code": {"$ref": "common.json"}}}
    cs = compile_schema(main, base_uri=(tmp_path / "main.json").as_uri())
    assert any(p.endswith("common.json#") for p in cs.rule_pointers.values())


def test_draft7_ref_ignores_siblings() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"s": {"type": "string"}},
        "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}},
    }
    cs = compile_schema(schema)
    assert not any(e.pointer.endswith("/maxLength") for e in cs.report)


def test_network_is_never_used() -> None:
    with pytest.raises(SchemaCompileError, match="cannot resolve"):
        compile_schema({"$ref": "https://json-schema.org/not-a-bundled-schema.json"})


def test_a_referenced_file_is_read_by_the_one_reader(tmp_path: Path) -> None:
    """A sibling file with a byte-order mark resolves like the root file; one that is not JSON
    names its own file:line:column instead of a bare "Unresolvable"."""
    main = {"type": "object", "properties": {"a": {"$ref": "common.json"}}}
    base = (tmp_path / "main.json").as_uri()
    (tmp_path / "common.json").write_bytes(b'\xef\xbb\xbf{"type": "string", "maxLength": 3}')
    compile_schema(main, base_uri=base)
    (tmp_path / "common.json").write_text('{"type": "string",}')
    with pytest.raises(UnsupportedSchema) as err:
        compile_schema(main, base_uri=base)
    line = err.value.one_line()
    assert (
        f"invalid JSON: Expecting property name enclosed in double quotes ({tmp_path / 'common.json'}:1:19)"
        in line
    )
    assert line.endswith("— fix the JSON syntax at that position")
