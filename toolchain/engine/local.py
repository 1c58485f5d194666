"""The local (context-independent) automaton: the recognizer seen from the top K stack frames.

A token's fate usually depends only on the top few frames of the parser stack: inside a string,
a number or a key, the bytes of a token never look below them. So masks are split as XGrammar
does, but with our own construction: walk the vocabulary from a *local key* — the NFA states of
the top K frames, with an abstract parent below — once per key, and record

* ``accepted``: tokens consumed entirely above the abstract parent (valid in every context), and
* ``pending``: tokens that return into the abstract parent after ``k`` bytes with bytes left over;
  only those are checked against the real stack at run time.

Keys are NFA states, shared by every stack depth and every occurrence of a rule, so the expensive
walk over 49k tokens happens once per grammar position, not once per parser configuration.
Transitions are encoded as ``(next + 1) * 2 + returned`` so that one int32 table drives numpy.
"""

from __future__ import annotations

import bisect
import itertools

from gramwright.engine.keys import StateKeys
from gramwright.recognizer.compiled import Chain, CompiledGrammar, RelClosure


class LocalAutomaton:
    """Configurations over chains relative to an abstract parent, with memoised transitions."""

    def __init__(
        self, compiled: CompiledGrammar, horizon: int | None = None, keys: StateKeys | None = None
    ) -> None:
        self.cg = compiled
        self.keys = keys if keys is not None else StateKeys(compiled)
        # with a horizon (the longest token), states are kept only up to what a token can see:
        # far copies of an unrolled repetition collapse, so ``char{0,1024}`` is a loop, not 1024
        # positions (see ``StateKeys.quotient_state``)
        self.horizon = horizon
        self.chains: list[frozenset[Chain]] = []
        # per state, per byte: the encoded transition, None until stepped (a list: a class is
        # recorded by one slice assignment, and a walk reads it by index)
        self.trans: list[list[int | None]] = []
        self._ids: dict[frozenset[Chain], int] = {}
        # local state → the bytes it allows (``first_bytes``; read directly by hot loops)
        self.first_memo: dict[int, frozenset[int]] = {}
        self._spans_of: dict[int, tuple[tuple[int, int], ...]] = {}
        self._first_by_spans: dict[tuple[tuple[int, int], ...], frozenset[int]] = {}
        self._cuts_by_spans: dict[tuple[tuple[int, int], ...], list[int]] = {}
        self._full: dict[int, list[tuple[int, int, int]]] = {}  # state → its classes (``classes``)
        self._cuts: dict[int, list[int]] = {}
        self._quotients: dict[Chain, Chain] = {}
        self._chain_steps: dict[tuple[Chain, int], tuple[tuple[Chain, ...], bool]] = {}
        self._after_runs: dict[int, int] = {}  # local state → encoded step over its literal run

    def quotient(self, chain: Chain) -> Chain:
        got = self._quotients.get(chain)
        if got is None:
            if self.horizon is None:
                got = chain
            else:
                q = self.keys.quotient_state
                h = self.horizon
                got = tuple([q(rs, h) for rs in chain])
            self._quotients[chain] = got
        return got

    def intern(self, chains: frozenset[Chain]) -> int:
        lid = self._ids.get(chains)
        if lid is None:
            lid = len(self.chains)
            self._ids[chains] = lid
            self.chains.append(chains)
            self.trans.append([None] * 256)
        return lid

    @property
    def num_states(self) -> int:
        return len(self.chains)

    def step(self, lid: int, byte: int) -> int:
        """Encoded transition: ``(next + 1) * 2 + returned`` (next = -1 when nothing is left)."""
        code = self.trans[lid][byte]
        if code is not None:
            return code
        out: set[Chain] = set()
        returned = False
        memo = self._chain_steps
        for chain in self.chains[lid]:
            got = memo.get((chain, byte))
            if got is None:
                got = memo[(chain, byte)] = self._chain_step(chain, byte)
            out.update(got[0])
            returned = returned or got[1]
        nxt = self.intern(frozenset(out)) if out else -1
        code = (nxt + 1) * 2 + int(returned)
        self.trans[lid][byte] = code
        return code

    def _chain_step(self, chain: Chain, byte: int) -> tuple[tuple[Chain, ...], bool]:
        """One chain's share of a step (memoised by the caller: the states of a wide object hold
        the same chains — one per optional member still open — at every position)."""
        return self._hang(self.cg.local_step(chain[0], byte), chain[1:])

    def _hang(self, entered: RelClosure, rest: Chain) -> tuple[tuple[Chain, ...], bool]:
        """The chains after a top rule state was entered as ``entered`` (its closure) above
        ``rest``, returning into ``rest`` as far as it completes; and whether it returned past
        the bottom of the chain (into the abstract parent)."""
        cg = self.cg
        out: list[Chain] = []
        sub, pops = entered
        for c in sub:
            out.append(self.quotient(c + rest))
        while pops:
            if not rest:
                return tuple(out), True
            sub, pops = cg.rel_closure(rest[0])
            rest = rest[1:]
            for c in sub:
                out.append(self.quotient(c + rest))
        return tuple(out), False

    def after_run(self, lid: int, run: bytes) -> int:
        """The encoded transition (as ``step``) over the whole of ``run``, the literal run of
        ``lid``'s one chain (``CompiledGrammar.literal_run``), without a local state for each
        byte on the way: a walk that follows a member's ``"name":`` down the vocabulary trie
        needs only the state where tokens go on past it. Memoised per state."""
        code = self._after_runs.get(lid)
        if code is None:
            (chain,) = self.chains[lid]
            cg = self.cg
            rs = chain[0]
            if self.horizon is not None and self.keys.folds(cg.state_rule(rs), self.horizon):
                # the states of an unrolled repetition are folded after every byte (``quotient``):
                # byte by byte, as a walk would
                cur = lid
                for b in run:
                    code = self.step(cur, b)
                    cur = (code >> 1) - 1
                    if cur < 0:
                        break
                assert code is not None  # a run is never empty
            else:
                out, returned = self._hang(cg.rel_closure(cg.literal_run_end(rs)), chain[1:])
                nxt = self.intern(frozenset(out)) if out else -1
                code = (nxt + 1) * 2 + int(returned)
            self._after_runs[lid] = code
        return code

    def byte_cuts(self, lid: int) -> list[int]:
        """Where the byte classes of ``lid`` start (plus 256): bytes of one class are treated
        alike by every top rule state, so they share one transition."""
        got = self._cuts.get(lid)
        if got is None:
            spans = self._spans(lid)
            got = self._cuts_by_spans.get(spans)
            if got is None:
                cuts = {0, 256}
                for lo, hi in spans:
                    cuts.add(lo)
                    cuts.add(hi + 1)
                got = self._cuts_by_spans[spans] = sorted(cuts)
            self._cuts[lid] = got
        return got

    def _spans(self, lid: int) -> tuple[tuple[int, int], ...]:
        """The byte ranges the top rule states of ``lid`` consume, sorted: the states of one string
        body under many rules, or of a key's trie nodes, share them — and so their first bytes
        and byte classes (sets of ~100 bytes, built once per distinct ranges, not per state)."""
        got = self._spans_of.get(lid)
        if got is None:
            ranges = self.cg.state_byte_ranges
            tops = {chain[0] for chain in self.chains[lid]}
            got = self._spans_of[lid] = tuple(sorted({r for rs in tops for r in ranges(rs)}))
        return got

    def class_step(self, lid: int, byte: int) -> tuple[int, int, int]:
        """The transition on ``byte`` and the byte class ``[lo, hi)`` that shares it (recorded for
        the whole class when alive): one ``step`` for the bytes a walk actually meets, not a whole
        row."""
        cuts = self.byte_cuts(lid)
        i = bisect.bisect_right(cuts, byte) - 1
        lo, hi = cuts[i], cuts[i + 1]
        known = self.trans[lid]
        code = known[byte]
        if code is None:
            if byte not in self.first_bytes(lid):
                return lo, hi, 0  # dead: nothing to record (a literal's row is dead but for a byte)
            code = self.step(lid, byte)
            known[lo:hi] = [code] * (hi - lo)
        return lo, hi, code

    def classes(self, lid: int) -> list[tuple[int, int, int]]:
        """Every allowed byte class ``[lo, hi)`` of ``lid`` with its transition, ascending (bytes
        in none are dead): one ``step`` per class of bytes that every top rule state treats
        alike, not one per byte, recorded for the whole class. Memoised: a loop set, a run and
        a walk's first-byte groups are all built from it."""
        got = self._full.get(lid)
        if got is None:
            known = self.trans[lid]
            allowed = self.first_bytes(lid)
            got = []
            for lo, hi in itertools.pairwise(self.byte_cuts(lid)):
                if lo not in allowed:
                    continue
                code = known[lo]
                if code is None:
                    code = self.step(lid, lo)
                    known[lo:hi] = [code] * (hi - lo)
                got.append((lo, hi, code))
            self._full[lid] = got
        return got

    def first_bytes(self, lid: int) -> frozenset[int]:
        got = self.first_memo.get(lid)
        if got is None:
            spans = self._spans(lid)
            got = self._first_by_spans.get(spans)
            if got is None:
                acc: set[int] = set()
                for lo, hi in spans:
                    acc.update(range(lo, hi + 1))
                got = self._first_by_spans[spans] = frozenset(acc)
            self.first_memo[lid] = got
        return got
