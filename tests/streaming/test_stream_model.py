"""Streaming on the embedded model (few, short): the events a client reads agree with the run's
result, and a stop ends the stream with its reason."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest

from gramwright.api import compile_source
from gramwright.generation import Generator, SamplingOptions
from gramwright.sources import CompiledSource
from gramwright.streaming.run import stream_generation

pytestmark = pytest.mark.model

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 20},
        "people": {"type": "integer", "minimum": 1, "maximum": 99},
        "pets": {"type": "boolean"},
    },
    "required": ["city", "people", "pets"],
}


@lru_cache(maxsize=1)
def generator() -> Generator:
    return Generator(None)


def source() -> CompiledSource:
    return compile_source("trip.json", text=json.dumps(SCHEMA))


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def test_the_events_agree_with_the_result() -> None:
    events: list[dict[str, Any]] = []
    result = stream_generation(
        source(),
        "Four people travel to Bern with a dog.",
        events.append,
        generator=generator(),
        sampling=SamplingOptions(max_tokens=40),
    )
    assert result is not None and result.finish_reason == "stop"
    tokens = [e for e in events if e["event"] == "token"]
    assert "".join(t["text"] for t in tokens) == result.text and len(tokens) == result.tokens
    document = json.loads(result.text)
    values = [e for e in events if e["event"] == "value"]
    for v in values:  # never taken back: each reported value is the member in the finished output
        assert v["value"] == _at(document, v["pointer"])
    assert {v["pointer"] for v in values} == {"", "/city", "/people", "/pets"}
    # each value came no later than the token that read the byte the rule names
    read = 0
    for e in events:
        if e["event"] == "token":
            read += e["bytes"]
        elif e["event"] == "value":
            assert e["final_at"] <= read
    end = events[-1]
    assert end["event"] == "end" and end["finish_reason"] == "stop" and end["complete"]
    assert end["result"] == result.to_dict() and end["open"] == []
    # the default: greedy, so forced text is drafted and verified, none appended unverified
    m = result.metrics
    assert m["fast_forward"] and m["forced_tokens"] == 0 and m["forced_accepted_tokens"] > 0
    json.dumps(events)


def test_fast_forward_off_streams_every_token_from_its_own_forward_pass() -> None:
    events: list[dict[str, Any]] = []
    result = stream_generation(
        source(),
        "Four people travel to Bern with a dog.",
        events.append,
        generator=generator(),
        sampling=SamplingOptions(max_tokens=40),
        fast_forward=False,  # ``generate --stream --no-fast-forward``
    )
    assert result is not None
    m = result.metrics
    assert m["fast_forward"] is False and m["forced_tokens"] == 0
    assert m["forward_passes"] == result.tokens  # no token rode along with a sampled one
    assert len([e for e in events if e["event"] == "token"]) == result.tokens


def test_a_timeout_ends_the_stream_with_what_was_final() -> None:
    events: list[dict[str, Any]] = []
    result = stream_generation(
        source(),
        "Four people travel to Bern with a dog.",
        events.append,
        generator=generator(),
        sampling=SamplingOptions(max_tokens=40),
        timeout_s=0.0,  # checked after every token: the first one already ran out of time
    )
    assert result is None
    assert [e["event"] for e in events] == ["token", "end"]
    end = events[-1]
    assert end["finish_reason"] == "timeout" and end["result"] is None and not end["complete"]
    assert end["final"] == [] and end["open"] == [""]  # "{" begun, nothing settled
