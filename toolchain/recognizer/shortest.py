"""Shortest completions: how many bytes a configuration still needs before the grammar accepts.

Three fixpoints, from the IR up to a configuration:

* **per rule** (IR): the fewest bytes a rule derives (``Seq`` adds, ``Alt`` takes the least,
  ``x{m,n}`` is ``m`` copies), a least fixpoint over the rules that reference each other;
* **per NFA state** (one rule's NFA, built only for rules a run enters): the fewest bytes from the
  state to the rule's end — a shortest path backwards from the final state where a byte edge costs
  1 and a call edge costs its callee's rule minimum; a rule state (a set of NFA states) takes the
  least of its members;
* **per configuration**: a stack's cost is the sum over its frames (the top rule state's, then
  each return state's below it), and a configuration takes its cheapest live stack (0 when it
  accepts).

Bytes are counted only through bytes the vocabulary has as single tokens (``byte_ok``): then a
completion of ``n`` bytes is at most ``n`` tokens (one byte per token), a bound that holds token
by token — the next byte of a shortest completion leaves one that is one byte shorter. A byte the
vocabulary lacks as a token costs infinity (a completion through it is not counted on), so the
bound stays sound for a vocabulary without byte fallback.

``max_shortest`` bounds the shortest completion of *every* reachable configuration (the longest
of the "fewest bytes still needed" over all positions of the grammar); it is infinite for a
recursive grammar. The engine's closing zone uses it to know, with no work per step, that a
budget is ample.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

from gramwright.grammar.analysis import prepare
from gramwright.grammar.ir import Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq, refs
from gramwright.grammar.utf8 import utf8_sequences
from gramwright.recognizer.compiled import BOTTOM, CompiledGrammar

INF = math.inf
ExprMin = Callable[[Expr, dict[str, float]], float]
ClassBytes = Callable[[CharClass], tuple[float, float]]


class _Costs:
    """Byte-range costs: 1 where the vocabulary has a byte of the range as one token."""

    def __init__(self, byte_ok: Sequence[bool]) -> None:
        self.prefix = [0]
        for ok in byte_ok:
            self.prefix.append(self.prefix[-1] + (1 if ok else 0))
        self.all = self.prefix[-1] == 256

    def range_cost(self, lo: int, hi: int) -> float:
        return 1.0 if self.all or self.prefix[hi + 1] > self.prefix[lo] else INF


def _class_bytes(cc: CharClass, costs: _Costs) -> tuple[float, float]:
    """(fewest, most) bytes of one character of ``cc`` through usable bytes."""
    low, high = INF, 0.0
    for sq in utf8_sequences(cc.effective_ranges()):
        if all(costs.range_cost(lo, hi) < INF for lo, hi in sq):
            low = min(low, float(len(sq)))
            high = max(high, float(len(sq)))
    return low, (high if low < INF else INF)


def shortest_bytes(grammar: Grammar, byte_ok: Sequence[bool]) -> float:
    """The fewest bytes (through single-byte tokens) of any string ``grammar`` accepts."""
    g = prepare(grammar)
    finder = _ExprMinimum(_Costs(byte_ok))
    return _rule_minimum(g, finder.expr_min).get(g.root, INF)


class _ExprMinimum:
    def __init__(self, costs: _Costs) -> None:
        self.costs = costs
        self._classes: dict[CharClass, tuple[float, float]] = {}

    def char_class(self, cc: CharClass) -> tuple[float, float]:
        got = self._classes.get(cc)
        if got is None:
            got = self._classes[cc] = _class_bytes(cc, self.costs)
        return got

    def expr_min(self, e: Expr, rules: dict[str, float]) -> float:
        if type(e) is Literal:
            data = e.text.encode("utf-8")
            if self.costs.all:
                return float(len(data))
            return float(len(data)) if all(self.costs.range_cost(b, b) < INF for b in data) else INF
        if type(e) is CharClass:
            return self.char_class(e)[0]
        if type(e) is Seq:
            total = 0.0
            for item in e.items:
                total += self.expr_min(item, rules)
                if total == INF:
                    break
            return total
        if type(e) is Alt:
            return min(self.expr_min(item, rules) for item in e.items)
        if type(e) is Ref:
            return rules.get(e.name, INF)
        assert isinstance(e, Repeat)
        if e.min == 0:
            return 0.0
        return e.min * self.expr_min(e.item, rules)


class ShortestCompletion:
    """Shortest-completion lengths (bytes, through single-byte tokens) for one compiled grammar."""

    def __init__(self, cg: CompiledGrammar, byte_ok: Sequence[bool]) -> None:
        self.cg = cg
        self._costs = _Costs(byte_ok)
        exprs = _ExprMinimum(self._costs)
        g = cg.grammar
        self.rule_min = _rule_minimum(g, exprs.expr_min)
        self.max_shortest = _max_shortest(g, self.rule_min, exprs.expr_min, exprs.char_class)
        self._dist: dict[int, dict[int, float]] = {}  # rule index → NFA state → bytes to its end
        self._rs_min: dict[int, float] = {}
        self._frame_min: dict[int, float] = {BOTTOM: 0.0}
        self._config_min: dict[int, float] = {}

    # -- per NFA state and rule state ---------------------------------------------------------
    def _rule_dist(self, rule: int) -> dict[int, float]:
        got = self._dist.get(rule)
        if got is not None:
            return got
        nfa = self.cg.nfa
        start, end, final = nfa.start(rule), nfa.end(rule), nfa.final(rule)
        names = nfa.rule_names
        back: dict[int, list[tuple[int, float]]] = {}
        for s in range(start, end):
            for lo, hi, t in nfa.byte_edges[s]:
                c = self._costs.range_cost(lo, hi)
                if c < INF:
                    back.setdefault(t, []).append((s, c))
            for t in nfa.eps[s]:
                back.setdefault(t, []).append((s, 0.0))
            for callee, ret in nfa.calls[s]:
                c = self.rule_min.get(names[callee], INF)
                if c < INF:
                    back.setdefault(ret, []).append((s, c))
        dist: dict[int, float] = {final: 0.0}
        heap: list[tuple[float, int]] = [(0.0, final)]
        while heap:
            d, s = heapq.heappop(heap)
            if d > dist.get(s, INF):
                continue
            for p, c in back.get(s, ()):
                nd = d + c
                if nd < dist.get(p, INF):
                    dist[p] = nd
                    heapq.heappush(heap, (nd, p))
        self._dist[rule] = dist
        return dist

    def rule_state_min(self, rs: int) -> float:
        got = self._rs_min.get(rs)
        if got is None:
            dist = self._rule_dist(self.cg.state_rule(rs))
            got = min((dist.get(m, INF) for m in self.cg.state_members(rs)), default=INF)
            self._rs_min[rs] = got
        return got

    def frame_min(self, frame: int) -> float:
        """The fewest bytes that complete the stack ``frame`` (its rule state, then each return
        state below it)."""
        memo = self._frame_min
        got = memo.get(frame)
        if got is not None:
            return got
        path: list[int] = []
        f = frame
        while f not in memo:
            path.append(f)
            f = self.cg.frame_parent(f)
        below = memo[f]
        for f in reversed(path):
            below = memo[f] = self.rule_state_min(self.cg.frame_state(f)) + below
        return below

    def config_min(self, config: int) -> float:
        """The fewest bytes (hence tokens, see the module) after which ``config`` accepts."""
        got = self._config_min.get(config)
        if got is None:
            cg = self.cg
            if cg.config_accepting[config]:
                got = 0.0
            else:
                got = min((self.frame_min(f) for f in cg.config_frames[config]), default=INF)
            self._config_min[config] = got
        return got


def _rule_minimum(g: Grammar, expr_min: ExprMin) -> dict[str, float]:
    """Each rule's fewest bytes: a least fixpoint (values only fall), one pass callees-last first,
    then only the users of a rule whose value fell."""
    rules: dict[str, float] = {}
    users: dict[str, list[str]] = {}
    for name, body in g.rules.items():
        for r in refs(body):
            users.setdefault(r, []).append(name)
    work = list(g.rules)  # popped from the end: the last rules (callees, usually) first
    queued = set(work)
    while work:
        name = work.pop()
        queued.discard(name)
        value = expr_min(g.rules[name], rules)
        if value < rules.get(name, INF):
            rules[name] = value
            for u in users.get(name, ()):
                if u not in queued:
                    queued.add(u)
                    work.append(u)
    return rules


def _max_shortest(g: Grammar, rule_min: dict[str, float], emin: ExprMin, ccls: ClassBytes) -> float:
    """The most bytes any position of the grammar still needs (infinite for a recursive grammar:
    nesting can always need more)."""
    rule_refs = {name: refs(body) for name, body in g.rules.items()}
    # callees before callers (Kahn); a rule on or above a cycle never gets a finite value
    pending = {name: len({r for r in rs if r in g.rules}) for name, rs in rule_refs.items()}
    users: dict[str, list[str]] = {}
    for name, rs in rule_refs.items():
        for r in set(rs):
            users.setdefault(r, []).append(name)
    ready = [n for n, c in pending.items() if c == 0]
    most: dict[str, float] = {}

    def dmax(e: Expr) -> float:
        if type(e) is Literal:
            return emin(e, rule_min)
        if type(e) is CharClass:
            return ccls(e)[1]
        if type(e) is Seq:
            best, after = 0.0, 0.0
            for item in reversed(e.items):
                best = max(best, dmax(item) + after)
                after += emin(item, rule_min)
            return best
        if type(e) is Alt:
            return max(dmax(item) for item in e.items)
        if type(e) is Ref:
            return most.get(e.name, INF)
        assert isinstance(e, Repeat)
        if e.max == 0:
            return 0.0
        return dmax(e.item) + max(e.min - 1, 0) * emin(e.item, rule_min)

    while ready:
        name = ready.pop()
        most[name] = dmax(g.rules[name])
        for u in users.get(name, ()):
            pending[u] -= 1
            if pending[u] == 0:
                ready.append(u)
    return most.get(g.root, INF)
