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
  keys differently), so :func:`accepts` decides over *all* member orders with the recognizer:
  one hinted order first, then an exact search over parser states (:class:`_Exact`). An
  instance is accepted when some order is; when the search runs out of budget the answer is
  :class:`SearchBudgetExceeded` (undecided), never a guess.

A valid instance whose canonical text the grammar family cannot express (a lone surrogate, a
non-finite float) is simply not accepted: the conformance runner counts that as a false negative.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """The part of :class:`gramwright.recognizer.Recognizer` that acceptance needs."""

    def try_feed(self, data: bytes) -> bool: ...
    def snapshot(self) -> Any: ...
    def restore(self, snapshot: Any) -> None: ...
    def is_accepting(self) -> bool: ...


class RecordingCursor:
    """A cursor that remembers the bytes fed, so the member order that was accepted can be read
    back: ``found`` holds the text of the first accepting path."""

    def __init__(self, cursor: Cursor) -> None:
        self.cursor = cursor
        self.buffer = bytearray()
        self.found: bytes | None = None

    def try_feed(self, data: bytes) -> bool:
        ok = bool(self.cursor.try_feed(data))
        if ok:
            self.buffer += data
        return ok

    def snapshot(self) -> tuple[Any, bytes]:
        # the bytes themselves, not a length: the search may restore a snapshot taken further
        # along than the current position (it revisits the end states of a value)
        return (self.cursor.snapshot(), bytes(self.buffer))

    def restore(self, snapshot: Any) -> None:
        self.cursor.restore(snapshot[0])
        self.buffer[:] = snapshot[1]

    def is_accepting(self) -> bool:
        ok = bool(self.cursor.is_accepting())
        if ok and self.found is None:
            self.found = bytes(self.buffer)
        return ok


def recorded_text(
    cursor: Cursor, instance: Any, budget: int = 100_000, *, key_order: KeyOrder | None = None
) -> bytes | None:
    """The text of ``instance`` that ``cursor`` accepts (some member order), as fed on the first
    accepting path; None when no order is accepted. Raises as :func:`accepts` does."""
    recording = RecordingCursor(cursor)
    if not accepts(recording, instance, budget, key_order=key_order):
        return None
    return recording.found


def is_text_of(fresh: Cursor, text: bytes, instance: Any) -> bool:
    """Whether ``text`` is JSON for ``instance`` and ``fresh`` (a cursor at the start) accepts
    it whole — the guard on a recorded text."""
    return json.loads(text) == instance and fresh.try_feed(text) and fresh.is_accepting()


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


class KeyOrder:
    """Guesses the grammar's member order for an instance object.

    ``orders`` are the declared member orders of the object grammars a schema compiled to
    (:attr:`gramwright.schema.CompiledSchema.member_orders`); an instance object is ordered like
    the one that names most of its keys (the one most likely to govern it), other keys last. It
    only orders the search of :func:`accepts` — the first try is then usually the one the grammar
    wants; a wrong guess costs time, never the answer.
    """

    def __init__(self, orders: Iterable[Sequence[str]]) -> None:
        self._where: dict[str, list[tuple[int, int]]] = {}  # key → (order no., position)
        for n, names in enumerate(dict.fromkeys(tuple(o) for o in orders)):
            for pos, key in enumerate(names):
                self._where.setdefault(key, []).append((n, pos))

    def order(self, keys: list[str]) -> list[str]:
        return self.orders(keys, 1)[0]

    def orders(self, keys: list[str], limit: int) -> list[list[str]]:
        """Up to ``limit`` guesses, best first: ``keys`` ordered like each declared order that
        names some of them, most names first (``keys`` themselves when none does)."""
        votes: dict[int, int] = {}
        for k in keys:
            for n, _ in self._where.get(k, ()):
                votes[n] = votes.get(n, 0) + 1
        if not votes:
            return [keys]
        out: list[list[str]] = []
        for best in sorted(votes, key=lambda n: (-votes[n], n))[:limit]:
            pos = {k: p for k in keys for n, p in self._where.get(k, ()) if n == best}
            out.append(sorted(keys, key=lambda k: (k not in pos, pos.get(k, 0))))
        return out


class SearchBudgetExceeded(Exception):
    """The member-order search ran out of steps: the instance is undecided (neither accepted nor
    rejected)."""


# Feeds the one-pass first try (_InOrder) may spend before the exhaustive decision.
IN_ORDER_FEEDS = 200_000
# Key orders it tries per object: the hint's best guess, the instance's own, the next guesses.
IN_ORDER_GUESSES = 6


class _InOrder:
    """Feed a value in one pass, each object's keys in the key-order hint's order, else in the
    instance's own order, else in the hint's next guesses (no search: at most
    :data:`IN_ORDER_FEEDS` feeds). Accepted here means accepted; not accepted decides nothing."""

    def __init__(self, cursor: Cursor, draft4: bool, key_order: KeyOrder | None) -> None:
        self.cursor = cursor
        self.draft4 = draft4
        self.key_order = key_order
        self._feeds = IN_ORDER_FEEDS

    def run(self, v: Any) -> bool:
        try:
            return self._value(v)
        except SearchBudgetExceeded:
            return False

    def _try(self, data: str) -> bool:
        self._feeds -= 1
        if self._feeds < 0:
            raise SearchBudgetExceeded
        return bool(self.cursor.try_feed(data.encode("utf-8")))

    def _value(self, v: Any) -> bool:
        if isinstance(v, dict):
            own = list(v)
            guesses = self.key_order.orders(own, IN_ORDER_GUESSES) if self.key_order else []
            snap = self.cursor.snapshot()
            for order in [*dict.fromkeys(tuple(g) for g in [*guesses[:1], own, *guesses[1:]])]:
                if (
                    self._try("{")
                    and all(
                        self._try(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":")
                        and self._value(v[key])
                        for i, key in enumerate(order)
                    )
                    and self._try("}")
                ):
                    return True
                self.cursor.restore(snap)
            return False
        if isinstance(v, list):
            if not self._try("["):
                return False
            for i, item in enumerate(v):
                if (i and not self._try(",")) or not self._value(item):
                    return False
            return self._try("]")
        return self._try(dumps(v, self.draft4))


class _Exact:
    """The set of parser states a value can end in, over *every* member order — exactly.

    States are the cursor's snapshots, compared by their ``config`` (the recognizer's
    configuration determines everything that can follow; a cursor without one is compared by
    the whole snapshot: still exact, only less shared). Per object, ``E(state, members left)``
    is memoised, and two rules cut the search without changing its answer:

    * every member left returns to this very state (the "any other member" loop): placing them
      all in any order ends here, so the state is the only end;
    * a member left that no state reachable from here can take — reachable by feeding any of
      the object's members, any number of times, a superset of what any real order reaches —
      can never be placed, so nothing ends from here. This is what makes a rejection cheap:
      one member with a wrong value, or members of a declared order skipped past, would
      otherwise make the search try every order of the others.

    Every feed counts against ``budget``; past it :class:`SearchBudgetExceeded` is raised (the
    answer is then unknown, never guessed).
    """

    def __init__(self, cursor: Cursor, budget: int, draft4: bool) -> None:
        self.cursor = cursor
        self.budget = budget
        self.draft4 = draft4
        self._memo: dict[tuple[Any, int], list[Any]] = {}

    @staticmethod
    def key(snap: Any) -> Any:
        return getattr(snap, "config", snap)

    def walk(self, snap: Any, text: str) -> Any:
        """The snapshot after feeding ``text`` from ``snap``, or None when it is rejected."""
        self.budget -= 1
        if self.budget < 0:
            raise SearchBudgetExceeded
        self.cursor.restore(snap)
        if self.cursor.try_feed(text.encode("utf-8")):
            return self.cursor.snapshot()
        return None

    def _distinct(self, snaps: Iterable[Any]) -> list[Any]:
        return list({self.key(s): s for s in snaps if s is not None}.values())

    def ends(self, snap: Any, v: Any) -> list[Any]:
        if not isinstance(v, dict | list):
            return self._distinct([self.walk(snap, dumps(v, self.draft4))])
        mk = (self.key(snap), id(v))
        found = self._memo.get(mk)
        if found is None:
            found = self._array(snap, v) if isinstance(v, list) else self._object(snap, v)
            self._memo[mk] = found
        return found

    def _array(self, snap: Any, items: list[Any]) -> list[Any]:
        states = self._distinct([self.walk(snap, "[")])
        for i, item in enumerate(items):
            if i:
                states = self._distinct(self.walk(s, ",") for s in states)
            states = self._distinct(e for s in states for e in self.ends(s, item))
        return self._distinct(self.walk(s, "]") for s in states)

    def _object(self, snap: Any, members: dict[str, Any]) -> list[Any]:
        start = self.walk(snap, "{")
        if start is None:
            return []
        return self._distinct(self.walk(s, "}") for s in _Members(self, members).ends(start))


class _Members:
    """One object's members, placed in every order from one state (see :class:`_Exact`)."""

    def __init__(self, exact: _Exact, members: dict[str, Any]) -> None:
        self.x = exact
        self.keys = list(members)
        self.values = [members[k] for k in self.keys]
        self.prefixes = [json.dumps(k, ensure_ascii=False) + ":" for k in self.keys]
        self.full = (1 << len(self.keys)) - 1
        self._ends: dict[tuple[Any, int, bool], list[Any]] = {}  # (state, member, first) → ends
        self._left: dict[tuple[Any, int], list[Any]] = {}  # (state, members left) → ends
        self._never: dict[tuple[Any, bool], int] = {}  # (state, first) → members never placeable

    def ends(self, start: Any) -> list[Any]:
        return self._place(start, self.full)

    def member(self, snap: Any, i: int, first: bool) -> list[Any]:
        """The states after member ``i`` (with its comma unless ``first``) from ``snap``."""
        mk = (self.x.key(snap), i, first)
        found = self._ends.get(mk)
        if found is None:
            after_key = self.x.walk(snap, ("" if first else ",") + self.prefixes[i])
            found = [] if after_key is None else self.x.ends(after_key, self.values[i])
            self._ends[mk] = found
        return found

    def _place(self, start: Any, full: int) -> list[Any]:
        """The states after placing the members in ``full`` from ``start`` in every order.

        A depth-first walk over (state, members left) with an explicit stack: one object can
        have more members than Python's recursion limit."""
        key = self.x.key
        todo: list[tuple[Any, int, list[tuple[Any, int]] | None]] = [(start, full, None)]
        while todo:
            snap, left, children = todo.pop()
            mk = (key(snap), left)
            if mk in self._left:
                continue
            if children is not None:  # all children done: gather their ends
                self._left[mk] = self.x._distinct(
                    end for s, rest in children for end in self._left[(key(s), rest)]
                )
                continue
            if not left:
                self._left[mk] = [snap]
                continue
            first = left == self.full
            never = self._never.get((mk[0], first))
            if never is not None and left & never:  # known already: no need to feed anything
                self._left[mk] = []
                continue
            nexts = [(i, self.member(snap, i, first)) for i in range(len(self.keys)) if left >> i & 1]
            if not first and all(len(e) == 1 and key(e[0]) == mk[0] for _, e in nexts):
                self._left[mk] = [snap]  # every member left loops back here, in any order
                continue
            if any(not e for _, e in nexts) and left & self._never_placeable(snap, first):
                self._left[mk] = []
                continue
            kids = [(s, left & ~(1 << i)) for i, e in nexts for s in e]
            todo.append((snap, left, kids))
            todo.extend((s, rest, None) for s, rest in reversed(kids) if (key(s), rest) not in self._left)
        return self._left[(key(start), full)]

    def _never_placeable(self, snap: Any, first: bool) -> int:
        """The members that no state reachable from ``snap`` (feeding any members, repeatedly)
        can take. Computed for every state reached on the way (a fixpoint over that graph), so
        each state's answer is built once per object."""
        key = self.x.key
        root = (key(snap), first)
        if root in self._never:
            return self._never[root]
        nodes: dict[tuple[Any, bool], tuple[int, list[tuple[Any, bool]]]] = {}  # own mask, successors
        todo = [(snap, first)]
        while todo:
            s, f = todo.pop()
            nk = (key(s), f)
            if nk in nodes or nk in self._never:
                continue
            own, succ = 0, []
            for i in range(len(self.keys)):
                nxt = self.member(s, i, f)
                if nxt:
                    own |= 1 << i
                for t in nxt:
                    tk = (key(t), False)
                    succ.append(tk)
                    if tk not in nodes and tk not in self._never:
                        todo.append((t, False))
            nodes[nk] = (own, succ)
        reach = {nk: own for nk, (own, _) in nodes.items()}
        for nk, never in self._never.items():
            reach.setdefault(nk, self.full & ~never)
        order = list(reversed(nodes))  # successors were mostly found after their predecessors
        changed = True
        while changed:
            changed = False
            for nk in order:
                m = reach[nk]
                for tk in nodes[nk][1]:
                    m |= reach[tk]
                if m != reach[nk]:
                    reach[nk] = m
                    changed = True
        for nk in nodes:
            self._never[nk] = self.full & ~reach[nk]
        return self._never[root]


def accepts(
    cursor: Cursor,
    instance: Any,
    budget: int = 100_000,
    *,
    draft4: bool = False,
    key_order: KeyOrder | None = None,
) -> bool:
    """True when the recognizer accepts a canonical text of ``instance`` (some member order).

    Raises :class:`SearchBudgetExceeded` after ``budget`` feeds of the exhaustive decision
    (undecided), ``ValueError``/``TypeError`` when the instance has no JSON text. The cursor is
    left as it was. ``key_order`` only orders the first try; it never changes the answer.
    """
    dumps(instance, draft4)  # raises early for values with no JSON text
    snap = cursor.snapshot()
    try:
        # One pass first (see _InOrder): when it is accepted, so is the instance, and a valid
        # document usually comes in (or is hinted into) an order the grammar takes.
        if _InOrder(cursor, draft4, key_order).run(instance) and cursor.is_accepting():
            return True
        cursor.restore(snap)
        exact = _Exact(cursor, budget, draft4)
        for end in exact.ends(snap, instance):
            cursor.restore(end)
            if cursor.is_accepting():
                return True
        return False
    finally:
        cursor.restore(snap)
