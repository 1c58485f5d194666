"""The events of a streamed generation, as NDJSON-ready dicts: one ``token`` event per token,
one ``value`` event per JSON value the grammar has settled (:mod:`gramwright.streaming.values`),
and one ``end`` event, always last, with the finish reason, which members were final and which
were still open, and the run's result.

:class:`EventStream` is fed from the decode loop's per-token callback (``on_token`` of
:meth:`gramwright.generation.Generator.run`, which gets each step's bytes), or byte by byte by
anything else; it never prints: the CLI writes each event as one JSON line.

A pipeline run may make several attempts; each begins with an ``attempt`` event and its value
events belong to that attempt's output (a retry writes a new document; the ``end`` event's result
says which attempt was kept).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

from gramwright.recognizer import InputRejected
from gramwright.recognizer.compiled import CompiledGrammar
from gramwright.streaming.values import FinalValue, ValueStream

__all__ = ["FINISH_REASONS", "EventStream", "value_event"]

Event = dict[str, Any]
# stop/length: the decode loop's own; timeout: --timeout (or the pipeline's wall budget) ran out;
# cancelled: the user interrupted (Ctrl-C) or the caller stopped the run
FINISH_REASONS = ("stop", "length", "timeout", "cancelled")


def value_event(v: FinalValue, attempt: int | None = None) -> Event:
    out: Event = {"event": "value", **v.to_dict()}
    if attempt is not None:
        out["attempt"] = attempt
    return out


class EventStream:
    """Events for one streamed run; ``emit`` receives each event as it happens."""

    def __init__(self, compiled: CompiledGrammar | None, emit: Callable[[Event], None]) -> None:
        """``compiled``: the grammar the output is written under (None: token events only, for
        an unconstrained run, whose bytes no grammar vouches for)."""
        self._compiled = compiled
        self._emit = emit
        self.attempt: int | None = None
        self.tokens = 0
        self._begin()

    def _begin(self) -> None:
        self.values = ValueStream(self._compiled) if self._compiled is not None else None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._bytes = 0
        self.rejected_at: int | None = None

    def begin_attempt(self, attempt: int) -> None:
        """A new attempt of a pipeline run: its output starts from the first byte again."""
        self.attempt = attempt
        self._begin()
        self._emit({"event": "attempt", "attempt": attempt})

    def token(self, token_id: int | None, data: bytes) -> None:
        """One token's bytes (``token_id`` None when the bytes come without one)."""
        text = self._decoder.decode(data)  # a character split across tokens appears whole, once
        event: Event = {"event": "token", "index": self.tokens, "text": text, "bytes": len(data)}
        if token_id is not None:
            event["id"] = token_id
        if self.attempt is not None:
            event["attempt"] = self.attempt
        self.tokens += 1
        self._bytes += len(data)
        self._emit(event)
        if data and self.values is not None and self.values.json and self.rejected_at is None:
            try:
                found = self.values.feed(data)
            except InputRejected as exc:
                # text the grammar does not vouch for (an unconstrained attempt): its values up to
                # there, then no more value events, and the end event says where it left
                found = self.values.feed(data[: exc.offset])
                self.rejected_at = exc.position
            for v in found:
                self._emit(value_event(v, self.attempt))

    def on_step(self, step: Any) -> None:
        """The decode loop's per-token callback (a ``StepTrace``: ``token_id``, ``text``)."""
        self.token(step.token_id, step.text)

    def end(self, finish_reason: str, result: dict[str, Any] | None) -> None:
        """The last event. A complete output settles its open number or literal first; a cut one
        (timeout, cancelled, length) leaves those open and says so."""
        if finish_reason not in FINISH_REASONS:
            raise ValueError(f"unknown finish_reason {finish_reason!r}")
        values = self.values
        if finish_reason == "stop" and values is not None and self.rejected_at is None:
            for v in values.finish():
                self._emit(value_event(v, self.attempt))
        event: Event = {
            "event": "end",
            "finish_reason": finish_reason,
            "complete": values.accepting if values is not None else None,
            "bytes": self._bytes,
            "final": [v.pointer for v in values.final] if values is not None else [],
            "open": values.open_pointers() if values is not None and values.json else [],
        }
        if self.rejected_at is not None:
            event["left_grammar_at"] = self.rejected_at
        if self.attempt is not None:
            event["attempt"] = self.attempt
        event["result"] = result
        self._emit(event)
