"""gramwright.streaming.check: the first infeasible byte is reported when it is read, with the
whole-document check's verdict; the end verdict is the whole-document check's."""

from __future__ import annotations

import json

from gramwright.api import check_document, compile_source
from gramwright.sources import CompiledSource
from gramwright.streaming.check import StreamCheck

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "n": {"type": "integer", "maximum": 5}},
    "required": ["name", "n"],
}


def source() -> CompiledSource:
    return compile_source("s.json", text=json.dumps(SCHEMA))


def test_reported_the_moment_the_byte_is_read() -> None:
    check = StreamCheck(source())
    assert check.feed(b'{"name":"a",') is None
    assert check.progress().state == "incomplete"
    verdict = check.feed(b'"n":7')  # maximum 5: "7" can never complete
    assert verdict is not None and verdict.reason == "rejected"
    whole = check_document(source(), b'{"name":"a","n":7}', form="bytes")
    assert (
        (verdict.offset, verdict.line, verdict.column)
        == (whole.offset, whole.line, whole.column)
        == (16, 1, 17)
    )
    assert verdict.allowed == whole.allowed and verdict.schema_pointers == whole.schema_pointers
    assert "/properties/n" in verdict.schema_pointers
    assert check.feed(b"}") is None  # reported once
    assert check.progress().state == "rejected"


def test_complete_and_valid_stream() -> None:
    check = StreamCheck(source())
    for b in b'{"name":"a","n":3}':
        assert check.feed(bytes([b])) is None
    progress = check.progress()
    assert (progress.state, progress.offset, progress.line) == ("complete", 18, 1)
    assert check.end().accepted


def test_incomplete_so_far_then_at_the_end() -> None:
    check = StreamCheck(source())
    assert check.feed(b'{"name":"a",') is None
    assert check.feed(b'"n":') is None
    progress = check.progress()
    assert (progress.state, progress.offset, progress.line, progress.column) == ("incomplete", 16, 1, 17)
    end = check.end()  # the stream ended here: incomplete, as the whole-document check says
    assert (end.accepted, end.reason, end.offset) == (False, "incomplete", 16)
    assert check.rejected is None


def test_line_and_column_count_characters_across_pieces() -> None:
    flexible = compile_source("s.json", text=json.dumps(SCHEMA), whitespace="flexible")
    check = StreamCheck(flexible)
    for piece in (b'{\n "name": "\xc3', b'\xa9t\xc3\xa9",\n', b' "n": 9'):
        verdict = check.feed(piece)
    whole = check_document(flexible, b'{\n "name": "\xc3\xa9t\xc3\xa9",\n "n": 9', form="bytes")
    assert verdict is not None and (verdict.line, verdict.column) == (whole.line, whole.column) == (3, 7)


def test_a_final_newline_is_held_until_the_stream_says() -> None:
    doc = b'{"name":"a","n":3}'
    check = StreamCheck(source())
    assert check.feed(doc + b"\n") is None  # perhaps the final newline check ignores
    end = check.end()
    assert end.accepted and end.final_newline_ignored and check.rejected is None
    check = StreamCheck(source())
    assert check.feed(doc + b"\n") is None
    verdict = check.feed(b" ")  # more after it: the newline was refused where it stands
    assert verdict is not None and verdict.offset == len(doc)
    assert check_document(source(), doc + b"\n ", form="bytes").offset == len(doc)
    check = StreamCheck(source(), exact=True)
    verdict = check.feed(doc + b"\n")
    assert verdict is not None and verdict.offset == len(doc)


def test_a_lone_carriage_return_is_rejected_at_the_end() -> None:
    doc = b'{"name":"a","n":3}\r'
    check = StreamCheck(source())
    assert check.feed(doc) is None
    end = check.end()
    assert check.rejected is not None and check.rejected.offset == len(doc) - 1 == end.offset
