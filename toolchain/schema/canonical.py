"""Canonical serialisation of JSON instances, and acceptance of an instance by a recognizer.

The canonical text of a value is what the compiled grammars are built around:

* ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` — no whitespace, non-ASCII
  characters written as themselves, only ``"``, ``\\`` and control characters escaped (``\\n``,
  ``\\t``, …, else ``\\u00xx``);
* integers, and floats with an integral value (``1.0``, ``-0.0``, ``1e20``), written as integers
  (``1``, ``0``, ``100000000000000000000``); other floats as Python's shortest ``repr``
  (``0.5``, ``1e-05``); non-finite floats cannot be written (the instance is not JSON). Under
  draft-04 (``draft4=True``), where ``1.0`` is a number but not an integer, an integral float is
  written with ``.0`` (``1.0``, ``100000000000000000000.0``) so that the two stay apart;
* object members in *an* order the grammar accepts: schema order is the grammar's order, but which
  subschema governs an object is only known while parsing (``anyOf`` branches may order the same
  keys differently), so :func:`accepts` searches the member orders with the recognizer, pruning
  each key that the grammar does not allow next. An instance is accepted when some order is.

A valid instance whose canonical text the grammar family cannot express (a lone surrogate, a
non-finite float) is simply not accepted: the conformance runner counts that as a false negative.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, Protocol


class Cursor(Protocol):
    """The part of :class:`toolchain.recognizer.Recognizer` that acceptance needs."""

    def try_feed(self, data: bytes) -> bool: ...
    def snapshot(self) -> Any: ...
    def restore(self, snapshot: Any) -> None: ...
    def is_accepting(self) -> bool: ...


def number_text(value: int | float, draft4: bool = False) -> str:
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError(f"{value!r} has no JSON text")
    if value.is_integer():
        return str(int(value)) + (".0" if draft4 else "")
    return repr(value)


def dumps(value: Any, draft4: bool = False) -> str:
    """Canonical text with members in the value's own order."""
    if value is None or isinstance(value, bool | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return number_text(value, draft4)
    if isinstance(value, list):
        return "[" + ",".join(dumps(v, draft4) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(v, draft4) for k, v in value.items())
            + "}"
        )
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def json_equal(a: Any, b: Any) -> bool:
    """JSON Schema equality: 1 == 1.0, true != 1, objects unordered."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def json_key(value: Any) -> Any:
    """A hashable key with ``json_key(a) == json_key(b)`` exactly when ``json_equal(a, b)``."""
    if value is None:
        return ("n",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("#", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("a", tuple(json_key(v) for v in value))
    if isinstance(value, dict):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return ("?", repr(value))


class SearchBudgetExceeded(Exception):
    """The member-order search ran out of steps (the instance is then counted as not accepted)."""


class _Search:
    def __init__(self, cursor: Cursor, budget: int, draft4: bool) -> None:
        self.cursor = cursor
        self.budget = budget
        self.draft4 = draft4

    def feed(self, data: str) -> bool:
        self.budget -= 1
        if self.budget < 0:
            raise SearchBudgetExceeded
        return self.cursor.try_feed(data.encode("utf-8"))

    def value(self, v: Any) -> Iterator[None]:
        """Yield once per way of feeding ``v``; the cursor is restored after each resumption."""
        if isinstance(v, dict):
            yield from self.obj(v)
        elif isinstance(v, list):
            yield from self.arr(v)
        else:
            snap = self.cursor.snapshot()
            if self.feed(dumps(v, self.draft4)):
                yield
                self.cursor.restore(snap)

    def arr(self, items: list[Any]) -> Iterator[None]:
        snap = self.cursor.snapshot()
        if not self.feed("["):
            return
        yield from self._elements(items, 0)
        self.cursor.restore(snap)

    def _elements(self, items: list[Any], i: int) -> Iterator[None]:
        if i == len(items):
            snap = self.cursor.snapshot()
            if self.feed("]"):
                yield
                self.cursor.restore(snap)
            return
        snap = self.cursor.snapshot()
        if i and not self.feed(","):
            return
        for _ in self.value(items[i]):
            yield from self._elements(items, i + 1)
        self.cursor.restore(snap)

    def obj(self, members: dict[str, Any]) -> Iterator[None]:
        snap = self.cursor.snapshot()
        if not self.feed("{"):
            return
        # Search states (parser configuration, members left) already explored without success:
        # without this, one member the grammar rejects makes the search try every order.
        dead: set[tuple[Any, frozenset[str]]] = set()
        yield from self._members(members, list(members), True, dead)
        self.cursor.restore(snap)

    def _members(
        self, members: dict[str, Any], remaining: list[str], first: bool, dead: set[tuple[Any, frozenset[str]]]
    ) -> Iterator[None]:
        state = (getattr(self.cursor.snapshot(), "config", None), frozenset(remaining))
        if state[0] is not None and state in dead:
            return
        yield from self._members_from(members, remaining, first, dead)
        if state[0] is not None:
            dead.add(state)

    def _members_from(
        self, members: dict[str, Any], remaining: list[str], first: bool, dead: set[tuple[Any, frozenset[str]]]
    ) -> Iterator[None]:
        if not remaining:
            snap = self.cursor.snapshot()
            if self.feed("}"):
                yield
                self.cursor.restore(snap)
            return
        for key in remaining:
            snap = self.cursor.snapshot()
            prefix = ("" if first else ",") + json.dumps(key, ensure_ascii=False) + ":"
            if self.feed(prefix):
                rest = [k for k in remaining if k != key]
                for _ in self.value(members[key]):
                    yield from self._members(members, rest, False, dead)
            self.cursor.restore(snap)


def accepts(cursor: Cursor, instance: Any, budget: int = 100_000, *, draft4: bool = False) -> bool:
    """True when the recognizer accepts a canonical text of ``instance`` (some member order).

    Raises :class:`SearchBudgetExceeded` after ``budget`` feeds, ``ValueError``/``TypeError`` when
    the instance has no JSON text. The cursor is left as it was.
    """
    dumps(instance, draft4)  # raises early for values with no JSON text
    search = _Search(cursor, budget, draft4)
    return any(cursor.is_accepting() for _ in search.value(instance))
