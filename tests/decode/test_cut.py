"""The values a budget close cut short, named by JSON Pointer (decode/cut.py)."""

from __future__ import annotations

from gramwright.decode.cut import open_json_values


def test_open_values_are_named_by_pointer_outermost_first() -> None:
    text = '{"a":{"b":[1,"xy"]},"c~/d":12,"e":"end"}'
    assert open_json_values(text, 0) == []
    assert open_json_values(text, text.index("[") + 1) == ["", "/a", "/a/b"]
    assert open_json_values(text, text.index('"xy"') + 2) == ["", "/a", "/a/b", "/a/b/1"]
    # a key being written names its object only; an escaped key is escaped in the pointer
    assert open_json_values(text, text.index('"c~') + 2) == [""]
    assert open_json_values(text, text.index("12") + 1) == ["", "/c~0~1d"]
    assert open_json_values(text, len(text)) == []
    # an escaped quote inside a string does not end it
    assert open_json_values('{"q":"a\\"b', 9) == ["", "/q"]
