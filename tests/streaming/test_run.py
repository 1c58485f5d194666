"""gramwright.streaming.run: a pipeline run streams every attempt and ends with the
StructuredResult; a stop ends the stream with its reason (no model: the scripted backend)."""

from __future__ import annotations

import json
from typing import Any

from gramwright.api import compile_source
from gramwright.pipeline import ScriptedBackend
from gramwright.streaming.run import stream_pipeline

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "people": {"type": "integer", "minimum": 1}},
    "required": ["city", "people"],
    "additionalProperties": False,
}


def test_every_attempt_streams_and_the_end_carries_the_structured_result() -> None:
    source = compile_source("s.json", text=json.dumps(SCHEMA))
    # the first attempt breaks the grammar (people 0 is the schema's, "zero" the grammar's fault)
    backend = ScriptedBackend.of('{"city":"Bern","people":"zero"}', '{"city":"Bern","people":4}')
    events: list[dict[str, Any]] = []
    result = stream_pipeline(source, "Bern, four people", events.append, backend=backend)
    assert result is not None and result.status == "ok"
    kinds = [e["event"] for e in events]
    assert kinds[0] == "attempt" and kinds.count("attempt") == 2 and kinds[-1] == "end"
    values = [(e["attempt"], e["pointer"], e["value"]) for e in events if e["event"] == "value"]
    assert values == [
        (1, "/city", "Bern"),
        (2, "/city", "Bern"),
        (2, "/people", 4),
        (2, "", {"city": "Bern", "people": 4}),
    ]
    end = events[-1]
    assert end["finish_reason"] == "stop" and end["attempt"] == 2 and end["complete"]
    assert end["result"] == result.to_dict() and end["result"]["value"] == {"city": "Bern", "people": 4}
    json.dumps(events)


def test_cancelled_ends_the_stream_with_the_final_members() -> None:
    source = compile_source("s.json", text=json.dumps(SCHEMA))
    events: list[dict[str, Any]] = []
    calls = iter(range(100))
    result = stream_pipeline(
        source,
        "x",
        events.append,
        backend=ScriptedBackend.of('{"city":"Bern","people":4}'),
        cancelled=lambda: next(calls) >= 0,  # asked after each token: stop at the first
    )
    assert result is None
    end = events[-1]
    # the scripted backend hands its text over as one piece: everything in it was read
    assert end["event"] == "end" and end["finish_reason"] == "cancelled" and end["result"] is None
    assert end["final"] == ["/city", "/people", ""] and end["open"] == []
    assert [e["event"] for e in events] == ["attempt", "token", "value", "value", "value", "end"]
