"""Check a document as it arrives (``check --stream``): the first byte at which the input can
never complete is reported the moment that byte is read, not when the stream ends.

A client of a hosted API hands the bytes over in pieces; the recognizer reads each piece as it
comes and knows after every byte whether some continuation still completes the input ("incomplete
so far") or not. The verdict for a rejected byte is the whole-document check's own
(:func:`gramwright.checking.rejection`: offset, line:col, allowed bytes, schema pointers), and at
the end the whole-document :func:`gramwright.checking.check_document` gives the final verdict
with its diagnosis, so both always name the same offset.

One subtlety keeps them equal: ``check`` ignores one final newline the grammar does not accept
(files end with one). A newline refused here may be that final newline, so its rejection is
held until the next byte arrives (then it stands) or the stream ends (then the whole-document
verdict decides, as ``check`` does). ``exact`` reports it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gramwright.checking import CheckResult, check_document, rejection
from gramwright.recognizer import InputRejected, Recognizer, compile_grammar
from gramwright.sources import CompiledSource

__all__ = ["StreamCheck", "StreamProgress"]

_FINAL_NEWLINES = (b"\n", b"\r", b"\r\n")  # a tail that may still be the one ignored final newline


@dataclass(frozen=True)
class StreamProgress:
    """Where a streamed check stands after the bytes read so far."""

    offset: int  # bytes read
    line: int
    column: int
    state: str  # incomplete (a prefix of a document) | complete (a document; more may follow) | rejected

    def to_dict(self) -> dict[str, object]:
        return {
            "event": "progress",
            "offset": self.offset,
            "line": self.line,
            "column": self.column,
            "state": self.state,
        }


class StreamCheck:
    """Feed the input piece by piece; :meth:`feed` returns the rejection the moment it is known
    (once), :meth:`end` the whole-document verdict."""

    def __init__(
        self,
        loaded: CompiledSource,
        *,
        exact: bool = False,
        flexible: Callable[[], CompiledSource] | None = None,
    ) -> None:
        self._loaded = loaded
        self._exact = exact
        self._flexible = flexible
        self._rec = Recognizer(compile_grammar(loaded.grammar))
        self._data = bytearray()
        self._held: InputRejected | None = None  # a refused newline that may be the final one
        self.rejected: CheckResult | None = None
        # line:col of the end, kept as bytes arrive (a long stream read byte by byte stays linear)
        self._lines = 1
        self._line_start = 0

    @property
    def offset(self) -> int:
        return len(self._data)

    def feed(self, chunk: bytes) -> CheckResult | None:
        start = len(self._data)
        self._data += chunk
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            self._lines += chunk.count(b"\n")
            self._line_start = start + newline + 1
        if self.rejected is not None:
            return None
        if self._held is not None:
            return self._judge_held()
        try:
            self._rec.feed(chunk)
        except InputRejected as exc:
            self._rec.feed(chunk[: exc.offset])  # the recognizer stands at the refused byte
            if not self._exact and exc.byte in (0x0A, 0x0D):
                self._held = exc
                return self._judge_held()
            self.rejected = rejection(self._loaded, bytes(self._data), exc)
            return self.rejected
        return None

    def _judge_held(self) -> CheckResult | None:
        held = self._held
        assert held is not None
        if bytes(self._data[held.position :]) in _FINAL_NEWLINES:
            return None  # perhaps the final newline: the end decides
        self.rejected = rejection(self._loaded, bytes(self._data), held)
        return self.rejected

    def progress(self) -> StreamProgress:
        tail = bytes(self._data[self._line_start :]).decode("utf-8", "replace")
        if self.rejected is not None:
            state = "rejected"
        elif self._rec.is_accepting():
            state = "complete"
        else:
            state = "incomplete"
        return StreamProgress(len(self._data), self._lines, len(tail) + 1, state)

    def end(self) -> CheckResult:
        """The verdict on everything read: the whole-document check's, diagnosis included. A
        held newline that is not the final newline ``check`` ignores (a lone ``\r``) makes
        :attr:`rejected` known now, at the end."""
        if (
            self._held is not None
            and self.rejected is None
            and bytes(self._data[self._held.position :]) == b"\r"
        ):
            self.rejected = rejection(self._loaded, bytes(self._data), self._held)
        rec = Recognizer(compile_grammar(self._loaded.grammar))
        return check_document(
            self._loaded, rec, bytes(self._data), exact=self._exact, flexible=self._flexible, form="bytes"
        )
