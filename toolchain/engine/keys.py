"""Names for rule states that say when two of them get the same token masks: the engine's keys.

The recognizer only needs to recognise bytes; the engine needs to know which rule states it may
treat alike, so that a cold walk of the vocabulary is done once per *kind* of state:

* ``canonical_state``: isomorphic states of rules with equal bodies share an id (every string
  rule of a schema), and so do far copies of an unrolled repetition no token can tell apart;
* ``state_signature``: a grammar-independent name (shape or content hash), so masks can be shared
  between the engines of different grammars on one vocabulary;
* ``quotient_state``, ``horizon_labels``, ``near_end``: the unrolled-repetition arithmetic behind
  both (``char{0,1024}`` is a loop for a token, except within a token's reach of its end);
* ``is_leaf``: rules that call no other rule (a character, an escape), skipped when counting the
  top frames of a key.

One ``StateKeys`` per engine, memoised; it lives in the engine's memo tables (and its disk cache).
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Hashable
from typing import Any

from gramwright.recognizer.compiled import CompiledGrammar

# Rules reaching at most this much grammar get a content signature (see state_signature).
SIGNATURE_MAX_RULES = 8
SIGNATURE_MAX_STATES = 4096
# A rule state whose rule part within reach is at most this many NFA states is named by its shape.
SIGNATURE_REACH = 96

_UNSET = object()


def _digest(shape: list[Any]) -> str:
    """A content hash of nested tuples and lists of ints, bools and strs: their marshal bytes at
    format 0 (no interning, no back-references, so the same in every process; ~6× faster than a
    ``repr``, which the first masks of a new grammar paid for every key they named)."""
    return hashlib.sha256(marshal.dumps(shape, 0)).hexdigest()[:32]


class StateKeys:
    """Mask-sharing names for the rule states of one compiled grammar (memoised)."""

    def __init__(self, compiled: CompiledGrammar) -> None:
        self.cg = compiled
        # Rules with equal bodies get identical NFA layouts (the builder is deterministic), so a rule
        # state is identified up to isomorphism by (its rule's body, member offsets): the body is
        # numbered when first met here (``_canon_rule``; an edit grammar has ~50k rules, most never
        # entered), and by the first rule of the grammar with that body where the name must be the
        # same in every process (``canonical_name``, for the on-disk store).
        self._body_ids: dict[object, int] = {}
        self._rule_canon: dict[int, int] = {}
        self._first_with_body: dict[object, int] | None = None
        self._canon_ids: dict[tuple[int, frozenset[int]], int] = {}
        self._rs_canon: dict[tuple[int, int | None], int] = {}
        # per horizon: the labels of the states built so far, how many repetitions they fold,
        # and the rules holding a state they map elsewhere (``folds``)
        self._labels: dict[int, tuple[list[int], list[int], set[int]]] = {}
        self._quotients: dict[tuple[int, int], int] = {}
        self._rule_folds: dict[tuple[int, int], bool] = {}
        self._fold_free: dict[int, int] = {}  # rule state → a horizon its reach signature folded nothing at
        self._near: dict[int, int | None] = {}
        self._tail: dict[int, int] = {}
        self._tail_reps = 0
        self._rule_sigs: dict[int, str | None] = {}
        self._rule_callees: dict[int, tuple[int, ...]] = {}
        self._rule_owns: dict[int, str] = {}
        self._rs_sigs: dict[tuple[int, int | None], Hashable | None] = {}

    def _body(self, rule: int) -> object:
        return self.cg.grammar.rules[self.cg.nfa.rule_names[rule]]

    def _canon_rule(self, rule: int) -> int:
        """An id shared by the rules with ``rule``'s body (this process's own numbering)."""
        got = self._rule_canon.get(rule)
        if got is None:
            body = self._body(rule)
            got = self._rule_canon[rule] = self._body_ids.setdefault(body, len(self._body_ids))
        return got

    def _offsets(self, rs: int, horizon: int | None) -> tuple[int, frozenset[int]]:
        """The rule of ``rs`` and its members (mapped at ``horizon``) as offsets in that rule."""
        rule = self.cg.state_rule(rs)
        base = self.cg.nfa.start(rule)
        return rule, frozenset(s - base for s in self._members(rs, horizon))

    def _members(self, rs: int, horizon: int | None) -> frozenset[int]:
        """The NFA states of ``rs``, mapped through ``horizon_labels`` when a horizon is given."""
        members = self.cg.state_members(rs)
        if horizon is None:
            return members
        labels = self.horizon_labels(horizon)
        return frozenset(labels[s] for s in members)

    def canonical_state(self, rs: int, horizon: int | None = None) -> int:
        """An id shared by rule states whose token masks are equal.

        Isomorphic rule states of rules with equal bodies (e.g. every ``"\\"" char* "\\""`` string
        rule of a schema) share an id. With a ``horizon`` (the longest token, in bytes), so do
        states in different copies of an unrolled repetition that no token can tell apart: copies
        of ``x{0,1024}`` that have more than ``horizon`` copies left behave alike for any string of
        at most ``horizon`` bytes, since every copy consumes a byte."""
        memo = (rs, horizon)
        cid = self._rs_canon.get(memo)
        if cid is None:
            rule, offsets = self._offsets(rs, horizon)
            cid = self._canon_ids.setdefault((self._canon_rule(rule), offsets), len(self._canon_ids))
            self._rs_canon[memo] = cid
        return cid

    def canonical_name(self, rs: int, horizon: int | None = None) -> tuple[int, frozenset[int]]:
        """What ``canonical_state`` numbers, as plain data: the same in every process that
        compiles this grammar (ids depend on the order states are met; this does not), so the
        on-disk store can name a grammar's own masks by it."""
        first = self._first_with_body
        if first is None:
            first = self._first_with_body = {}
            for i in range(len(self.cg.nfa.rule_names)):
                first.setdefault(self._body(i), i)
        rule, offsets = self._offsets(rs, horizon)
        return (first[self._body(rule)], offsets)

    def state_signature(self, rs: int, horizon: int | None = None) -> Hashable | None:
        """A grammar-independent name for rule state ``rs`` up to ``horizon`` (as in
        ``canonical_state``): equal signatures, in any two grammars, mean the same strings of up
        to ``horizon`` bytes from there, so token masks can be shared between grammars.

        Preferably the shape of what is reachable from ``rs`` inside its rule, with far copies of
        repetitions folded (``horizon_labels``) and called rules named by content: the body of
        every ``"\\"" char{0,n} "\\""`` looks alike from its first copies whatever ``n`` and
        whatever rule it sits in. Else the content hash of its rule (and every rule that rule
        reaches) with its place in it; None when that is too much grammar to hash."""
        memo = (rs, horizon)
        if memo in self._rs_sigs:
            return self._rs_sigs[memo]
        if horizon is not None:
            smaller = self._fold_free.get(rs)
            if smaller is not None and smaller <= horizon:
                # signed at a smaller horizon with nothing folded (a position near a bounded
                # string's end, signed for its short-token band first): the same shape here
                got = self._rs_sigs[memo] = self._rs_sigs[(rs, smaller)]
                return got
            # far copies of a repetition share their quotient's signature: computed once, not
            # once per copy (the signature maps members through the same horizon labels)
            q = self.quotient_state(rs, horizon)
            if q != rs:
                out_q = self._rs_sigs[memo] = self.state_signature(q, horizon)
                return out_q
        out: Hashable | None = self._reach_signature(rs, horizon)
        if out is None:
            rule, offsets = self._offsets(rs, horizon)
            sig = self._rule_signature(rule)
            if sig is not None:
                out = ("rule", sig, offsets)
        self._rs_sigs[memo] = out
        return out

    def _reach_signature(self, rs: int, horizon: int | None) -> Hashable | None:
        """The reachable part of ``rs``'s rule as a canonical tuple (numbered in discovery order),
        or None past SIGNATURE_REACH states or when a called rule has no content signature.
        (Every bounded string's position near its end is signed, per length band: the loop is
        written out — no closure, no generators — as it runs a few thousand times per schema.
        The three numbering loops below are one loop written three times on purpose: folded into
        one loop over the state's targets, Snowplow's masks cost 6.6–8.3 % more instructions.)"""
        cg = self.cg
        nfa = cg.nfa
        labels = self.horizon_labels(horizon) if horizon is not None else range(nfa.num_states)
        final = nfa.final(cg.state_rule(rs))
        byte_edges, eps, all_calls = nfa.byte_edges, nfa.eps, nfa.calls
        rule_sigs = self._rule_sigs
        order: dict[int, int] = {}
        queue: list[int] = []
        folded = False  # whether the horizon mapped a state reached elsewhere
        for raw in sorted(cg.state_members(rs)):
            st = labels[raw]
            folded = folded or st != raw
            if st not in order:
                order[st] = len(queue)
                queue.append(st)
        starts = tuple(sorted(order.values()))
        shape: list[tuple[object, ...]] = []
        i = 0
        while i < len(queue):
            if i >= SIGNATURE_REACH:
                return None
            st = queue[i]
            i += 1
            calls = []
            for callee, ret in all_calls[st]:
                callee_sig = rule_sigs[callee] if callee in rule_sigs else self._rule_signature(callee)
                if callee_sig is None:
                    return None
                t = labels[ret]
                folded = folded or t != ret
                n = order.get(t)
                if n is None:
                    n = order[t] = len(queue)
                    queue.append(t)
                calls.append((callee_sig, n))
            edges = []
            for lo, hi, raw in byte_edges[st]:
                t = labels[raw]
                folded = folded or t != raw
                n = order.get(t)
                if n is None:
                    n = order[t] = len(queue)
                    queue.append(t)
                edges.append((lo, hi, n))
            closure = []
            for raw in eps[st]:
                t = labels[raw]
                folded = folded or t != raw
                n = order.get(t)
                if n is None:
                    n = order[t] = len(queue)
                    queue.append(t)
                closure.append(n)
            shape.append((st == final, tuple(edges), tuple(closure), tuple(calls)))
        if not folded and horizon is not None:
            # nothing within reach folds at this horizon, so nothing does at a larger one (a
            # larger horizon tells more copies apart): the same signature serves those
            known = self._fold_free.get(rs)
            if known is None or horizon < known:
                self._fold_free[rs] = horizon
        return ("reach", starts, _digest(shape))

    def _rule_signature(self, rule: int) -> str | None:
        """A content hash of ``rule`` and every rule it reaches, by their NFA structure with the
        rules numbered in the order they are met from ``rule``: no rule *name* enters it, so
        the string body of a member named after its JSON path in one schema and an equal body
        in another schema (or in ``gramwright warm``'s schemas) get one signature — which is
        what lets the on-disk store serve a schema it never saw. Equal structure is equal
        language, so sharing stays exact. None past SIGNATURE_MAX_RULES/_STATES.

        Each rule's own structure is hashed once (``_rule_own``: its calls numbered by first
        occurrence within it); a signature hashes those with where each call leads in this
        order — the same information, without re-hashing ``char``, ``esc`` … under every key
        rule that reaches them."""
        if rule in self._rule_sigs:
            return self._rule_sigs[rule]
        nfa = self.cg.nfa
        order = {rule: 0}
        queue = [rule]
        size = 0
        sig: str | None = None
        i = 0
        # stops as soon as it is too much grammar: a rule met builds its NFA (rules are built
        # when first asked for), and the start of an edit grammar calls ~10k rules
        while i < len(queue):
            r = queue[i]
            i += 1
            size += nfa.end(r) - nfa.start(r)
            if size > SIGNATURE_MAX_STATES:
                break  # too much grammar: not its calls too (a free key's trie is ~3k states)
            for callee in self._callees(r):
                if callee not in order:
                    order[callee] = len(queue)
                    queue.append(callee)
            if len(queue) > SIGNATURE_MAX_RULES:
                break
        else:
            sig = _digest([(self._rule_own(r), [order[c] for c in self._callees(r)]) for r in queue])
        self._rule_sigs[rule] = sig
        return sig

    def _callees(self, rule: int) -> tuple[int, ...]:
        """The rules ``rule`` calls, in order of first occurrence (memoised)."""
        got = self._rule_callees.get(rule)
        if got is None:
            nfa = self.cg.nfa
            seen: dict[int, None] = {}
            for state in range(nfa.start(rule), nfa.end(rule)):
                for callee, _ in nfa.calls[state]:
                    seen[callee] = None
            got = self._rule_callees[rule] = tuple(seen)
        return got

    def _rule_own(self, rule: int) -> str:
        """A hash of ``rule``'s own NFA structure, its calls numbered as in ``_callees``
        (memoised: hashed once however many rules reach it)."""
        got = self._rule_owns.get(rule)
        if got is None:
            nfa = self.cg.nfa
            base, end = nfa.start(rule), nfa.end(rule)
            local = {c: k for k, c in enumerate(self._callees(rule))}
            shape = [
                (
                    tuple((lo, hi, t - base) for lo, hi, t in nfa.byte_edges[st]),
                    tuple(t - base for t in nfa.eps[st]),
                    tuple((local[c], ret - base) for c, ret in nfa.calls[st]),
                )
                for st in range(base, end)
            ]
            # the unrolled repetitions' arithmetic (``horizon_labels``) is part of the meaning
            reps = [
                (rep.start - base, rep.base - base, rep.size, rep.copies, rep.lo, rep.hi)
                for rep in nfa.repeats
                if base <= rep.base < end
            ]
            got = self._rule_owns[rule] = _digest([nfa.rule_final[rule] - base, shape, reps])
        return got

    def quotient_state(self, rs: int, horizon: int) -> int:
        """A rule state that accepts the same strings of up to ``horizon`` bytes as ``rs``: its
        members mapped by ``horizon_labels`` (so far copies of a repetition collapse onto one)."""
        memo = (rs, horizon)
        got = self._quotients.get(memo)
        if got is None:
            if not self.folds(self.cg.state_rule(rs), horizon):
                got = rs  # most rules hold no repetition that folds: every state is its own
            else:
                members = self.cg.state_members(rs)
                image = self._members(rs, horizon)
                got = rs if image == members else self.cg.rule_state(image)
            self._quotients[memo] = got
        return got

    def folds(self, rule: int, horizon: int) -> bool:
        """Whether ``horizon_labels`` maps any state of ``rule`` elsewhere (memoised per rule: a
        rule's labels are fixed once it is built; the rules are noted as their labels are made,
        not found by a scan of a rule's states — a free key's trie is thousands)."""
        memo = (rule, horizon)
        got = self._rule_folds.get(memo)
        if got is None:
            self.horizon_labels(horizon)  # up to date with the rules built so far
            got = self._rule_folds[memo] = rule in self._labels[horizon][2]
        return got

    def near_end(self, rs: int) -> int | None:
        """How many copies of an unrolled repetition are left at ``rs`` at the fewest (mandatory
        ones still owed count too), or None outside any: token masks near such an end can only
        be shared by tokens too short to see it."""
        got = self._near.get(rs, _UNSET)
        if got is _UNSET:
            tails = self._tails()
            left = [tails[s] for s in self.cg.state_members(rs) if s in tails]
            got = min(left) if left else None
            self._near[rs] = got
        return got  # type: ignore[return-value]

    def _tails(self) -> dict[int, int]:
        """NFA state → the fewest copies left at it, for the repetitions of the rules built so
        far (a rule built later adds its own)."""
        reps = self.cg.nfa.repeats
        tail = self._tail
        for rep in reps[self._tail_reps :]:
            for c in range(-1, rep.copies):  # -1: where copy 0 begins
                owed = max(rep.lo - c - 1, 0)
                left = [owed] if owed else []
                if rep.hi is not None:
                    left.append(rep.hi - c - 1)
                if not left:
                    continue
                first = rep.base + c * rep.size
                states = [rep.start] if c < 0 else range(first, first + rep.size)
                fewest = min(left)
                for st in states:
                    tail[st] = min(tail.get(st, fewest), fewest)
        self._tail_reps = len(reps)
        return tail

    def horizon_labels(self, horizon: int) -> list[int]:
        """NFA state → the state that stands for it when no string longer than ``horizon`` bytes
        is looked at (itself, except in the copies of an unrolled repetition).

        Copy ``c`` of ``x{lo,hi}`` is followed by between ``a = max(lo-c-1, 0)`` and
        ``b = hi-c-1`` more copies. Within ``horizon`` bytes at most ``horizon`` copies can pass,
        so two copies with the same ``(min(a, horizon+1), min(b, horizon+1))`` accept the same
        strings of up to ``horizon`` bytes: the later one maps onto the first such copy. Inner
        repetitions are mapped before the copies containing them, so the maps compose."""
        entry = self._labels.get(horizon)
        if entry is None:
            entry = self._labels[horizon] = ([], [0], set())
        labels, folded, folding = entry
        nfa = self.cg.nfa
        if len(labels) < nfa.num_states:
            # the states of rules built since: themselves, then their repetitions folded (a
            # rule's repetitions lie in its own states, so the earlier labels stay as they are)
            labels.extend(range(len(labels), nfa.num_states))
            cap = horizon + 1
            for rep in nfa.repeats[folded[0] :]:
                first_copy: dict[tuple[int, int], int] = {}
                for c in range(rep.copies):
                    a = min(max(rep.lo - c - 1, 0), cap)
                    b = cap if rep.hi is None else min(rep.hi - c - 1, cap)
                    r = first_copy.setdefault((a, b), c)
                    if r != c:
                        shift = (c - r) * rep.size
                        start = rep.base + c * rep.size
                        for s in range(start, start + rep.size):
                            labels[s] = labels[s - shift]  # an earlier state: never ``s``
                        folding.add(nfa.rule_of[start])
            folded[0] = len(nfa.repeats)
        return labels

    def is_leaf(self, rs: int) -> bool:
        """Whether the rule of ``rs`` calls no other rule (it is built: ``rs`` is one of its states)."""
        return self.cg.state_rule(rs) not in self.cg.nfa.calling
