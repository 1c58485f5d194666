"""gramwright.streaming.events: token, value and end events in the order a client reads them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gramwright.api import compile_source
from gramwright.recognizer import compile_grammar
from gramwright.recognizer.compiled import CompiledGrammar
from gramwright.streaming import EventStream

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "people": {"type": "integer"}},
    "required": ["city", "people"],
}


def grammar() -> CompiledGrammar:
    return compile_grammar(compile_source("s.json", text=json.dumps(SCHEMA)).grammar)


def run(pieces: list[bytes], finish: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    stream = EventStream(grammar(), events.append)
    for n, piece in enumerate(pieces):
        stream.token(100 + n, piece)
    stream.end(finish, {"text": b"".join(pieces).decode()} if finish == "stop" else None)
    json.dumps(events)  # every event is one JSON line
    return events


def test_tokens_values_and_the_end_in_order() -> None:
    events = run([b'{"city":"Z', b"\xc3", b'\xbcrich","peo', b'ple":12', b"}"], "stop")
    kinds = [e["event"] for e in events]
    assert kinds == ["token", "token", "token", "value", "token", "token", "value", "value", "end"]
    tokens = [e for e in events if e["event"] == "token"]
    # "ü" split across two tokens is shown once, whole, with the token that completes it
    assert [t["text"] for t in tokens] == ['{"city":"Z', "", 'ürich","peo', 'ple":12', "}"]
    assert [t["id"] for t in tokens] == [100, 101, 102, 103, 104]
    values = [(e["pointer"], e["value"]) for e in events if e["event"] == "value"]
    assert values == [("/city", "Zürich"), ("/people", 12), ("", {"city": "Zürich", "people": 12})]
    end = events[-1]
    assert end["finish_reason"] == "stop" and end["complete"] and end["open"] == []
    assert end["final"] == ["/city", "/people", ""] and end["result"] == {
        "text": '{"city":"Zürich","people":12}'
    }


def test_cancelled_says_which_members_were_final() -> None:
    events = run([b'{"city":"Bern",', b'"people":4'], "cancelled")
    end = events[-1]
    assert end["finish_reason"] == "cancelled" and not end["complete"]
    assert end["final"] == ["/city"]  # 4 could still become 40: not final
    assert end["open"] == ["", "/people"] and end["result"] is None


def test_attempts_start_over() -> None:
    events: list[dict[str, Any]] = []
    stream = EventStream(grammar(), events.append)
    stream.begin_attempt(1)
    stream.token(None, b'{"city":"A",')
    stream.begin_attempt(2)
    stream.token(None, b'{"city":"B","people":1}')
    stream.end("stop", None)
    values = [(e["attempt"], e["pointer"]) for e in events if e["event"] == "value"]
    assert values == [(1, "/city"), (2, "/city"), (2, "/people"), (2, "")]
    assert events[-1]["final"] == ["/city", "/people", ""] and events[-1]["attempt"] == 2


def test_an_unknown_finish_reason_is_refused() -> None:
    stream = EventStream(grammar(), lambda _e: None)
    with pytest.raises(ValueError, match="finish_reason"):
        stream.end("eos", None)


def test_text_that_leaves_the_grammar_stops_the_value_events() -> None:
    events = run([b'{"city":"A",', b'"people":x}'], "stop")
    assert [e["pointer"] for e in events if e["event"] == "value"] == ["/city"]
    end = events[-1]
    assert end["left_grammar_at"] == len(b'{"city":"A","people":') and end["final"] == ["/city"]


def test_without_a_grammar_only_tokens() -> None:
    events: list[dict[str, Any]] = []
    stream = EventStream(None, events.append)
    stream.token(7, b"free text")
    stream.end("length", None)
    assert [e["event"] for e in events] == ["token", "end"]
    assert events[-1]["complete"] is None and events[-1]["final"] == []
