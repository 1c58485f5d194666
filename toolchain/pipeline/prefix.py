"""Closing a cut output at its last complete member (layer 3's reading of a ``length`` finish).

A constrained output cut by the token limit is a prefix of a valid document. It is never
"repaired" into a complete-looking value: the member being written when the output stopped
(a string without its closing quote, a number that may have had more digits, a key without its
value) is left out, and the containers still open are closed. What comes back is only ever
salvaged and flagged ``degraded`` — the pipeline never returns it as ``ok`` or ``partial``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gramwright.pipeline.repair import lex
from gramwright.pointer import join_pointer
from gramwright.validate import parse_document

__all__ = ["ClosedPrefix", "close_prefix"]


@dataclass(frozen=True)
class ClosedPrefix:
    value: Any
    cut_at: str  # pointer of the member that was being written (left out)


@dataclass
class _Frame:
    kind: str  # "{" or "["
    pointer: str
    expect: str  # objects: "key" | "colon" | "value" | "comma"; arrays: "value" | "comma"
    key: str = ""
    index: int = 0


def close_prefix(text: str) -> ClosedPrefix | None:
    """The value of the longest complete-member prefix of ``text``, closed; ``None`` when not even
    the outermost container had begun (or the text is not JSON-shaped)."""
    stack: list[_Frame] = []
    safe: tuple[int, list[str]] | None = None  # (text offset, closers) after the last whole member
    lexemes = lex(text)
    tail = len(text.rstrip())
    for lx in lexemes:
        end = lx.start + len(lx.raw)
        top = stack[-1] if stack else None
        if lx.kind in ("{", "["):
            at = "" if top is None else _member(top)
            stack.append(_Frame(lx.kind, at, "key" if lx.kind == "{" else "value"))
            safe = (end, _closers(stack))
        elif lx.kind in ("}", "]"):
            if top is None:
                break
            stack.pop()
            if not stack:
                safe = (end, [])
                break
            stack[-1].expect = "comma"
            safe = (end, _closers(stack))
        elif top is None or lx.kind == "junk":
            break
        elif lx.kind == ",":
            top.expect = "key" if top.kind == "{" else "value"
            top.index += top.kind == "["
        elif lx.kind == ":":
            top.expect = "value"
        elif top.kind == "{" and top.expect == "key":
            top.key, top.expect = lx.norm, "colon"
        else:  # a scalar value: whole only if closed and (numbers, literals) followed by something
            # a number or literal that ends the text may have had more characters
            if (lx.kind == "str" and not lx.closed) or (lx.kind != "str" and end == tail):
                break
            top.expect = "comma"
            safe = (end, _closers(stack))
    if safe is None:
        return None
    cut_at = _member(stack[-1]) if stack else ""
    try:
        value = parse_document(text[: safe[0]] + "".join(safe[1]))
    except ValueError:
        return None
    return ClosedPrefix(value, cut_at)


def _member(frame: _Frame) -> str:
    return join_pointer(frame.pointer, frame.key if frame.kind == "{" else frame.index)


def _closers(stack: list[_Frame]) -> list[str]:
    return ["}" if f.kind == "{" else "]" for f in reversed(stack)]
