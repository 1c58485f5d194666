"""Why a schema's grammar rejects a JSON document that may be right in content.

A grammar compiled from a schema writes a value one way: compact (no whitespace between tokens,
unless compiled with flexible whitespace), object members in the schema's order, numbers and
strings in canonical form (:mod:`gramwright.schema.canonical`). A model under its mask only ever
writes that form, so the grammar still rejects these bytes; but when the same value written that
way is accepted, the document is not wrong in content and the verdict says which difference is
the cause — and only that one:

* ``whitespace``: the document without its whitespace between tokens is accepted (members as
  they are). The verdict also says whether the flexible-whitespace grammar accepts it as it is.
* ``member_order``: the value is accepted only with some object's members in another order.
* ``formatting``: accepted with the members as they are, but with a number or string written
  canonically (``1`` for ``1.0``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.sources import CompiledSource

__all__ = ["Diagnosis", "diagnose", "without_whitespace", "without_whitespace_mapped"]

# a JSON string (kept as it is) or a run of JSON's insignificant whitespace (dropped)
_TOKEN_GAP = re.compile(rb'("(?:[^"\\]|\\.)*")|[ \t\n\r]+', re.DOTALL)
# feeds the member-order search may spend before giving up (no note then, never a wrong one)
SEARCH_BUDGET = 20_000


@dataclass(frozen=True)
class Diagnosis:
    cause: str  # whitespace | member_order | formatting
    accepted_text: str  # the same value, written as the grammar accepts it
    compact_grammar: bool = True  # the grammar allows no whitespace (else: bounded whitespace)
    whitespace_too: bool = False  # member_order/formatting: the document's whitespace differs too
    flexible_accepts: bool | None = None  # whitespace: the flexible grammar's verdict (None: not asked)

    @property
    def note(self) -> str:
        if self.cause == "whitespace" and not self.compact_grammar:
            return (
                "whitespace is the cause: this grammar allows only bounded whitespace between "
                "tokens and accepts the document written without it"
            )
        if self.cause == "whitespace":
            head = (
                "whitespace is the cause: this grammar is compact (no whitespace between tokens) "
                "and accepts the document written without it"
            )
            if self.flexible_accepts is None:
                return head + " (--whitespace flexible compiles a grammar that allows bounded whitespace)"
            verdict = "accepts it as it is" if self.flexible_accepts else "does not accept it as it is either"
            return f"{head}; the flexible-whitespace grammar (--whitespace flexible) {verdict}"
        also = (
            " and without whitespace between tokens (this grammar is compact)" if self.whitespace_too else ""
        )
        if self.cause == "member_order":
            return (
                "the same JSON value with its members in the schema's order"
                f"{also} is accepted — the compiled grammar writes (and accepts) object members "
                f"in that order only:\n{self.accepted_text}"
            )
        return (
            f"the same JSON value with numbers and strings written canonically{also} is accepted "
            f"— the compiled grammar writes each value one way only:\n{self.accepted_text}"
        )

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"cause": self.cause, "accepted_text": self.accepted_text}
        if self.cause == "member_order":
            out["reordered_text"] = self.accepted_text  # the key check --format json always had
        if self.flexible_accepts is not None:
            out["flexible_accepts"] = self.flexible_accepts
        return out


def without_whitespace(data: bytes) -> bytes:
    """JSON text with the whitespace between its tokens removed (strings kept byte for byte)."""
    return _TOKEN_GAP.sub(lambda m: m.group(1) or b"", data)


def without_whitespace_mapped(data: bytes) -> tuple[bytes, list[int]]:
    """:func:`without_whitespace` and, for each byte kept, its offset in ``data``."""
    out = bytearray()
    where: list[int] = []
    pos = 0
    for m in _TOKEN_GAP.finditer(data):
        out += data[pos : m.start()]
        where.extend(range(pos, m.start()))
        if m.group(1):
            out += m.group(1)
            where.extend(range(m.start(), m.end()))
        pos = m.end()
    out += data[pos:]
    where.extend(range(pos, len(data)))
    return bytes(out), where


def diagnose(
    loaded: CompiledSource,
    rec: Recognizer,
    data: bytes,
    flexible: Callable[[], CompiledSource] | None = None,
) -> Diagnosis | None:
    """The one difference that makes the grammar accept ``data``'s value, or None (not JSON, no
    form of the value is accepted, or the search ran out of budget)."""
    try:
        pairs = json.loads(data.decode("utf-8"), object_pairs_hook=_Pairs)
        value = _plain(pairs)
    except (ValueError, RecursionError):  # not JSON (or deeper than Python parses): no diagnosis
        return None
    compact_grammar = loaded.whitespace == "compact"
    compact = without_whitespace(data)
    if compact != data and _accepts(rec, compact):
        flexible_accepts = None
        if flexible is not None and compact_grammar:
            flex = flexible()
            flexible_accepts = _accepts(Recognizer(compile_grammar(flex.grammar)), data)
        return Diagnosis(
            "whitespace", compact.decode("utf-8"), compact_grammar, flexible_accepts=flexible_accepts
        )
    found = _accepted_text(loaded, rec, value)
    if found is None:
        return None
    same_order = _key_orders(pairs) == _key_orders(json.loads(found, object_pairs_hook=_Pairs))
    spaced = compact_grammar and compact != data
    return Diagnosis(
        "formatting" if same_order else "member_order", found, compact_grammar, whitespace_too=spaced
    )


class _Pairs(list[tuple[str, Any]]):
    """An object as parsed, members in document order."""


def _plain(value: Any) -> Any:
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _key_orders(value: Any) -> list[tuple[str, ...]]:
    """Every object's member names in order, depth first (equal for two texts of one value
    exactly when every object lists its members in the same order)."""
    out: list[tuple[str, ...]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, _Pairs):
            out.append(tuple(k for k, _ in node))
            stack.extend(v for _, v in reversed(node))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return out


def _accepts(rec: Recognizer, data: bytes) -> bool:
    rec.reset()
    return rec.try_feed(data) and rec.is_accepting()


def _accepted_text(loaded: CompiledSource, rec: Recognizer, value: Any) -> str | None:
    """The value's text in a member order the grammar accepts, if one is found."""
    from gramwright.schema.canonical import KeyOrder, SearchBudgetExceeded, is_text_of, recorded_text

    rec.reset()
    try:
        found = recorded_text(rec, value, budget=SEARCH_BUDGET, key_order=KeyOrder(loaded.member_orders))
    except (SearchBudgetExceeded, ValueError, TypeError, RecursionError):
        return None
    if found is None:
        return None
    # the recording must be this very value, accepted from the start (guards the search's bookkeeping)
    rec.reset()
    return found.decode("utf-8") if is_text_of(rec, found, value) else None
