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
from collections.abc import Generator, Iterable, Iterator, Sequence
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


class KeyOrder:
    """Guesses the grammar's member order for an instance object.

    ``orders`` are the declared member orders of the object grammars a schema compiled to
    (:attr:`toolchain.schema.CompiledSchema.member_orders`); an instance object is ordered like
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
    """The member-order search ran out of steps (the instance is then counted as not accepted)."""


class _AlternativesExhausted(Exception):
    """A value's search for further end states ran out of its own allowance."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


# Feeds a structured value may spend looking for *another* end state once it has found one.
# Other member orders matter only when they leave the parser in a different state (anyOf
# branches ordering the same keys differently); searching them exhaustively is exponential.
ALTERNATIVES_BUDGET = 2000
# Feeds the one-pass first try (_Search.in_order) may spend before the search proper.
IN_ORDER_FEEDS = 200_000
# Key orders it tries per object: the hint's best guess, the instance's own, the next guesses.
IN_ORDER_GUESSES = 6


class _Search:
    def __init__(self, cursor: Cursor, budget: int, draft4: bool, key_order: KeyOrder | None) -> None:
        self.cursor = cursor
        self.budget = budget
        self.draft4 = draft4
        self.key_order = key_order
        self.limits: list[int] = []  # the budget must stay above each (see value())
        self._in_order_feeds = IN_ORDER_FEEDS

    def feed(self, data: str) -> bool:
        self.budget -= 1
        if self.budget < 0:
            raise SearchBudgetExceeded
        if self.limits and self.budget < max(self.limits):
            raise _AlternativesExhausted(max(self.limits))
        return self.cursor.try_feed(data.encode("utf-8"))

    def value(self, v: Any) -> Iterator[None]:
        """Yield once per parser state that feeding ``v`` can end in; the cursor is restored after
        each resumption. Two member orders that end in the same state are one: what follows
        cannot tell them apart. After the first end state, further ones are searched within
        :data:`ALTERNATIVES_BUDGET` feeds."""
        if not isinstance(v, dict | list):
            snap = self.cursor.snapshot()
            if self.feed(dumps(v, self.draft4)):
                yield
                self.cursor.restore(snap)
            return
        ends: set[Any] = set()
        gen = self.obj(v) if isinstance(v, dict) else self.arr(v)
        limit: int | None = None
        try:
            while True:
                if limit is not None:
                    self.limits.append(limit)
                try:
                    next(gen)
                except StopIteration:
                    return
                finally:
                    if limit is not None:
                        self.limits.remove(limit)
                end = getattr(self.cursor.snapshot(), "config", None)
                if end is not None and end in ends:
                    continue
                if end is not None:
                    ends.add(end)
                yield
                limit = self.budget - ALTERNATIVES_BUDGET
        except _AlternativesExhausted as exc:
            if exc.limit != limit:
                raise
            gen.close()  # its cursor restores are moot: the caller restores its own snapshot

    def arr(self, items: list[Any]) -> Generator[None, None, None]:
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

    def in_order(self, v: Any) -> bool:
        """Feed ``v`` in one pass, each object's keys in the key-order hint's order, else in the
        instance's own order, else in the hint's next guesses (no search, no budget: at most
        :data:`IN_ORDER_FEEDS` feeds).

        The hinted order is the search's first path (its first choice at every level): the
        search itself tries every member that can come next (each value fed to an end state)
        before choosing one, quadratic per object level, so a large nested document can exhaust
        the budget although this very order is accepted. The instance's own order covers a hint
        that guessed wrong (it ranks keys by one declared order per object)."""
        self._in_order_feeds = IN_ORDER_FEEDS
        try:
            return self._in_order(v)
        except SearchBudgetExceeded:
            return False

    def _try(self, data: str) -> bool:
        self._in_order_feeds -= 1
        if self._in_order_feeds < 0:
            raise SearchBudgetExceeded
        return bool(self.cursor.try_feed(data.encode("utf-8")))

    def _in_order(self, v: Any) -> bool:
        if isinstance(v, dict):
            own = list(v)
            guesses = self.key_order.orders(own, IN_ORDER_GUESSES) if self.key_order else []
            snap = self.cursor.snapshot()
            for order in [*dict.fromkeys(tuple(g) for g in [*guesses[:1], own, *guesses[1:]])]:
                if (
                    self._try("{")
                    and all(
                        self._try(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":")
                        and self._in_order(v[key])
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
                if (i and not self._try(",")) or not self._in_order(item):
                    return False
            return self._try("]")
        return self._try(dumps(v, self.draft4))

    def obj(self, members: dict[str, Any]) -> Generator[None, None, None]:
        snap = self.cursor.snapshot()
        if not self.feed("{"):
            return
        # Search states (parser configuration, members left) already explored without success:
        # without this, one member the grammar rejects makes the search try every order.
        dead: set[tuple[Any, frozenset[str]]] = set()
        # Keys in the schema's order first: the grammar's order, so the first try usually fits.
        order = self.key_order.order(list(members)) if self.key_order else list(members)
        yield from self._members(members, order, True, dead)
        self.cursor.restore(snap)

    def _members(
        self,
        members: dict[str, Any],
        remaining: list[str],
        first: bool,
        dead: set[tuple[Any, frozenset[str]]],
    ) -> Iterator[None]:
        state = (getattr(self.cursor.snapshot(), "config", None), frozenset(remaining))
        if state[0] is not None and state in dead:
            return
        yield from self._members_from(members, remaining, first, dead)
        if state[0] is not None:
            dead.add(state)

    def _members_from(
        self,
        members: dict[str, Any],
        remaining: list[str],
        first: bool,
        dead: set[tuple[Any, frozenset[str]]],
    ) -> Iterator[None]:
        if not remaining:
            snap = self.cursor.snapshot()
            if self.feed("}"):
                yield
                self.cursor.restore(snap)
            return
        snap = self.cursor.snapshot()
        here = getattr(snap, "config", None)
        # Each member that can come next, with its first end state; further end states (other
        # orders inside its value) are fetched only when needed. Snapshots are absolute, so an end
        # can be revisited later without feeding the value again.
        cands: list[tuple[str, Iterator[None], list[Any]]] = []
        stuck = False
        for key in remaining:
            prefix = ("" if first else ",") + json.dumps(key, ensure_ascii=False) + ":"
            if self.feed(prefix):
                gen = self.value(members[key])
                if next(gen, _DONE) is _DONE:
                    stuck = True
                else:
                    cands.append((key, gen, [self.cursor.snapshot()]))
            else:
                stuck = True
            self.cursor.restore(snap)
        if stuck and here is not None and cands and self._loops_only(here, cands):
            # Some member fits nowhere here, and every member that fits leads back to this very
            # state (the "any other member" loop): that member can never come. Without this an
            # invalid member makes the search try every order of the others.
            self.cursor.restore(snap)
            return
        for key, gen, ends in cands:
            rest = [k for k in remaining if k != key]
            i = 0
            while True:
                if i == len(ends):
                    if next(gen, _DONE) is _DONE:
                        break
                    ends.append(self.cursor.snapshot())
                self.cursor.restore(ends[i])
                i += 1
                yield from self._members(members, rest, False, dead)
        self.cursor.restore(snap)

    def _loops_only(self, here: Any, cands: list[tuple[str, Iterator[None], list[Any]]]) -> bool:
        """Every end state of every candidate (all of them fetched) is ``here``."""
        if any(getattr(ends[0], "config", None) != here for _, _, ends in cands):
            return False
        for _, gen, ends in cands:
            while next(gen, _DONE) is not _DONE:
                ends.append(self.cursor.snapshot())
                if getattr(ends[-1], "config", None) != here:
                    return False
        return True


_DONE = object()


def accepts(
    cursor: Cursor,
    instance: Any,
    budget: int = 100_000,
    *,
    draft4: bool = False,
    key_order: KeyOrder | None = None,
) -> bool:
    """True when the recognizer accepts a canonical text of ``instance`` (some member order).

    Raises :class:`SearchBudgetExceeded` after ``budget`` feeds, ``ValueError``/``TypeError`` when
    the instance has no JSON text. The cursor is left as it was. ``key_order``
    only orders the search; it never changes the answer.
    """
    dumps(instance, draft4)  # raises early for values with no JSON text
    search = _Search(cursor, budget, draft4, key_order)
    snap = cursor.snapshot()
    try:
        # One pass first (see _Search.in_order): when it is accepted, so is the instance — the
        # search would find that order too, if its budget lasted.
        if search.in_order(instance) and cursor.is_accepting():
            return True
        cursor.restore(snap)
        return any(cursor.is_accepting() for _ in search.value(instance))
    finally:
        cursor.restore(snap)
