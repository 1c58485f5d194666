"""Reading a JSON value out of text made elsewhere (a hosted API, an unconstrained run).

In order, stopping at the first that works: the whole text parses (nothing is touched — ever);
a code fence's content parses; the first JSON value in prose parses (``raw_decode`` from the first
``{`` or ``[``); otherwise the candidate (fence content, or first ``{``/``[`` … last ``}``/``]``)
is repaired (:mod:`gramwright.pipeline.repair`) and every change logged. Extraction is recorded as
what was cut away, never as a repair. A text that ends inside a string or an open container is a
*cut* (``truncated``): its repaired value can only ever be salvaged, flagged, never ``ok``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gramwright.errors import PipelineError
from gramwright.pipeline.repair import RepairChange, is_cut, lex, repair
from gramwright.validate import parse_document, too_deep

__all__ = ["Reading", "read_json_text"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n`]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_EXCERPT = 40


@dataclass
class Reading:
    """What was read: the value (exact decimals where parsed, repaired values as json-repair gives
    them), how (``as_is`` / ``extracted`` from ``fence`` or ``prose`` / ``repaired``), and what was
    changed or cut away."""

    value: Any = None
    parsed: bool = False
    as_is: bool = False
    extracted: str = ""  # "" | "fence" | "prose"
    dropped_before: str = ""  # excerpts of the text cut away around the JSON
    dropped_after: str = ""
    repaired: bool = False
    changes: list[RepairChange] = field(default_factory=list)
    truncated: bool = False
    text: str = ""  # the JSON text the value came from
    notes: list[str] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_is": self.as_is,
            "extracted": self.extracted,
            "dropped_before": self.dropped_before,
            "dropped_after": self.dropped_after,
            "repaired": self.repaired,
            "repairs": [c.to_dict() for c in self.changes],
            "truncated": self.truncated,
            "notes": list(self.notes),
        }


def read_json_text(text: str) -> Reading:
    deep = too_deep(text)
    if deep is not None:  # neither the parser nor json-repair gets it: both recurse
        return Reading(error=f"the text is {deep}")
    stripped = text.strip().removeprefix("\ufeff")
    try:
        return Reading(parse_document(stripped), parsed=True, as_is=True, text=stripped)
    except ValueError:
        pass
    fence = _fence(text)
    if fence is not None:
        start, end, body = fence
        reading = _parse_or_repair(body.strip(), "fence")
        reading.dropped_before, reading.dropped_after = _tail(text[:start]), _head(text[end:])
        return reading
    first = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if first < 0:
        return Reading(error="no JSON value in the text (no '{' or '[')")
    decoder = json.JSONDecoder(parse_float=Decimal)
    try:
        value, end = decoder.raw_decode(text, first)
    except ValueError:
        last = max(text.rfind("}"), text.rfind("]"))
        tail_cut = is_cut(lex(text[first:]))  # no closing bracket after the value: a cut, keep all
        end = len(text) if tail_cut or last < first else last + 1
        reading = _parse_or_repair(text[first:end], "prose")
    else:
        reading = Reading(value, parsed=True, extracted="prose", text=text[first:end])
        rest = text[end:]
        if rest.strip().startswith(("{", "[")):
            reading.notes.append("more JSON follows the first value; only the first was read")
    reading.dropped_before, reading.dropped_after = _tail(text[:first]), _head(text[end:])
    return reading


def _fence(text: str) -> tuple[int, int, str] | None:
    """The first fenced block (preferring one whose body looks like JSON): start, end, body."""
    found = [(m.start(), m.end(), m.group(2)) for m in _FENCE.finditer(text)]
    for start, end, body in found:
        if body.lstrip().startswith(("{", "[")):
            return start, end, body
    return found[0] if found else None


def _parse_or_repair(candidate: str, how: str) -> Reading:
    try:
        return Reading(parse_document(candidate), parsed=True, extracted=how, text=candidate)
    except ValueError:
        pass
    try:
        fixed = repair(candidate)
    except PipelineError as exc:
        return Reading(extracted=how, error=exc.message)
    # re-read the canonical text: exact decimals, as for every other value the validator sees
    return Reading(
        parse_document(fixed.text),
        parsed=True,
        extracted=how,
        repaired=True,
        changes=fixed.changes,
        truncated=fixed.truncated,
        text=fixed.text,
    )


def _tail(s: str) -> str:
    s = s.strip()
    return s if len(s) <= _EXCERPT else "…" + s[-_EXCERPT:]


def _head(s: str) -> str:
    s = s.strip()
    return s if len(s) <= _EXCERPT else s[:_EXCERPT] + "…"
