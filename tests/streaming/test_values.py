"""gramwright.streaming.values: a value is reported once, when the grammar settles it, and equals
the member in the complete document."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gramwright.api import compile_source
from gramwright.recognizer import InputRejected, compile_grammar
from gramwright.recognizer.compiled import CompiledGrammar
from gramwright.streaming import FinalValue, ValueStream

SCHEMA = {
    "type": "object",
    "properties": {
        "digit": {"type": "integer", "minimum": 0, "maximum": 9},
        "count": {"type": "integer"},
        "pick": {"type": "array", "items": {"enum": [1, 12, "x"]}},
        "ok": {"type": "boolean"},
        "a/b~c": {"type": "string"},
        "none": {"type": "null"},
    },
    "required": ["digit", "count", "pick", "ok", "a/b~c", "none"],
}
DOC = b'{"digit":7,"count":123,"pick":[1,12,"x"],"ok":true,"a/b~c":"q\\"\\u00e9","none":null}'


def grammar(schema: Any) -> CompiledGrammar:
    return compile_grammar(compile_source("s.json", text=json.dumps(schema)).grammar)


def byte_by_byte(compiled: CompiledGrammar, doc: bytes) -> dict[str, tuple[int, FinalValue]]:
    """pointer -> (bytes read when it was reported, the event); -1: reported by ``finish``."""
    stream = ValueStream(compiled)
    seen: dict[str, tuple[int, FinalValue]] = {}
    for i in range(len(doc)):
        for v in stream.feed(doc[i : i + 1]):
            assert v.pointer not in seen
            seen[v.pointer] = (i + 1, v)
    for v in stream.finish():
        seen[v.pointer] = (-1, v)
    return seen


def test_each_member_when_the_grammar_settles_it() -> None:
    seen = byte_by_byte(grammar(SCHEMA), DOC)
    at = {p: when for p, (when, _) in seen.items()}
    # maximum 9: after "7" no digit is allowed, so it is final at its own byte
    assert at["/digit"] == DOC.index(b"7") + 1
    # "123" could still grow: final only when the "," after it is read
    assert at["/count"] == DOC.index(b"123,") + 4
    # enum [1, 12]: "1" might become "12" (final at the ","), "12" cannot grow (final at the "2")
    assert at["/pick/0"] == DOC.index(b"[1,") + 3
    assert at["/pick/1"] == DOC.index(b"12,") + 2
    assert at["/pick/2"] == DOC.index(b'"x"') + 3
    assert at["/pick"] == DOC.index(b"]") + 1
    assert at["/ok"] == DOC.index(b"true") + 4
    assert at["/a~1b~0c"] == DOC.index(b'","none"') + 1  # the closing quote, after escapes
    assert at[""] == len(DOC)
    values = {p: v.value for p, (_, v) in seen.items()}
    assert values == {
        "/digit": 7,
        "/count": 123,
        "/pick/0": 1,
        "/pick/1": 12,
        "/pick/2": "x",
        "/pick": [1, 12, "x"],
        "/ok": True,
        "/a~1b~0c": 'q"é',
        "/none": None,
        "": json.loads(DOC),
    }
    assert seen["/count"][1].end == DOC.index(b"123,") + 3  # the span, apart from when it settled


def test_the_events_do_not_depend_on_how_the_bytes_are_cut() -> None:
    compiled = grammar(SCHEMA)
    whole = ValueStream(compiled)
    events = whole.feed(DOC) + whole.finish()
    assert [v.to_dict() for v in events] == [v.to_dict() for _, v in byte_by_byte(compiled, DOC).values()]


def test_a_number_at_the_end_is_final_only_when_the_input_is() -> None:
    compiled = grammar({"type": "integer"})
    stream = ValueStream(compiled)
    assert stream.feed(b"42") == []
    assert stream.open_pointers() == [""]
    [v] = stream.finish()
    assert (v.pointer, v.value, v.final_at) == ("", 42, 2)


def test_a_cut_input_leaves_its_open_values_open() -> None:
    stream = ValueStream(grammar(SCHEMA))
    stream.feed(b'{"digit":3,"count":12')
    assert stream.finish() == []  # not a complete document: 12 may still become 123
    assert [v.pointer for v in stream.final] == ["/digit"]
    assert stream.open_pointers() == ["", "/count"]


def test_a_rejected_byte_raises_and_changes_nothing() -> None:
    stream = ValueStream(grammar(SCHEMA))
    stream.feed(b'{"digit":')
    with pytest.raises(InputRejected) as info:
        stream.feed(b"12")  # maximum 9: "1" is allowed, "12" is not
    assert info.value.position == len(b'{"digit":') + 1
    assert stream.position == len(b'{"digit":')
    assert [v.value for v in stream.feed(b"5,")] == [5]


def test_a_grammar_that_is_not_json_gives_no_values() -> None:
    compiled = compile_grammar(compile_source("arithmetic").grammar)
    stream = ValueStream(compiled)
    assert stream.feed(b"(1+2)") == [] and not stream.json
    stream = ValueStream(compiled)
    assert stream.feed(b"1+2") == [] and stream.finish() == []
    assert not stream.json  # "1+2" read as far as a number goes, and then not JSON
