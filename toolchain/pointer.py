"""RFC 6901 JSON Pointers: escaping a token, joining, splitting, and where each pointer of a JSON
text begins.

A token's ``~`` is written ``~0`` and its ``/`` ``~1`` (in that order, so ``~1`` in a name stays
``~01``); unescaping runs the other way round. Every layer that names a place in a schema or a
document (compile report, lint diagnostics, check verdicts, the TUI) goes through these functions,
so a property called ``a/b`` is the same pointer everywhere. A leaf module: it imports nothing from
the package, so every layer may import it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")

__all__ = [
    "escape_token",
    "join_pointer",
    "last_token",
    "locate",
    "parent_pointer",
    "pointer_offsets",
    "pointer_tokens",
    "schema_location",
    "unescape_token",
]


def escape_token(token: str | int) -> str:
    """One reference token as it is written inside a pointer."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """The name a written reference token stands for."""
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(pointer: str, *names: str | int) -> str:
    """``pointer`` extended by ``names`` (property names, keywords or array indexes), escaped."""
    for name in names:
        text = str(name)
        # most names need no escape: the compiler and the linter join millions of pointers
        pointer = f"{pointer}/{escape_token(text) if '~' in text or '/' in text else text}"
    return pointer


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped tokens of ``pointer`` (``""``, the whole document, has none)."""
    return [unescape_token(t) for t in pointer.split("/")[1:]] if pointer else []


def last_token(pointer: str) -> str:
    """The unescaped last token (``""`` for the whole document)."""
    return unescape_token(pointer.rsplit("/", 1)[-1]) if "/" in pointer else ""


def parent_pointer(pointer: str) -> str:
    """The pointer one level up (the whole document is its own parent). Text with no ``/`` left
    (what remains of a URI such as ``file:///s.json#/a``) goes up to the whole document, so that
    a walk up the parents always ends."""
    return pointer.rsplit("/", 1)[0] if "/" in pointer else ""


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _skip(text: str, i: int) -> int:
    """The offset of the first non-whitespace character at or after ``i``."""
    m = _WS.match(text, i)
    return m.end() if m else i


def pointer_offsets(text: str) -> dict[str, int]:
    """Every pointer of the JSON ``text`` → the character offset where it begins; a member begins
    at its key (an annotation then lands on the line that names the property). Partial when the
    text is not valid JSON: the pointers before the fault are kept. The standard library's parser
    keeps no positions, hence this scanner; it keeps its own stack, so any depth is fine."""
    offsets: dict[str, int] = {}
    # one frame per open container: (its pointer, the next array index, or -1 inside an object)
    stack: list[tuple[str, int]] = []
    i = _skip(text, 0)
    pointer = ""
    try:
        while True:
            offsets.setdefault(pointer, i)
            c = text[i : i + 1]
            if c in ("{", "["):
                stack.append((pointer, -1 if c == "{" else 0))
                i = _skip(text, i + 1)
                closing = "}" if c == "{" else "]"
                if text[i : i + 1] == closing:
                    stack.pop()
                    i += 1
                else:
                    pointer, i = _next_member(text, i, stack, offsets)
                    continue
            else:
                m = _STRING.match(text, i) if c == '"' else _SCALAR.match(text, i)
                if not m:
                    return offsets
                i = m.end()
            # a value ended: close containers or move on to the next member
            while stack:
                i = _skip(text, i)
                c = text[i : i + 1]
                if c == ",":
                    i = _skip(text, i + 1)
                    break
                if c not in ("}", "]"):
                    return offsets
                stack.pop()
                i += 1
            else:
                return offsets
            pointer, i = _next_member(text, i, stack, offsets)
    except ValueError:
        return offsets


def _next_member(text: str, i: int, stack: list[tuple[str, int]], offsets: dict[str, int]) -> tuple[str, int]:
    """The pointer of the member (or array item) that starts at ``i`` and where its value starts."""
    container, index = stack[-1]
    if index >= 0:
        stack[-1] = (container, index + 1)
        return join_pointer(container, index), i
    m = _STRING.match(text, i)
    if not m:
        raise ValueError(f"expected a key at {i}")
    child = join_pointer(container, json.loads(m.group(0)))
    offsets.setdefault(child, i)
    i = _skip(text, m.end())
    if text[i : i + 1] != ":":
        raise ValueError(f"expected ':' at {i}")
    return child, _skip(text, i + 1)


def locate(positions: Mapping[str, T], pointer: str) -> T | None:
    """The entry of ``pointer`` in ``positions``, or of its nearest ancestor that has one."""
    while True:
        if pointer in positions:
            return positions[pointer]
        if not pointer:
            return None
        pointer = parent_pointer(pointer)


def schema_location(schema: object, instance_pointer: str) -> str:
    """The pointer of the subschema that describes ``instance_pointer`` of a document, as deep as
    ``properties``, ``additionalProperties``, ``patternProperties``, ``prefixItems`` and ``items``
    lead (a ``$ref`` or a combinator ends the walk: its parent is where the cursor goes)."""
    here, node = "", schema
    for token in pointer_tokens(instance_pointer):
        if not isinstance(node, Mapping):
            break
        props, prefix, items = node.get("properties"), node.get("prefixItems"), node.get("items")
        if isinstance(props, Mapping) and token in props:
            here, node = join_pointer(here, "properties", token), props[token]
        elif token.isdigit() and isinstance(prefix, list) and int(token) < len(prefix):
            here, node = join_pointer(here, "prefixItems", int(token)), prefix[int(token)]
        elif token.isdigit() and isinstance(items, Mapping):
            here, node = join_pointer(here, "items"), items
        elif isinstance(node.get("patternProperties"), Mapping) and (
            match := next((p for p in node["patternProperties"] if re.search(p, token)), None)
        ):
            here, node = join_pointer(here, "patternProperties", match), node["patternProperties"][match]
        elif isinstance(node.get("additionalProperties"), Mapping):
            here, node = join_pointer(here, "additionalProperties"), node["additionalProperties"]
        else:
            break
    return here
