"""Streaming: values the grammar has settled as an output is written (:mod:`.values`), the NDJSON
events of a streamed run (:mod:`.events`), and a check that reads a document as it arrives
(:mod:`.check`). Pure: fed bytes or the decode loop's per-token callback, never printing."""

from gramwright.streaming.events import FINISH_REASONS, EventStream, value_event
from gramwright.streaming.values import FinalValue, ValueStream

__all__ = ["FINISH_REASONS", "EventStream", "FinalValue", "ValueStream", "value_event"]
