"""Which parts of a grammar can be lexemes without changing its language under a greedy lexer.

llguidance (and llama.cpp when it reads Lark through llguidance) splits the input into lexemes
greedily with one byte of lookahead: while the next byte extends *some* lexeme allowed at this
point, the lexer keeps going, and a lexeme that was already complete is dropped (llguidance
issue #57). So ``start: "a" "b" | "ab" "c"`` rejects ``ab``. XGrammar has no lexer and accepts it.

A *lexical view* says, for the rule contexts of a Lark export, what a lexeme is: a literal
(whole, or split into one lexeme per character), a one-character class, or a terminal (a regular
rule written as an uppercase Lark terminal). :func:`conflicts` proves a view exact or names the
lexemes that break it: at every point where lexemes may start, for every lexeme A the parser
may allow there and every lexeme B it may allow there, no non-empty complete string of A
followed by a byte that may come after A is the beginning of a string of B. The points are
explored as lexer *states* (see :func:`conflicts`), including those after an ambiguous prefix,
where the follow sets of several occurrences are offered at once (``"0" "0" /[1-9]/ | ...
"-02-29"`` offers ``"-"`` and ``"-02-29"`` together after a year). Follow sets are per rule, not
per call site: supersets, so the proof is conservative. A lexeme of one code point never
extends another (UTF-8 is prefix-free), so splitting every literal and demoting every terminal
always ends in an exact view — the view taken when the exploration runs out of budget.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from gramwright.grammar.analysis import nullable_rules
from gramwright.grammar.export.charnfa import CharNFA, Ranges, TooLarge, intersects, lead_byte_closure, merge
from gramwright.grammar.export.gaps import END, Gaps, LexKind
from gramwright.grammar.ir import MAX_CODE_POINT, CharClass, Expr, Grammar, Literal, Ref, refs, walk

__all__ = ["AnalysisBudgetExceeded", "Conflict", "LexView", "choose_view", "conflicts", "regular_rules"]

_MAX_PAIRS = 1_500  # product states per (A, B) question before "cannot prove it" (demote)
_MAX_STATES = 100_000  # lexer states explored (all rounds) before the all-rules view is taken


@dataclass(frozen=True)
class LexView:
    """``demoted``: regular rules written as Lark rules where a rule refers to them (their
    terminal form still serves other terminals); ``split``: literals written char by char."""

    demoted: frozenset[str] = frozenset()
    split: frozenset[str] = frozenset()
    # True for the all-rules view chosen when the analysis ran out of budget: exact by
    # construction (every lexeme one character), but it proves nothing finer.
    fallback: bool = False


@dataclass(frozen=True)
class Conflict:
    ends: LexKind  # a lexeme that can be complete here ...
    extends: LexKind  # ... while the next byte still continues this one
    rule: str  # a rule where the extending lexeme occurs

    def describe(self) -> str:
        return f"{_show(self.ends)} can end where {_show(self.extends)} goes on (rule {self.rule!r})"


def _show(kind: LexKind) -> str:
    tag, value = kind
    if tag == "lit":
        assert isinstance(value, str)
        return f"literal {value!r}"
    if tag == "term":
        return f"terminal {value}"
    return "a character class"


def regular_rules(g: Grammar) -> set[str]:
    """Rules whose language is regular by construction: no rule they reach is recursive."""
    reach: dict[str, set[str]] = {}
    for name in g.rules:
        seen: set[str] = set()
        stack = list(refs(g.rules[name]))
        while stack:
            r = stack.pop()
            if r not in seen:
                seen.add(r)
                stack.extend(refs(g.rules[r]))
        reach[name] = seen
    cyclic = {n for n, seen in reach.items() if n in seen}
    return {n for n, seen in reach.items() if n not in cyclic and not (seen & cyclic)}


class AnalysisBudgetExceeded(Exception):
    """The analysis explored more lexer states than :data:`_MAX_STATES` allows in all."""


class _Languages:
    """NFA facts per lexeme language, built once. Terminals with the same body (a schema's many
    ``"\"" char* "\""`` rules) share one language, so their pairs are decided once."""

    def __init__(self, g: Grammar) -> None:
        self.g = g
        self.nfa: dict[object, CharNFA | None] = {}
        self.extensions: dict[tuple[object, object], Ranges | None] = {}
        self.meets: dict[tuple[object, object], bool] = {}
        self.literal_ext: dict[tuple[object, int, int], dict[str, Ranges]] = {}
        self.states = 0  # lexer states explored, over every round

    def key(self, kind: LexKind) -> object:
        tag, value = kind
        return ("term", self.g.rules[str(value)]) if tag == "term" else kind

    def meet(self, k1: LexKind, k2: LexKind) -> bool:
        """Do the two languages share a non-empty string? (True when unknown.)"""
        if k1[0] == "lit" and k2[0] == "lit":
            return k1 == k2
        key = (self.key(k1), self.key(k2)) if repr(k1) <= repr(k2) else (self.key(k2), self.key(k1))
        if key not in self.meets:
            a, b = self.get(k1), self.get(k2)
            self.meets[key] = a is None or b is None or _meets(a, b)
        return self.meets[key]

    def get(self, kind: LexKind) -> CharNFA | None:
        key = self.key(kind)
        if key not in self.nfa:
            tag, value = kind
            expr: Expr = Literal(str(value)) if tag == "lit" else Ref(str(value))
            if tag == "cls":
                assert isinstance(value, CharClass)
                expr = value
            try:
                self.nfa[key] = CharNFA(expr, lambda n: self.g.rules[n])
            except TooLarge:
                self.nfa[key] = None
        return self.nfa[key]


def _meets(a: CharNFA, b: CharNFA) -> bool:
    """Is some non-empty string in both languages? (True when too large to tell.)"""
    start = (a.initial(), b.initial())
    todo = [start]
    seen = {start}
    while todo:
        sa, sb = todo.pop()
        bounds = sorted({x for lo, hi in a.out_ranges(sa) + b.out_ranges(sb) for x in (lo, hi + 1)})
        for lo, _ in itertools.pairwise(bounds):
            na = a.step_cached(sa, lo)
            nb = b.step_cached(sb, lo) if na else na
            if not na or not nb:
                continue
            if a.accepting(na) and b.accepting(nb):
                return True
            if (na, nb) not in seen:
                if len(seen) > _MAX_PAIRS:
                    return True
                seen.add((na, nb))
                todo.append((na, nb))
    return False


def _extensions(a: CharNFA, b: CharNFA) -> Ranges | None:
    """The code points d with t·d a prefix of L(b) for some non-empty t in L(a) — what may go on
    in B where A has just ended; None when the product is too large to explore."""
    start = (a.initial(), b.initial())
    todo = [start]
    seen = {start}
    found: list[tuple[int, int]] = []
    while todo:
        sa, sb = todo.pop()
        bounds = sorted({x for lo, hi in a.out_ranges(sa) + b.out_ranges(sb) for x in (lo, hi + 1)})
        for lo, _ in itertools.pairwise(bounds):
            na = a.step_cached(sa, lo)
            if not na:
                continue
            nb = b.step_cached(sb, lo)
            if not nb:
                continue
            if a.accepting(na):
                found.extend(b.out_ranges(nb))
            pair = (na, nb)
            if pair not in seen:
                if len(seen) > _MAX_PAIRS:
                    return None
                seen.add(pair)
                todo.append(pair)
    return merge(found)


def conflicts(
    g: Grammar, terminal_candidates: AbstractSet[str], view: LexView, langs: _Languages | None = None
) -> list[Conflict]:
    """The lexeme conflicts of ``view`` (empty: the greedy lexer reads the grammar exactly).

    The points where lexemes start are explored like a subset construction: a *state* is the
    set of lexeme occurrences the parser may allow there (at first, what the root starts with).
    After a lexeme, the occurrences that may have matched it are those whose languages meet
    (a shared string), so the next state is the union of what may follow each of them — a
    superset of what llguidance's parser holds, since it tracks one greedy segmentation.
    """
    gaps = Gaps(g, terminal_candidates - view.demoted, view.split, nullable_rules(g))
    langs = langs or _Languages(g)
    all_literals = sorted(
        {str(k[1]) for k in gaps.kinds if k is not None and k[0] == "lit" and len(str(k[1])) > 1}
    )
    found: dict[LexKind, Conflict] = {}
    firsts: dict[frozenset[int], Ranges] = {}
    todo = [gaps.start()]
    seen: set[frozenset[int]] = set()
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        langs.states += 1
        if langs.states > _MAX_STATES:
            raise AnalysisBudgetExceeded
        occurrences = [o for o in state if o != END]
        kinds = {gaps.kind(o): o for o in occurrences}
        multi = [k for k in kinds if not _single(langs, k)]
        literals = [str(k[1]) for k in multi if k[0] == "lit"]
        others = [k for k in multi if k[0] != "lit"]
        by_kind: dict[LexKind, list[int]] = {}
        for o in occurrences:
            by_kind.setdefault(gaps.kind(o), []).append(o)
        for group in _groups(langs, list(by_kind)):
            nxt = frozenset().union(*(gaps.after(o) for k in group for o in by_kind[k]))
            todo.append(nxt)
            if not multi:
                continue
            if nxt not in firsts:
                firsts[nxt] = lead_byte_closure(gaps.first_of(nxt, langs.get))
            follow = firsts[nxt]
            if not follow:
                continue
            for k1 in group:
                ext = _literal_extensions(langs, k1, all_literals)
                for lit in literals:
                    lk: LexKind = ("lit", lit)
                    if lk not in found and lit in ext and intersects(ext[lit], follow):
                        found[lk] = Conflict(k1, lk, gaps.rule_of(kinds[lk]))
                for k2 in others:
                    if k2 not in found and _conflict(langs, k1, k2, follow):
                        found[k2] = Conflict(k1, k2, gaps.rule_of(kinds[k2]))
    return list(found.values())


def _groups(langs: _Languages, kinds: list[LexKind]) -> list[list[LexKind]]:
    """``kinds`` joined where their languages share a string (the same text matched both).
    Two different literals never do, so literals are only compared with the other kinds, and
    only with those whose first characters include the literal's."""
    parent = {k: k for k in kinds}

    def root(k: LexKind) -> LexKind:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    by_first: dict[str, list[LexKind]] = {}
    others: list[LexKind] = []
    for k in kinds:
        if k[0] == "lit":
            by_first.setdefault(str(k[1])[0], []).append(k)
        else:
            others.append(k)
    for i, a in enumerate(others):
        nfa = langs.get(a)
        first = nfa.first() if nfa is not None else ((0, MAX_CODE_POINT),)
        for ch, lits in by_first.items():
            if _in(ord(ch), first):
                for lit in lits:
                    if root(a) != root(lit) and langs.meet(a, lit):
                        parent[root(lit)] = root(a)
        for b in others[i + 1 :]:
            if root(a) != root(b) and langs.meet(a, b):
                parent[root(b)] = root(a)
    groups: dict[LexKind, list[LexKind]] = {}
    for k in kinds:
        groups.setdefault(root(k), []).append(k)
    return list(groups.values())


def _literal_extensions(langs: _Languages, k1: LexKind, literals: list[str]) -> dict[str, Ranges]:
    """For each literal s that a non-empty string of L(k1) begins: the characters of s right
    after such a prefix (what the lexer would read on in s where k1 could end)."""
    key = (langs.key(k1), len(literals), hash(tuple(literals)))  # the literal set changes by round
    if key in langs.literal_ext:
        return langs.literal_ext[key]
    out: dict[str, Ranges] = {}
    if k1[0] == "lit":
        t = str(k1[1])
        i = bisect.bisect_right(literals, t)
        while i < len(literals) and literals[i].startswith(t):
            if len(literals[i]) > len(t):
                cp = ord(literals[i][len(t)])
                out[literals[i]] = ((cp, cp),)
            i += 1
    else:
        nfa = langs.get(k1)
        first = nfa.first() if nfa is not None else ((0, MAX_CODE_POINT),)
        for s in literals:
            if not _in(ord(s[0]), first):
                continue
            if nfa is None:  # unknown: assume the worst
                out[s] = merge((ord(c), ord(c)) for c in s[1:])
                continue
            states = nfa.initial()
            found: list[tuple[int, int]] = []
            for i, ch in enumerate(s[:-1]):
                states = nfa.step_cached(states, ord(ch))
                if not states:
                    break
                if nfa.accepting(states):
                    found.append((ord(s[i + 1]), ord(s[i + 1])))
            if found:
                out[s] = merge(found)
    langs.literal_ext[key] = out
    return out


def _in(cp: int, ranges: Ranges) -> bool:
    i = bisect.bisect_right(ranges, (cp, MAX_CODE_POINT + 1)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


def _single(langs: _Languages, kind: LexKind) -> bool:
    if kind[0] == "cls":
        return True
    if kind[0] == "lit":
        return len(str(kind[1])) <= 1
    nfa = langs.get(kind)
    return nfa is not None and nfa.max_one_char()


def _conflict(langs: _Languages, k1: LexKind, k2: LexKind, follow: tuple[tuple[int, int], ...]) -> bool:
    if k1[0] == "lit" and k2[0] == "lit":  # the common case, decided on the strings
        t, s = str(k1[1]), str(k2[1])
        return len(s) > len(t) and s.startswith(t) and intersects(((ord(s[len(t)]),) * 2,), follow)
    a, b = langs.get(k1), langs.get(k2)
    if a is None or b is None:
        return True
    if not intersects(b.continuations(), follow):
        return False
    if not intersects(a.first(), b.first()):
        return False  # t·d is a prefix of a string of B: both start with t's first character
    key = (langs.key(k1), langs.key(k2))
    if key not in langs.extensions:
        langs.extensions[key] = _extensions(a, b)
    ext = langs.extensions[key]
    return ext is None or intersects(ext, follow)


@lru_cache(maxsize=16)  # every target of one grammar asks the same question
def choose_view(g: Grammar, max_rounds: int = 12) -> tuple[frozenset[str], LexView]:
    """The terminal candidates (regular rules other than the root) and an exact view: start
    with every candidate a terminal and every literal whole, then demote each lexeme that
    goes on where another may end, until no conflict is left. When that takes too many rounds
    or states (a very large schema), the all-rules view: every lexeme one character."""
    candidates = frozenset(regular_rules(g) - {g.root})
    view = LexView()
    langs = _Languages(g)  # languages of lexeme kinds do not depend on the view: shared by rounds
    try:
        for _ in range(max_rounds):
            found = conflicts(g, candidates, view, langs)
            if not found:
                return candidates, view
            demoted = {str(c.extends[1]) for c in found if c.extends[0] == "term"}
            split = {str(c.extends[1]) for c in found if c.extends[0] == "lit"}
            view = LexView(view.demoted | demoted, view.split | split)
    except AnalysisBudgetExceeded:
        pass
    every_literal = {n.text for body in g.rules.values() for n in _literals(body)}
    return candidates, LexView(candidates, frozenset(every_literal), fallback=True)


def _literals(expr: Expr) -> list[Literal]:
    return [n for n in walk(expr) if isinstance(n, Literal) and len(n.text) > 1]
