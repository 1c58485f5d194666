"""CompiledGrammar: the byte-level RTN plus the lazily built configuration automaton.

A *configuration* is the set of live parser stacks after some input, closed under epsilons, calls
and returns. Stack frames are interned ``(nfa_state, parent_frame)`` pairs, so a stack is one int and
a configuration is a frozenset of ints, interned to a dense id. Transitions ``(config, byte) → config``
are computed on first use and memoised, so after warm-up feeding a byte is one dict lookup: this is
what makes byte-at-a-time recognition fast in Python, and it is the same table the token engine
walks to build masks. Configurations and transitions depend only on the grammar, so one
CompiledGrammar serves any number of recognizers (and requests).

The construction is top-down, so left recursion is rejected at compile time (``analysis.prepare``);
recursion of any depth otherwise works (a deeper stack is just a longer frame chain), and ambiguous
grammars are fine (a configuration holds every live stack).
"""

from __future__ import annotations

import hashlib
import time

from toolchain.grammar.analysis import prepare
from toolchain.grammar.ir import Grammar
from toolchain.recognizer.nfa import Nfa, build_nfa

DEAD = -1
BOTTOM = 0  # the empty stack: reaching it means the root rule has completed


class CompiledGrammar:
    """A grammar ready to recognise bytes. Thread-compatible, not thread-safe (memo tables grow)."""

    def __init__(self, grammar: Grammar) -> None:
        t0 = time.perf_counter()
        self.source = grammar
        self.grammar = prepare(grammar)
        self.nfa: Nfa = build_nfa(self.grammar)
        # dataclass reprs are deterministic, so this is a stable content hash of the prepared IR
        self.hash = hashlib.sha256(
            repr((self.grammar.root, list(self.grammar.rules.items()))).encode()
        ).hexdigest()
        # frame interning: frame id → (state, parent frame id); frame 0 is the bottom of the stack
        self._frame_state: list[int] = [-1]
        self._frame_parent: list[int] = [-1]
        self._frame_ids: dict[tuple[int, int], int] = {}
        # configurations
        self.config_frames: list[frozenset[int]] = []
        self.config_accepting: list[bool] = []
        self.trans: list[dict[int, int]] = []
        self._config_ids: dict[tuple[frozenset[int], bool], int] = {}
        self._allowed: dict[int, frozenset[int]] = {}
        # per-NFA-state epsilon summary: (kernel states, calls, reaches the rule's final state)
        self._summary: dict[int, tuple[tuple[int, ...], tuple[tuple[int, int], ...], bool]] = {}
        self._rel: dict[int, tuple[tuple[tuple[int, ...], ...], bool]] = {}
        self._local: dict[int, dict[int, tuple[tuple[tuple[int, ...], ...], bool]]] = {}
        self._returns: dict[int, tuple[tuple[int, ...], bool]] = {}
        root = self.nfa.rule_names.index(self.grammar.root)
        self.initial = self._closure([(self.nfa.rule_start[root], BOTTOM)])
        self.compile_ms = (time.perf_counter() - t0) * 1000.0

    # -- interning ---------------------------------------------------------------------------
    def _frame(self, state: int, parent: int) -> int:
        key = (state, parent)
        fid = self._frame_ids.get(key)
        if fid is None:
            fid = len(self._frame_state)
            self._frame_ids[key] = fid
            self._frame_state.append(state)
            self._frame_parent.append(parent)
        return fid

    def _config(self, frames: frozenset[int], accepting: bool) -> int:
        key = (frames, accepting)
        cid = self._config_ids.get(key)
        if cid is None:
            cid = len(self.config_frames)
            self._config_ids[key] = cid
            self.config_frames.append(frames)
            self.config_accepting.append(accepting)
            self.trans.append({})
        return cid

    def config_of(self, frames: frozenset[int], accepting: bool) -> int:
        """Intern a configuration (the token engine builds return configurations this way)."""
        return self._config(frames, accepting)

    def frame_state(self, frame: int) -> int:
        return self._frame_state[frame]

    def frame_parent(self, frame: int) -> int:
        return self._frame_parent[frame]

    @property
    def num_configs(self) -> int:
        return len(self.config_frames)

    def _eps_summary(self, state: int) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...], bool]:
        """States with byte edges, calls, and rule completion reachable from ``state`` by epsilons."""
        summary = self._summary.get(state)
        if summary is not None:
            return summary
        nfa = self.nfa
        final = nfa.rule_final[nfa.rule_of[state]]
        seen = {state}
        stack = [state]
        kernels: list[int] = []
        calls: list[tuple[int, int]] = []
        reaches_final = False
        while stack:
            s = stack.pop()
            if nfa.byte_edges[s]:
                kernels.append(s)
            calls.extend(nfa.calls[s])
            if s == final:
                reaches_final = True
            for t in nfa.eps[s]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        summary = (tuple(sorted(kernels)), tuple(calls), reaches_final)
        self._summary[state] = summary
        return summary

    # -- closure and steps -------------------------------------------------------------------
    # Closures are computed *relative to an abstract parent*: the result of entering NFA state t is
    # a set of frame chains (kernel state, return states…) to hang under whatever frame is the
    # parent, plus whether control can return into that parent. This depends only on t, so it is
    # memoised per NFA state and shared by every stack depth and context: the per-stack work is
    # just interning the few frames that actually change.
    def rel_closure(self, state: int) -> tuple[tuple[tuple[int, ...], ...], bool]:
        cached = self._rel.get(state)
        if cached is not None:
            return cached
        nfa = self.nfa
        chains: set[tuple[int, ...]] = set()
        pops = False
        seen: set[tuple[int, tuple[int, ...]]] = set()
        work: list[tuple[int, tuple[int, ...]]] = [(state, ())]
        while work:
            item = work.pop()
            if item in seen:
                continue
            seen.add(item)
            s, chain = item
            kernels, calls, reaches_final = self._eps_summary(s)
            for k in kernels:
                chains.add((k, *chain))
            for rule, ret in calls:
                work.append((nfa.rule_start[rule], (ret, *chain)))
            if reaches_final:
                if chain:
                    work.append((chain[0], chain[1:]))
                else:
                    pops = True
        result = (tuple(sorted(chains)), pops)
        self._rel[state] = result
        return result

    def local_step(self, state: int, byte: int) -> tuple[tuple[tuple[int, ...], ...], bool]:
        """Byte ``byte`` from NFA state ``state``, relative to an abstract parent (memoised)."""
        row = self._local.get(state)
        if row is None:
            row = self._local[state] = {}
        hit = row.get(byte)
        if hit is not None:
            return hit
        chains: set[tuple[int, ...]] = set()
        pops = False
        for lo, hi, target in self.nfa.byte_edges[state]:
            if lo <= byte <= hi:
                sub_chains, sub_pops = self.rel_closure(target)
                chains.update(sub_chains)
                pops = pops or sub_pops
        result = (tuple(sorted(chains)), pops)
        row[byte] = result
        return result

    def _hang(self, chain: tuple[int, ...], parent: int) -> int:
        frame = parent
        for ret in reversed(chain):
            frame = self._frame(ret, frame)
        return frame

    def return_into(self, parent: int) -> tuple[list[int], bool]:
        """Frames live after control returns into frame ``parent``, and whether the root completes.

        Iterative (a return can cascade through many nullable tails: no recursion limit)."""
        frames: list[int] = []
        accepting = False
        while True:
            if parent == BOTTOM:
                accepting = True
                break
            cached = self._returns.get(parent)
            if cached is not None:
                frames.extend(cached[0])
                accepting = accepting or cached[1]
                break
            chains, pops = self.rel_closure(self._frame_state[parent])
            grand = self._frame_parent[parent]
            level = [self._hang(c, grand) for c in chains]
            frames.extend(level)
            if not pops:
                self._returns[parent] = (tuple(level), False)
                break
            parent = grand
        return frames, accepting

    def _closure(self, items: list[tuple[int, int]]) -> int:
        """Close ``(state, parent frame)`` items under epsilons, calls and returns → config id."""
        frames: set[int] = set()
        accepting = False
        for state, parent in items:
            chains, pops = self.rel_closure(state)
            for c in chains:
                frames.add(self._hang(c, parent))
            if pops:
                more, acc = self.return_into(parent)
                frames.update(more)
                accepting = accepting or acc
        if not frames and not accepting:
            return DEAD
        return self._config(frozenset(frames), accepting)

    def step(self, config: int, byte: int) -> int:
        """The configuration after ``byte`` (memoised); DEAD if the byte is not allowed."""
        nxt = self.trans[config].get(byte)
        if nxt is not None:
            return nxt
        frames: set[int] = set()
        accepting = False
        frame_state = self._frame_state
        frame_parent = self._frame_parent
        for frame in self.config_frames[config]:
            parent = frame_parent[frame]
            chains, pops = self.local_step(frame_state[frame], byte)
            for c in chains:
                frames.add(self._hang(c, parent))
            if pops:
                more, acc = self.return_into(parent)
                frames.update(more)
                accepting = accepting or acc
        nxt = self._config(frozenset(frames), accepting) if frames or accepting else DEAD
        self.trans[config][byte] = nxt
        return nxt

    def walk(self, config: int, data: bytes) -> int:
        """Feed ``data`` from ``config``; DEAD as soon as a byte is rejected."""
        trans = self.trans
        for b in data:
            nxt = trans[config].get(b)
            if nxt is None:
                nxt = self.step(config, b)
            if nxt < 0:
                return DEAD
            config = nxt
        return config

    def allowed_bytes(self, config: int) -> frozenset[int]:
        allowed = self._allowed.get(config)
        if allowed is None:
            out: set[int] = set()
            byte_edges = self.nfa.byte_edges
            for frame in self.config_frames[config]:
                for lo, hi, _ in byte_edges[self._frame_state[frame]]:
                    out.update(range(lo, hi + 1))
            allowed = frozenset(out)
            self._allowed[config] = allowed
        return allowed

    def active_rules(self, config: int) -> list[str]:
        """Names of the rules on top of the live stacks (for diagnostics), in rule order."""
        nfa = self.nfa
        rules = {nfa.rule_of[self._frame_state[f]] for f in self.config_frames[config]}
        return [nfa.rule_names[r] for r in sorted(rules)]

    def stack_rules(self, config: int) -> list[list[str]]:
        """Each live stack as rule names, innermost first (for diagnostics)."""
        nfa = self.nfa
        out = []
        for frame in sorted(self.config_frames[config]):
            names: list[str] = []
            f = frame
            while f != BOTTOM:
                names.append(nfa.rule_names[nfa.rule_of[self._frame_state[f]]])
                f = self._frame_parent[f]
            out.append(names)
        return out
