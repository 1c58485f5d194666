"""gramwright.pointer: RFC 6901 escaping, joining, splitting, and each pointer's offset in a text."""

from __future__ import annotations

import json

import pytest

from gramwright.pointer import (
    escape_token,
    join_pointer,
    last_token,
    locate,
    parent_pointer,
    pointer_offsets,
    pointer_tokens,
    unescape_token,
)


@pytest.mark.parametrize(
    ("name", "written"),
    [("a", "a"), ("a/b", "a~1b"), ("m~n", "m~0n"), ("~1", "~01"), ("/~", "~1~0"), ("", "")],
)
def test_escape_and_unescape_are_inverse(name: str, written: str) -> None:
    # "~" first: a name "~1" must not come back as "/"
    assert escape_token(name) == written
    assert unescape_token(written) == name


def test_join_split_parent_last() -> None:
    p = join_pointer("", "properties", "a/b", "items", 0)
    assert p == "/properties/a~1b/items/0"
    assert pointer_tokens(p) == ["properties", "a/b", "items", "0"]
    assert parent_pointer(p) == "/properties/a~1b/items"
    assert last_token("/properties/m~0n") == "m~n"
    assert pointer_tokens("") == [] and last_token("") == "" and parent_pointer("") == ""


def test_every_copy_now_agrees() -> None:
    """The compiler's report, the linter and the validator name a property "a/b" alike."""
    from gramwright.lint import lint_schema
    from gramwright.schema import compile_schema
    from gramwright.validate import validate_output

    schema = {"type": "object", "properties": {"a/b": {"type": "integer", "multipleOf": 0.5}}}
    report = compile_schema(schema).report
    assert "/properties/a~1b/multipleOf" in {e.pointer for e in report.entries}
    lint = lint_schema({"type": "object", "properties": {"a/b": {"type": "string"}}})
    assert "/properties/a~1b" in {d.pointer for d in lint.diagnostics}
    issues = validate_output('{"a/b": "x"}', schema).issues
    assert [i.pointer for i in issues] == ["/a~1b"]


def test_offsets_of_every_pointer() -> None:
    text = '{\n  "a": [1, {"b/c": true}],\n  "d": {}\n}'
    offsets = pointer_offsets(text)
    assert offsets[""] == 0
    assert text[offsets["/a"] :].startswith('"a"')  # a member begins at its key
    assert text[offsets["/a/0"] :].startswith("1")
    assert text[offsets["/a/1/b~1c"] :].startswith('"b/c"')
    assert text[offsets["/d"] :].startswith('"d"')
    assert set(offsets) == {"", "/a", "/a/0", "/a/1", "/a/1/b~1c", "/d"}


def test_offsets_of_a_broken_text_are_partial() -> None:
    offsets = pointer_offsets('{"a": 1, "b": oops, "c": 2}')
    assert "/a" in offsets and "/b" in offsets and "/c" not in offsets


def test_offsets_take_any_depth() -> None:
    """Its own stack: 5,000 levels, past the recursion limit (the old scanner gave up silently)."""
    depth = 5000
    text = '{"a":' * depth + "1" + "}" * depth
    offsets = pointer_offsets(text)
    deepest = "/a" * depth
    assert offsets[deepest] == len('{"a":' * (depth - 1)) + 1


def test_locate_falls_back_to_the_nearest_ancestor() -> None:
    positions = {"": (1, 1), "/a": (2, 3)}
    assert locate(positions, "/a/b/c") == (2, 3)
    assert locate(positions, "/z") == (1, 1)
    assert locate({}, "/a") is None


def test_offsets_match_the_json_module_on_a_real_document() -> None:
    value = {"x": [{"y": 's\\"q'}, [], {}], "z~": None, "e": -1.5e3}
    text = json.dumps(value, indent=1)
    offsets = pointer_offsets(text)
    assert {"/x/0/y", "/x/1", "/x/2", "/z~0", "/e"} <= set(offsets)
    assert text[offsets["/e"] :].startswith('"e"') and text[offsets["/z~0"] :].startswith('"z~"')
    assert text[offsets["/x/0/y"] :].startswith('"y"')


def test_schema_location_of_an_instance_pointer() -> None:
    from gramwright.pointer import schema_location

    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"properties": {"qty": {"type": "integer"}}}},
            "pair": {"prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "a/b": {"additionalProperties": {"type": "string"}},
            "ref": {"$ref": "#/$defs/x"},
        },
        "patternProperties": {"^x-": {"type": "string"}},
    }
    assert schema_location(schema, "/items/3/qty") == "/properties/items/items/properties/qty"
    assert schema_location(schema, "/pair/1") == "/properties/pair/prefixItems/1"
    assert schema_location(schema, "/a~1b/anything") == "/properties/a~1b/additionalProperties"
    assert schema_location(schema, "/x-note") == "/patternProperties/^x-"
    assert schema_location(schema, "/ref/deep") == "/properties/ref"  # a $ref ends the walk
    assert schema_location(schema, "/unknown") == "" and schema_location(schema, "") == ""
