"""Which values an output's budget close cut short: the JSON values still open where it began.

When the token budget narrows the masks (``engine/budget.py``) the grammar closes every value
that is open at that point as soon as it can: a string ends, an array gets no more items, an
object only its required members. Those values are the ones the close may have cut short, named
here by JSON Pointer (RFC 6901), outermost first. A scalar being written (a string, a number) is
named too; a member whose key was being written is named by its object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@dataclass
class _Frame:
    kind: str  # "object" | "array"
    pointer: str
    index: int = 0  # arrays: the current item
    key: str | None = None  # objects: the current member's key
    expect_key: bool = True


def _child(stack: list[_Frame]) -> str:
    if not stack:
        return ""
    top = stack[-1]
    if top.kind == "array":
        return f"{top.pointer}/{top.index}"
    return f"{top.pointer}/{_escape(top.key or '')}"


def open_json_values(text: str, offset: int) -> list[str]:
    """JSON Pointers of the values open at character ``offset`` of ``text`` (a JSON document
    written from its start; whitespace and a leading prefix outside any value are skipped)."""
    stack: list[_Frame] = []
    in_string = is_key = escaped = False
    string_start = 0
    scalar: str | None = None  # a number or literal being read: its pointer
    for i, c in enumerate(text[:offset]):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
                if is_key and stack:
                    try:
                        stack[-1].key = str(json.loads(text[string_start : i + 1]))
                    except ValueError:
                        stack[-1].key = text[string_start + 1 : i]
            continue
        if scalar is not None and not (c.isalnum() or c in "+-."):
            scalar = None
        if c in "{[":
            stack.append(_Frame("object" if c == "{" else "array", _child(stack)))
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == '"':
            in_string, escaped, string_start = True, False, i
            is_key = bool(stack) and stack[-1].kind == "object" and stack[-1].expect_key
        elif c == ",":
            if stack and stack[-1].kind == "array":
                stack[-1].index += 1
            elif stack:
                stack[-1].expect_key = True
        elif c == ":":
            if stack:
                stack[-1].expect_key = False
        elif not c.isspace() and scalar is None:
            scalar = _child(stack)
    out = [frame.pointer for frame in stack]
    if in_string and not is_key:
        out.append(_child(stack))
    elif scalar is not None:
        out.append(scalar)
    return list(dict.fromkeys(out))
