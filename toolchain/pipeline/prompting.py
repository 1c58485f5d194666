"""The user turn of each attempt: the request, the schema's "cannot answer" exits, retry feedback.

The system prompt (the schema with its field descriptions) is the generator's, as for a single
generation. Here: when the schema has exits — nullable members, enum values such as ``unknown`` /
``其他`` — the prompt names them, so a request without the information has an honest answer
(a mask forces *some* value; without an exit the model must invent one). A retry carries a short
error summary as data — JSON Pointer + reason, as pydantic-ai sends errors — never the whole
failed output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gramwright.pipeline.result import ResultError
from gramwright.pointer import join_pointer
from gramwright.schema.exits import is_exit

__all__ = ["exit_note", "feedback_note", "schema_exits", "user_turn"]

MAX_FEEDBACK_ERRORS = 8


def schema_exits(schema: Any, at: str = "", depth: int = 0) -> Iterator[tuple[str, str]]:
    """(pointer, exit) pairs: members that may be ``null`` or hold an exit enum value."""
    if not isinstance(schema, Mapping) or depth > 6:
        return
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            where = join_pointer(at, name)
            if isinstance(sub, Mapping):
                types = sub.get("type")
                if types == "null" or (isinstance(types, list) and "null" in types):
                    yield where, "null"
                for value in sub.get("enum", []) or []:
                    if is_exit(value):
                        yield where, json.dumps(value, ensure_ascii=False)
            yield from schema_exits(sub, where, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from schema_exits(items, f"{at}/*", depth + 1)


def exit_note(schema: Any) -> str:
    exits = list(dict.fromkeys(schema_exits(schema)))
    if not exits:
        return ""
    shown = ", ".join(f"{p} → {v}" for p, v in exits[:8])
    return (
        "If the request does not give a value, do not invent one: use the schema's "
        f'"cannot answer" value where there is one ({shown}), or leave an optional field out.'
    )


def feedback_note(errors: Sequence[ResultError]) -> str:
    shown = [e.feedback() for e in errors[:MAX_FEEDBACK_ERRORS]]
    more = f" (+{len(errors) - len(shown)} more)" if len(errors) > len(shown) else ""
    return (
        "Your previous answer was rejected. Errors (JSON Pointer and reason): "
        + json.dumps(shown, ensure_ascii=False)
        + more
        + ". Fix these errors and answer again with the whole JSON value."
    )


def user_turn(request: str, *, exits: str = "", feedback: str = "") -> str:
    return "\n\n".join(part for part in (request, exits, feedback) if part)
