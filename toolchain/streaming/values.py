"""JSON values a stream has settled: which member, by JSON Pointer, can no longer change.

A client reading a constrained output as it is written wants each member as soon as it is
decided, and never a value that later changes (``12`` that becomes ``123``). The grammar knows
when that is: :class:`ValueStream` runs the one recognizer over the bytes as they come, beside a
small incremental JSON reader that only says *where* a value starts and ends; whether a value
that could still grow is decided is asked of the recognizer, never guessed.

The rule (docs/streaming.md):

* a **string** is final at its closing quote; an **object** or **array** at its closing bracket;
* a **number** or a literal (``true``, ``false``, ``null``) is final at its last byte when the
  grammar allows no byte there that would continue it (for a number: a digit, ``.``, ``e``,
  ``E``, ``+``, ``-``; for a literal: a letter); otherwise at the next byte, which ends it (a
  ``,``, a bracket or whitespace), or at the end of a complete input.

An enum member is one of these values, and the same rule applies: ``1`` in ``enum [1, 12]`` is
final only when the byte after it is not ``2``. Pure and model-free: feed it bytes in any
chunks (byte by byte, token by token); the events do not depend on how the bytes were cut,
only on when they arrive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gramwright.pointer import escape_token
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.recognizer.compiled import CompiledGrammar
from gramwright.sources import CompiledSource

__all__ = ["FinalValue", "ValueStream"]

_WS = frozenset(b" \t\n\r")
_NUMBER_BYTES = frozenset(b"0123456789.eE+-")
_LITERAL_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}


@dataclass(frozen=True)
class FinalValue:
    """One value the grammar has settled: it equals the member in any completion of the input."""

    pointer: str  # RFC 6901, "" for the whole document
    value: Any
    kind: str  # string | number | boolean | null | object | array
    start: int  # byte offset of its first byte
    end: int  # byte offset after its last byte
    final_at: int  # bytes read when it became final (end, or later for a number: see the rule)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "value": self.value,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "final_at": self.final_at,
        }


@dataclass
class _Container:
    pointer: str
    start: int
    value: dict[str, Any] | list[Any]
    # object: key | colon | value | next (after a member: "," or "}"); array: value | next
    expect: str
    key: str | None = None


@dataclass
class _Lexeme:
    kind: str  # string | key | number | literal
    start: int
    raw: bytearray = field(default_factory=bytearray)
    escaped: bool = False  # strings: the byte before was an unescaped backslash


class ValueStream:
    """Feed output bytes; get back the values that became final with them.

    Bytes the grammar rejects raise :class:`~gramwright.recognizer.InputRejected` (nothing of
    them is read). Input that is not JSON (a GBNF grammar's own language) gives no value events
    from the first byte the reader does not follow on; ``json`` then turns False."""

    def __init__(self, compiled: CompiledGrammar) -> None:
        self._rec = Recognizer(compiled)
        self._stack: list[_Container] = []
        self._lex: _Lexeme | None = None
        self._done = False  # the root value has ended
        self.json = True
        self.final: list[FinalValue] = []

    @classmethod
    def for_source(cls, source: CompiledSource) -> ValueStream:
        """The stream of a compiled source's grammar (as compiled: for a model's output, the
        source it generated under, e.g. ``source.for_generation()``)."""
        return cls(compile_grammar(source.grammar))

    @property
    def position(self) -> int:
        return self._rec.position

    @property
    def accepting(self) -> bool:
        return self._rec.is_accepting()

    def open_pointers(self) -> list[str]:
        """Pointers of the values begun but not final, outermost first."""
        out = [c.pointer for c in self._stack]
        if self._lex is not None and self._lex.kind != "key":
            out.append(self._child_pointer())
        return out

    def feed(self, data: bytes) -> list[FinalValue]:
        rec = self._rec
        before = rec.snapshot()
        rec.feed(data)  # raises before anything is read when a byte is not allowed
        if not self.json:
            return []
        rec.restore(before)
        found: list[FinalValue] = []
        for b in data:
            pos = rec.position
            rec.feed_byte(b)
            if not self._read(b, pos, found):
                self.json = False
            elif self._lex is not None and self._lex.kind in ("number", "literal"):
                self._settle_if_decided(found)
            if not self.json:
                rec.restore(before)
                rec.feed(data)  # the recognizer still reads the whole chunk
                break
        self.final.extend(found)
        return found

    def _settle_if_decided(self, found: list[FinalValue]) -> None:
        """A number or literal just read is final now when the grammar allows no byte that
        would continue it (the recognizer's answer, not a guess about the schema)."""
        lex = self._lex
        assert lex is not None
        follow = _NUMBER_BYTES if lex.kind == "number" else _LITERAL_BYTES
        if not (self._rec.allowed_bytes() & follow):
            pos = self._rec.position
            if not self._end_scalar(pos, pos, found):
                self.json = False

    def finish(self) -> list[FinalValue]:
        """The end of the input: a number or literal still open is final when the input is
        complete (a cut input leaves it open)."""
        found: list[FinalValue] = []
        lex = self._lex
        if self.json and lex is not None and lex.kind in ("number", "literal") and self.accepting:
            pos = self._rec.position
            if not self._end_scalar(pos, pos, found):
                self.json = False
        self.final.extend(found)
        return found

    # -- the reader: where values start and end (validity is the recognizer's job) -----------

    def _read(self, b: int, pos: int, found: list[FinalValue]) -> bool:
        lex = self._lex
        if lex is not None:
            if lex.kind in ("string", "key"):
                lex.raw.append(b)
                if lex.escaped:
                    lex.escaped = False
                elif b == 0x5C:  # backslash
                    lex.escaped = True
                elif b == 0x22 and len(lex.raw) > 1:
                    return self._end_string(pos + 1, found)
                return True
            if lex.kind == "number" and b in _NUMBER_BYTES:
                lex.raw.append(b)
                return True
            if lex.kind == "literal" and b in _LITERAL_BYTES:
                lex.raw.append(b)
                return True
            # a byte that cannot continue the lexeme ends it, and is then read on its own
            if not self._end_scalar(pos, pos + 1, found):
                return False
        return self._structural(b, pos, found)

    def _structural(self, b: int, pos: int, found: list[FinalValue]) -> bool:
        if b in _WS:
            return True
        top = self._stack[-1] if self._stack else None
        if top is None:
            if self._done:
                return False
            return self._begin_value(b, pos)
        if top.expect == "value":
            if b == 0x5D and isinstance(top.value, list) and not top.value:  # "[]"
                return self._end_container(pos, found)
            return self._begin_value(b, pos)
        if top.expect == "key":
            if b == 0x22:
                self._lex = _Lexeme("key", pos, bytearray(b'"'))
                return True
            return b == 0x7D and not top.value and self._end_container(pos, found)  # "{}"
        if top.expect == "colon":
            if b != 0x3A:
                return False
            top.expect = "value"
            return True
        # "next": after a member or element
        if b == 0x2C:
            top.expect = "key" if isinstance(top.value, dict) else "value"
            return True
        if b == (0x7D if isinstance(top.value, dict) else 0x5D):
            return self._end_container(pos, found)
        return False

    def _begin_value(self, b: int, pos: int) -> bool:
        if b == 0x7B or b == 0x5B:
            value: dict[str, Any] | list[Any] = {} if b == 0x7B else []
            self._stack.append(_Container(self._child_pointer(), pos, value, "key" if b == 0x7B else "value"))
            return True
        if b == 0x22:
            self._lex = _Lexeme("string", pos, bytearray(b'"'))
        elif b == 0x2D or 0x30 <= b <= 0x39:
            self._lex = _Lexeme("number", pos, bytearray([b]))
        elif b in _LITERALS:
            self._lex = _Lexeme("literal", pos, bytearray([b]))
        else:
            return False
        return True

    def _child_pointer(self) -> str:
        if not self._stack:
            return ""
        top = self._stack[-1]
        if isinstance(top.value, dict):
            return f"{top.pointer}/{escape_token(top.key or '')}"
        return f"{top.pointer}/{len(top.value)}"

    def _end_string(self, end: int, found: list[FinalValue]) -> bool:
        lex = self._lex
        assert lex is not None
        try:
            text = json.loads(lex.raw.decode("utf-8"))
        except ValueError:
            return False
        self._lex = None
        if lex.kind == "key":
            top = self._stack[-1]
            top.key, top.expect = text, "colon"
            return True
        return self._settle(text, "string", lex.start, end, end, found)

    def _end_scalar(self, end: int, final_at: int, found: list[FinalValue]) -> bool:
        lex = self._lex
        assert lex is not None
        raw = bytes(lex.raw)
        if lex.kind == "literal":
            if raw != _LITERALS.get(raw[0]):
                return False
            value: Any = {b"true": True, b"false": False, b"null": None}[raw]
            kind = "null" if value is None else "boolean"
        else:
            try:
                value = json.loads(raw)
            except ValueError:
                return False
            kind = "number"
        self._lex = None
        return self._settle(value, kind, lex.start, end, final_at, found)

    def _end_container(self, pos: int, found: list[FinalValue]) -> bool:
        top = self._stack.pop()
        kind = "object" if isinstance(top.value, dict) else "array"
        return self._settle(top.value, kind, top.start, pos + 1, pos + 1, found)

    def _settle(
        self, value: Any, kind: str, start: int, end: int, final_at: int, found: list[FinalValue]
    ) -> bool:
        pointer = self._child_pointer()
        found.append(FinalValue(pointer, value, kind, start, end, final_at))
        if not self._stack:
            self._done = True
            return True
        top = self._stack[-1]
        if isinstance(top.value, dict):
            top.value[top.key or ""] = value
        else:
            top.value.append(value)
        top.expect = "next"
        return True
