"""JSON Pointer → (line, column) in the source text, for editor and CI annotations.

A small scanner over the JSON text (the standard library's parser does not keep positions). A
member's position is its key's, so an annotation lands on the line that names the property.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import re

from gramwright.pointer import join_pointer

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets: dict[str, int] = {}

    def ws(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def value(self, i: int, pointer: str) -> int:
        i = self.ws(i)
        self.offsets.setdefault(pointer, i)
        c = self.text[i : i + 1]
        if c == "{":
            i = self.ws(i + 1)
            while self.text[i : i + 1] != "}":
                m = _STRING.match(self.text, i)
                if not m:
                    raise ValueError(f"expected a key at {i}")
                key = json.loads(m.group(0))
                child = join_pointer(pointer, key)
                self.offsets.setdefault(child, i)
                i = self.ws(m.end())
                i = self.ws(i + 1)  # ':'
                i = self.ws(self.value(i, child))
                if self.text[i : i + 1] == ",":
                    i = self.ws(i + 1)
            return i + 1
        if c == "[":
            i = self.ws(i + 1)
            n = 0
            while self.text[i : i + 1] != "]":
                i = self.ws(self.value(i, join_pointer(pointer, n)))
                n += 1
                if self.text[i : i + 1] == ",":
                    i = self.ws(i + 1)
            return i + 1
        m = _STRING.match(self.text, i) if c == '"' else _SCALAR.match(self.text, i)
        if not m:
            raise ValueError(f"unexpected character at {i}")
        return m.end()


def pointer_positions(text: str) -> dict[str, tuple[int, int]]:
    """Every pointer of the document → 1-based (line, column); partial if the text is not valid JSON."""
    scanner = _Scanner(text)
    with contextlib.suppress(ValueError, RecursionError, IndexError):
        scanner.value(0, "")
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out: dict[str, tuple[int, int]] = {}
    for pointer, offset in scanner.offsets.items():
        line = bisect.bisect_right(starts, offset)
        out[pointer] = (line, offset - starts[line - 1] + 1)
    return out


def locate(positions: dict[str, tuple[int, int]], pointer: str) -> tuple[int, int] | None:
    """The position of ``pointer``, or of its nearest existing ancestor."""
    while True:
        if pointer in positions:
            return positions[pointer]
        if not pointer:
            return None
        pointer = pointer.rsplit("/", 1)[0]
