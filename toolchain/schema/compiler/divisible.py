"""``multipleOf`` for integers over large ranges, exactly: a remainder automaton over the digits.

Divisibility by ``k`` of a decimal text is regular: read digits left to right keeping ``n mod k``
(``r -> (10 r + d) mod k``), accept at 0. Intersected with a digit-range grammar (the integer
bounds, as :func:`numbers.nat_range` splits them by length) the states are (digits still to
read, remainder) — the bound's own digits form one path, every other prefix is "free" — so a
range of up to ``L``-digit numbers needs about ``(L + 2) * k`` rules. Past :data:`MAX_STATES` the
grammar keeps the bounds only and the report gives the size that stopped it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gramwright.grammar.ir import Expr, Ref, alt, char_class, literal, seq

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler

MAX_STATES = 4096


def divisible_states(k: int, lo: int | None, hi: int | None) -> int:
    longest = max(len(str(abs(x))) for x in (lo, hi, 0) if x is not None)
    return (longest + 2) * k


class _Digits:
    def __init__(self, c: Compiler, k: int, hint: str) -> None:
        self.c, self.k, self.hint = c, k, hint
        self._free: dict[tuple[int, int], Expr | None] = {}
        self._mod: dict[int, Ref] = {}

    def _grouped(self, r: int, digits: range | list[int], nxt: dict[int, Expr | None]) -> list[Expr]:
        """``d next(state)`` for each digit, digits with one target in one class."""
        by_target: dict[int, list[int]] = {}
        for d in digits:
            by_target.setdefault((10 * r + d) % self.k, []).append(d)
        parts = []
        for target, ds in by_target.items():
            tail = nxt[target]
            if tail is not None:
                parts.append(seq(char_class([(0x30 + d, 0x30 + d) for d in ds]), tail))
        return parts

    def free(self, n: int, r: int) -> Expr | None:
        """Exactly ``n`` more digits (any), ending at remainder 0."""
        if n == 0:
            return literal("") if r == 0 else None
        key = (n, r)
        if key not in self._free:
            nxt = {t: self.free(n - 1, t) for t in {(10 * r + d) % self.k for d in range(10)}}
            parts = self._grouped(r, range(10), nxt)
            self._free[key] = self.c.helper_rule(alt(*parts), f"{self.hint}/mod") if parts else None
        return self._free[key]

    def mod(self, r: int) -> Ref:
        """Any number of more digits, ending at remainder 0 (cyclic: rules named first)."""
        if not self._mod:
            names = {s: self.c.new_name(f"{self.hint}/mod") for s in range(self.k)}
            self._mod = {s: Ref(name) for s, name in names.items()}
            for s, name in names.items():
                nxt: dict[int, Expr | None] = {t: self._mod[t] for t in range(self.k)}
                parts = self._grouped(s, range(10), nxt)
                self.c.rules[name] = alt(*parts, *([literal("")] if s == 0 else []))
        return self._mod[r]

    def at_least(self, n: int, r: int) -> Expr | None:
        """``n`` or more digits, ending at remainder 0."""
        if n == 0:
            return self.mod(r)
        key = (-n, r)  # beside the free states' keys (n > 0)
        if key not in self._free:
            nxt = {t: self.at_least(n - 1, t) for t in {(10 * r + d) % self.k for d in range(10)}}
            parts = self._grouped(r, range(10), nxt)
            self._free[key] = self.c.helper_rule(alt(*parts), f"{self.hint}/mod") if parts else None
        return self._free[key]

    def between(self, x: str | None, y: str | None, n: int, r: int) -> Expr | None:
        """``n`` more digits, at or above ``x`` / at or below ``y`` (each None once left behind)."""
        if x is None and y is None:
            return self.free(n, r)
        if n == 0:
            return literal("") if r == 0 else None
        first = int(x[0]) if x is not None else 0
        last = int(y[0]) if y is not None else 9
        inner: list[int] = []
        parts: list[Expr] = []
        for d in range(first, last + 1):
            nx = x[1:] if (x is not None and d == first) else None
            ny = y[1:] if (y is not None and d == last) else None
            if nx is None and ny is None:
                inner.append(d)
                continue
            tail = self.between(nx, ny, n - 1, (10 * r + d) % self.k)
            if tail is not None:
                parts.append(seq(literal(str(d)), tail))
        if inner:
            nxt = {t: self.free(n - 1, t) for t in {(10 * r + d) % self.k for d in inner}}
            parts.extend(self._grouped(r, inner, nxt))
        return alt(*parts) if parts else None

    def naturals(self, a: int, b: int | None) -> Expr | None:
        """Canonical texts of the multiples of k in [a, b] (b None: unbounded)."""
        la = len(str(a))
        parts: list[Expr | None] = []
        top = str(b) if b is not None and len(str(b)) == la else "9" * la
        parts.append(self.between(str(a), top, la, 0))
        lb = len(str(b)) if b is not None else None
        for length in range(la + 1, (lb if lb is not None else la + 1)):
            parts.append(self._leading(length))
        if b is None:
            lead = range(1, 10)
            nxt = {t: self.at_least(la, t) for t in {d % self.k for d in lead}}
            parts.extend(self._grouped(0, lead, nxt))
        elif lb is not None and lb > la:
            parts.append(self.between("1" + "0" * (lb - 1), str(b), lb, 0))
        found = [p for p in parts if p is not None]
        return alt(*found) if found else None

    def _leading(self, length: int) -> Expr | None:
        lead = range(1, 10)
        nxt = {t: self.free(length - 1, t) for t in {d % self.k for d in lead}}
        parts = self._grouped(0, lead, nxt)
        return alt(*parts) if parts else None


def divisible_integers(c: Compiler, k: int, lo: int | None, hi: int | None, hint: str) -> Expr | None:
    """Integers in [lo, hi] divisible by ``k`` (canonical texts); None when there are none."""
    digits = _Digits(c, k, hint)
    parts: list[Expr] = []
    if lo is None or lo < 0:  # negative: magnitudes in [max(1, -hi), -lo]
        neg_lo = 1 if hi is None or hi >= 0 else -hi
        if lo is None or neg_lo <= -lo:
            neg = digits.naturals(neg_lo, None if lo is None else -lo)
            if neg is not None:
                parts.append(seq(literal("-"), neg))
    if hi is None or hi >= 0:
        pos = digits.naturals(max(lo or 0, 0), hi)
        if pos is not None:
            parts.append(pos)
    return alt(*parts) if parts else None
