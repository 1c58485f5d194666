"""Grammar IR → a byte-level recursive transition network (one Thompson NFA per rule).

Every rule becomes an NFA over bytes whose edges are byte ranges, epsilons, or *calls* to another
rule (with the state to return to). Code points are lowered to UTF-8 byte-range sequences here, so
the recognizer never sees characters: a multi-byte character may arrive split across feeds.

Bounded repetition ``x{m,n}`` is unrolled as ``x…x (x (x …)?)?`` — nested optionals rather than
``x? x? x?`` so the NFA stays unambiguous about which copy consumed a byte. Each unrolled
repetition of a non-nullable item is recorded (``RepeatCopies``): its copies are laid out
identically, which lets the token engine treat copies that are far from both ends as one position
(see ``StateKeys.horizon_labels`` in ``engine/keys.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gramwright.grammar.analysis import expr_nullable, nullable_rules
from gramwright.grammar.ir import Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq
from gramwright.grammar.utf8 import utf8_sequences

ByteEdge = tuple[int, int, int]  # (lo, hi, target)
CallEdge = tuple[int, int]  # (rule index, return state)

# the epsilon and call lists of a literal's inner states: shared, never appended to
_NO_EDGES: list[int] = []
_NO_CALLS: list[CallEdge] = []


@dataclass(frozen=True)
class RepeatCopies:
    """The unrolled copies of one ``x{lo,hi}`` (``hi`` None: unbounded; only the ``lo`` mandatory
    copies are unrolled then). Copy ``c`` owns the states ``base + c*size … base + (c+1)*size - 1``;
    its first state is where the copy ends; ``start`` is where copy 0 begins. ``x`` consumes at
    least one byte."""

    start: int
    base: int
    size: int
    copies: int
    lo: int
    hi: int | None


UNBUILT = -1


@dataclass
class Nfa:
    """The RTN, built one rule at a time when the rule is first asked for (``start``, ``end``):
    a 5,000-line edit grammar has ~50k rules, of which a run enters a few hundred, and building
    all of them up front was most of its engine's construction. A rule's states are contiguous
    (``start(r)`` … ``end(r) - 1``) and numbered in the order rules are built, so state numbers
    are this process's own: whatever must mean the same elsewhere uses offsets within a rule."""

    rule_names: list[str]
    rule_start: list[int] = field(default_factory=list)  # UNBUILT until the rule is built
    rule_final: list[int] = field(default_factory=list)
    rule_end: list[int] = field(default_factory=list)
    rule_of: list[int] = field(default_factory=list)
    byte_edges: list[list[ByteEdge]] = field(default_factory=list)
    eps: list[list[int]] = field(default_factory=list)
    calls: list[list[CallEdge]] = field(default_factory=list)
    repeats: list[RepeatCopies] = field(default_factory=list)  # inner ones before outer ones
    calling: set[int] = field(default_factory=set)  # built rules with a call edge
    build_rule: Callable[[int], None] | None = field(default=None, repr=False, compare=False)

    @property
    def num_states(self) -> int:
        """The states of the rules built so far."""
        return len(self.rule_of)

    def start(self, rule: int) -> int:
        """Where ``rule`` begins (built now if it was not)."""
        got = self.rule_start[rule]
        if got == UNBUILT:
            assert self.build_rule is not None
            self.build_rule(rule)
            got = self.rule_start[rule]
        return got

    def end(self, rule: int) -> int:
        """One past ``rule``'s last state (built now if it was not)."""
        self.start(rule)
        return self.rule_end[rule]

    def final(self, rule: int) -> int:
        """Where ``rule`` completes (built now if it was not)."""
        self.start(rule)
        return self.rule_final[rule]

    def built(self, rule: int) -> bool:
        return self.rule_start[rule] != UNBUILT

    def build_all(self) -> Nfa:
        """Every rule built (a small grammar's, up front; tests that count states)."""
        for rule in range(len(self.rule_names)):
            self.start(rule)
        return self


class _Builder:
    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        names = list(grammar.rules)
        self.index = {name: i for i, name in enumerate(names)}
        count = len(names)
        self.nfa = Nfa(
            rule_names=names,
            rule_start=[UNBUILT] * count,
            rule_final=[UNBUILT] * count,
            rule_end=[UNBUILT] * count,
            build_rule=self.build_rule,
        )
        self.rule = 0
        self._class_cache: dict[CharClass, list[tuple[tuple[int, int], ...]]] = {}
        self._nullable = nullable_rules(grammar)

    def new_state(self) -> int:
        nfa = self.nfa
        nfa.rule_of.append(self.rule)
        nfa.byte_edges.append([])
        nfa.eps.append([])
        nfa.calls.append([])
        return nfa.num_states - 1

    def build_rule(self, rule: int) -> None:
        nfa = self.nfa
        self.rule = rule
        start, final = self.new_state(), self.new_state()
        nfa.rule_start[rule] = start
        nfa.rule_final[rule] = final
        self.expr(self.grammar.rules[nfa.rule_names[rule]], start, final)
        nfa.rule_end[rule] = nfa.num_states

    def expr(self, e: Expr, start: int, end: int) -> None:
        """Add states so that ``e`` leads from ``start`` to ``end``."""
        nfa = self.nfa
        if isinstance(e, Literal):
            data = e.text.encode("utf-8")
            if not data:
                nfa.eps[start].append(end)
                return
            # A literal's inner states in bulk, numbered as one new_state() per byte would: only
            # the literal itself ever adds to them, so they share one empty epsilon/call list
            # (an edit grammar holds a file's text several times: 400k states, 3 lists each,
            # were 1.6 s, mostly the cyclic collector scanning them)
            inner = len(data) - 1
            base = nfa.num_states
            nfa.byte_edges[start].append((data[0], data[0], base if inner else end))
            if inner:
                nfa.rule_of.extend([self.rule] * inner)
                nfa.eps.extend([_NO_EDGES] * inner)
                nfa.calls.extend([_NO_CALLS] * inner)
                nfa.byte_edges.extend([[(b, b, base + i + 1)] for i, b in enumerate(data[1:-1])])
                nfa.byte_edges.append([(data[-1], data[-1], end)])
        elif isinstance(e, CharClass):
            self.char_class(e, start, end)
        elif isinstance(e, Seq):
            cur = start
            for i, item in enumerate(e.items):
                nxt = end if i == len(e.items) - 1 else self.new_state()
                self.expr(item, cur, nxt)
                cur = nxt
        elif isinstance(e, Alt):
            for item in e.items:
                s = self.new_state()
                nfa.eps[start].append(s)
                self.expr(item, s, end)
        elif isinstance(e, Ref):
            nfa.calls[start].append((self.index[e.name], end))
            nfa.calling.add(self.rule)
        else:
            assert isinstance(e, Repeat)
            self.repeat(e, start, end)

    def repeat(self, e: Repeat, start: int, end: int) -> None:
        nfa = self.nfa
        cur = start
        blocks: list[int] = []  # the first state of each copy's block
        for _ in range(e.min):
            nxt = self.new_state()
            blocks.append(nxt)
            self.expr(e.item, cur, nxt)
            cur = nxt
        if e.max is None:
            # A fresh hub: looping back to ``cur`` itself would be wrong when ``cur`` is shared
            # with an enclosing construct (``(a*@)?`` would then exit the optional after "a").
            hub = self.new_state()
            nfa.eps[cur].append(hub)
            loop_body = self.new_state()
            nfa.eps[hub].append(loop_body)
            self.expr(e.item, loop_body, hub)
            nfa.eps[hub].append(end)
            self._record(e, start, blocks, hub)
            return
        for _ in range(e.max - e.min):
            nfa.eps[cur].append(end)
            nxt = self.new_state()
            blocks.append(nxt)
            self.expr(e.item, cur, nxt)
            cur = nxt
        nfa.eps[cur].append(end)
        self._record(e, start, blocks, self.nfa.num_states)

    def _record(self, e: Repeat, start: int, blocks: list[int], stop: int) -> None:
        if len(blocks) < 2 or expr_nullable(e.item, self._nullable):
            return
        size = blocks[1] - blocks[0]
        # the layout is deterministic, so the copies are equally sized blocks; check anyway
        if any(b - a != size for a, b in zip(blocks, [*blocks[1:], stop], strict=True)):
            return
        self.nfa.repeats.append(RepeatCopies(start, blocks[0], size, len(blocks), e.min, e.max))

    def char_class(self, cc: CharClass, start: int, end: int) -> None:
        seqs = self._class_cache.get(cc)
        if seqs is None:
            seqs = utf8_sequences(cc.effective_ranges())
            self._class_cache[cc] = seqs
        # Share equal leading byte ranges (a byte trie), so a multi-byte class is mostly deterministic.
        trie: dict[tuple[int, tuple[int, int]], int] = {}
        for sq in seqs:
            cur = start
            for i, (lo, hi) in enumerate(sq):
                if i == len(sq) - 1:
                    self.nfa.byte_edges[cur].append((lo, hi, end))
                    break
                key = (cur, (lo, hi))
                nxt = trie.get(key)
                if nxt is None:
                    nxt = self.new_state()
                    trie[key] = nxt
                    self.nfa.byte_edges[cur].append((lo, hi, nxt))
                cur = nxt


# Up to this many rules every rule is built at once, with the grammar (a schema's grammar: its
# compile is timed apart from its masks, and a rule built inside a mask would count there, as
# ~70 ms of the Snowplow schema's first masks did); a larger grammar (a 5,000-line edit grammar
# has ~30k rules, of which a run enters a few hundred) builds each rule when first asked for.
EAGER_MAX_RULES = 4096


def build_nfa(grammar: Grammar) -> Nfa:
    """Lower a prepared grammar (see ``analysis.prepare``) to the byte-level RTN: all of it for a
    grammar of at most EAGER_MAX_RULES rules, else each rule when it is first asked for."""
    nfa = _Builder(grammar).nfa
    return nfa.build_all() if len(nfa.rule_names) <= EAGER_MAX_RULES else nfa
