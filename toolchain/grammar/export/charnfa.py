"""A small code-point NFA over a regular part of the IR, for the lexer-exactness analysis only.

llguidance lexes a Lark grammar's terminals greedily with one byte of lookahead, so whether a
Lark export means the same language as the IR depends on questions about the terminals'
languages ("can a complete string of A, followed by a byte that may come next, still be the
beginning of a string of B?"). This module answers them on a Thompson NFA over code points. It
decides nothing about documents — that is the recognizer's job, and this never feeds it.

Bounded repetitions above :data:`EXACT_REPEAT` copies are widened to ``{min(m, 2),}``: a larger
language can only report more conflicts, never fewer, so the analysis stays sound and small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gramwright.grammar.ir import MAX_CODE_POINT, Alt, CharClass, Expr, Literal, Ref, Repeat, Seq

__all__ = ["EXACT_REPEAT", "CharNFA", "Ranges", "TooLarge", "intersects", "lead_byte_closure", "merge"]

EXACT_REPEAT = 4
MAX_STATES = 20_000

Ranges = tuple[tuple[int, int], ...]


class TooLarge(Exception):
    """The NFA would exceed :data:`MAX_STATES`; callers treat that as "cannot prove exact"."""


class CharNFA:
    """Thompson NFA: ``moves[s]`` lists ``(lo, hi, target)``, ``eps[s]`` the epsilon targets."""

    def __init__(self, expr: Expr, resolve: Callable[[str], Expr]) -> None:
        self.moves: list[list[tuple[int, int, int]]] = []
        self.eps: list[list[int]] = []
        self._resolve = resolve
        self._steps: dict[tuple[frozenset[int], int], frozenset[int]] = {}
        self._facts: dict[str, object] = {}
        self.start = self._new()
        self.accept = self._build(expr, self.start, (), 0)

    def _new(self) -> int:
        if len(self.moves) >= MAX_STATES:
            raise TooLarge
        self.moves.append([])
        self.eps.append([])
        return len(self.moves) - 1

    def _build(self, expr: Expr, src: int, stack: tuple[str, ...], depth: int) -> int:
        """Add ``expr`` starting at ``src``; return its end state."""
        if isinstance(expr, Literal):
            cur = src
            for ch in expr.text:
                nxt = self._new()
                self.moves[cur].append((ord(ch), ord(ch), nxt))
                cur = nxt
            return cur
        if isinstance(expr, CharClass):
            end = self._new()
            for lo, hi in expr.effective_ranges():
                self.moves[src].append((lo, hi, end))
            return end
        if isinstance(expr, Ref):
            if expr.name in stack:
                raise ValueError(f"rule {expr.name!r} is recursive, not a terminal")
            return self._build(self._resolve(expr.name), src, (*stack, expr.name), depth)
        if isinstance(expr, Seq):
            cur = src
            for item in expr.items:
                cur = self._build(item, cur, stack, depth)
            return cur
        if isinstance(expr, Alt):
            end = self._new()
            for item in expr.items:
                branch = self._new()
                self.eps[src].append(branch)
                self.eps[self._build(item, branch, stack, depth)].append(end)
            return end
        assert isinstance(expr, Repeat)
        low: int = expr.min
        high: int | None = expr.max
        if high is not None and high > EXACT_REPEAT:
            low, high = min(low, 2), None  # widened: a superset keeps the analysis sound
        cur = src
        for _ in range(low):
            cur = self._build(expr.item, cur, stack, depth)
        if high is None:
            loop = self._new()
            self.eps[cur].append(loop)
            self.eps[self._build(expr.item, loop, stack, depth)].append(loop)
            return loop
        end = self._new()
        self.eps[cur].append(end)
        for _ in range(high - low):
            cur = self._build(expr.item, cur, stack, depth)
            self.eps[cur].append(end)
        return end

    # ---- simulation ------------------------------------------------------------------------

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        seen = set(states)
        stack = list(seen)
        while stack:
            for nxt in self.eps[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return frozenset(seen)

    def initial(self) -> frozenset[int]:
        return self.closure((self.start,))

    def accepting(self, states: frozenset[int]) -> bool:
        return self.accept in states

    def step(self, states: frozenset[int], cp: int) -> frozenset[int]:
        return self.closure(t for s in states for lo, hi, t in self.moves[s] if lo <= cp <= hi)

    def step_cached(self, states: frozenset[int], cp: int) -> frozenset[int]:
        key = (states, cp)
        if key not in self._steps:
            self._steps[key] = self.step(states, cp)
        return self._steps[key]

    def out_ranges(self, states: frozenset[int]) -> list[tuple[int, int]]:
        return [(lo, hi) for s in states for lo, hi, _ in self.moves[s]]

    def first(self) -> Ranges:
        """The code points a non-empty string of the language can start with."""
        if "first" not in self._facts:
            self._facts["first"] = merge(self.out_ranges(self.initial()))
        return self._facts["first"]  # type: ignore[return-value]

    def continuations(self) -> Ranges:
        """Code points that occur after the first one in some string (a superset, cheaply)."""
        if "cont" not in self._facts:
            self._facts["cont"] = self._continuations()
        return self._facts["cont"]  # type: ignore[return-value]

    def _continuations(self) -> Ranges:
        after_first = self.closure(t for s in self.initial() for _, _, t in self.moves[s])
        seen = set(after_first)
        stack = list(seen)
        out: list[tuple[int, int]] = []
        while stack:
            s = stack.pop()
            for lo, hi, t in self.moves[s]:
                out.append((lo, hi))
                for u in self.closure((t,)):
                    if u not in seen:
                        seen.add(u)
                        stack.append(u)
        return merge(out)

    def max_one_char(self) -> bool:
        """No string of the language is longer than one code point."""
        after_first = self.closure(t for s in self.initial() for _, _, t in self.moves[s])
        return not any(self.moves[s] for s in after_first)


def merge(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return tuple(out)


def intersects(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


# UTF-8 lead bytes: the code points that share a first byte form one aligned block.
_BLOCKS = ((0x80, 1), (0x800, 64), (0x10000, 4096), (MAX_CODE_POINT + 1, 262144))


def _block(cp: int) -> tuple[int, int]:
    for limit, size in _BLOCKS:
        if cp < limit:
            lo = cp - cp % size
            if size == 64 and lo < 0x80:
                lo = 0x80
            if size == 4096 and lo < 0x800:
                lo = 0x800
            if size == 262144 and lo < 0x10000:
                lo = 0x10000
            return lo, min(cp - cp % size + size - 1, limit - 1)
    raise ValueError(f"code point {cp:#x} outside Unicode")


def lead_byte_closure(ranges: Ranges) -> Ranges:
    """Every code point whose UTF-8 encoding starts with the same byte as one in ``ranges``:
    a byte-level lexer decides on that first byte before it sees the rest of the character."""
    out: list[tuple[int, int]] = []
    for lo, hi in ranges:
        out.append(_block(lo))
        out.append(_block(hi))
        out.append((lo, hi))
    return merge(out)
