"""Lexeme occurrences of a lexical view and what may follow each (Glushkov positions over rules).

Each rule written as a Lark *rule* contributes its lexeme occurrences (literals, one per
character when split; character classes; references to terminals) and its references to other
rules. FOLLOW is computed per rule, not per call site, so the follow sets are supersets of what
llguidance's parser allows after a lexeme. That only makes
:mod:`gramwright.grammar.export.lexemes` more cautious.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from gramwright.grammar.export.charnfa import CharNFA, merge
from gramwright.grammar.ir import Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq

__all__ = ["END", "Gaps", "LexKind"]

END = -1  # the end of the input, as a member of a follow set
LexKind = tuple[str, object]  # ("lit", text) | ("cls", CharClass) | ("term", rule name)

_Walk = tuple[list[int], list[int], bool]  # first items, last items, nullable


class Gaps:
    def __init__(
        self, g: Grammar, terminals: AbstractSet[str], split: AbstractSet[str], nullable: AbstractSet[str]
    ) -> None:
        self.g = g
        self.terminals = terminals
        self.split = split
        self.nullable = nullable
        self.kinds: list[LexKind | None] = []  # None: a reference to a rule
        self.targets: list[str] = []
        self.rules_of: list[str] = []
        self.follow: list[set[int]] = []
        self.first_items: dict[str, list[int]] = {}
        self.last_items: dict[str, set[int]] = {}
        todo = [g.root]
        while todo:
            name = todo.pop()
            if name in self.first_items:
                continue
            before = len(self.kinds)
            first, last, _ = self._walk(g.rules[name], name)
            self.first_items[name] = first
            self.last_items[name] = set(last)
            todo.extend(self.targets[i] for i in range(before, len(self.kinds)) if self.kinds[i] is None)
        self._first_lex = self._rule_firsts()
        self._next: list[frozenset[int]] = self._follows()

    # ---- items ------------------------------------------------------------------------------

    def _item(self, kind: LexKind | None, target: str, rule: str) -> int:
        self.kinds.append(kind)
        self.targets.append(target)
        self.rules_of.append(rule)
        self.follow.append(set())
        return len(self.kinds) - 1

    def _walk(self, expr: Expr, rule: str) -> _Walk:
        if isinstance(expr, Literal):
            if not expr.text:
                return [], [], True
            parts = list(expr.text) if expr.text in self.split else [expr.text]
            ids = [self._item(("lit", p), "", rule) for p in parts]
            for a, b in itertools.pairwise(ids):
                self.follow[a].add(b)
            return [ids[0]], [ids[-1]], False
        if isinstance(expr, CharClass):
            i = self._item(("cls", expr), "", rule)
            return [i], [i], False
        if isinstance(expr, Ref):
            is_term = expr.name in self.terminals
            i = self._item(("term", expr.name) if is_term else None, expr.name, rule)
            return [i], [i], expr.name in self.nullable
        if isinstance(expr, Seq):
            first: list[int] = []
            pending: list[int] = []
            nullable = True
            for item in expr.items:
                f, la, n = self._walk(item, rule)
                for p in pending:
                    self.follow[p].update(f)
                if nullable:
                    first.extend(f)
                pending = [*pending, *la] if n else la
                nullable = nullable and n
            return first, pending, nullable
        if isinstance(expr, Alt):
            first, last, nullable = [], [], False
            for item in expr.items:
                f, la, n = self._walk(item, rule)
                first.extend(f)
                last.extend(la)
                nullable = nullable or n
            return first, last, nullable
        assert isinstance(expr, Repeat)
        f, la, n = self._walk(expr.item, rule)
        if expr.max is None or expr.max > 1:
            for p in la:
                self.follow[p].update(f)
        return f, la, n or expr.min == 0

    # ---- FIRST / FOLLOW over lexemes ------------------------------------------------------

    def _rule_firsts(self) -> dict[str, frozenset[int]]:
        firsts: dict[str, frozenset[int]] = {name: frozenset() for name in self.first_items}
        changed = True
        while changed:
            changed = False
            for name, items in self.first_items.items():
                new = frozenset().union(*(self._expand(i, firsts) for i in items))
                if new != firsts[name]:
                    firsts[name] = new
                    changed = True
        return firsts

    def _expand(self, item: int, firsts: dict[str, frozenset[int]]) -> frozenset[int]:
        return frozenset((item,)) if self.kinds[item] is not None else firsts[self.targets[item]]

    def _follows(self) -> list[frozenset[int]]:
        rule_follow: dict[str, set[int]] = {name: set() for name in self.first_items}
        rule_follow[self.g.root].add(END)
        local = [
            frozenset().union(*(self._expand(j, self._first_lex) for j in self.follow[i]))
            for i in range(len(self.kinds))
        ]
        refs = [i for i, k in enumerate(self.kinds) if k is None]
        changed = True
        while changed:
            changed = False
            for s in refs:
                rule = self.rules_of[s]
                new = local[s] | (rule_follow[rule] if s in self.last_items[rule] else set())
                target = rule_follow[self.targets[s]]
                if not new <= target:
                    target |= new
                    changed = True
        return [
            local[i]
            | frozenset(rule_follow[self.rules_of[i]] if i in self.last_items[self.rules_of[i]] else ())
            for i in range(len(self.kinds))
        ]

    # ---- what the analysis asks ------------------------------------------------------------

    def start(self) -> frozenset[int]:
        """The lexemes allowed before any input (END when the root is nullable)."""
        root = self.g.root
        return self._first_lex[root] | (frozenset((END,)) if root in self.nullable else frozenset())

    def after(self, item: int) -> frozenset[int]:
        """The lexemes (and END) that may follow an occurrence."""
        return self._next[item]

    def kind(self, item: int) -> LexKind:
        kind = self.kinds[item]
        assert kind is not None
        return kind

    def rule_of(self, item: int) -> str:
        return self.rules_of[item]

    def first_of(
        self, items: frozenset[int], nfa_of: Callable[[LexKind], CharNFA | None]
    ) -> tuple[tuple[int, int], ...]:
        """The code points the lexemes ``items`` can start with (everything, when unknown)."""
        ranges: list[tuple[int, int]] = []
        for j in items:
            if j == END:
                continue
            nfa = nfa_of(self.kind(j))
            ranges.extend(nfa.first() if nfa is not None else ((0, 0x10FFFF),))
        return merge(ranges)
