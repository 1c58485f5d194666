"""CompiledGrammar: the byte-level RTN plus the lazily built configuration automaton.

Two levels of lazy determinisation, both memoised on first use:

* **Rule states.** Inside one rule, the NFA is determinised on the fly: a *rule state* is an
  epsilon-closed set of NFA states of that rule (subset construction, never following calls). So
  alternatives such as ``ws ::= "" | " " | "\\n" [ \\t]{0,20}`` are one frame, not three. Calls to
  the same rule from several NFA states of a rule state are merged into one push whose return
  state is the closure of all their return points.
* **Configurations.** A configuration is the set of live parser stacks after some input, closed
  under calls and returns. Stack frames are interned ``(rule state, parent frame)`` pairs, so a
  stack is one int and a configuration is a frozenset of ints, interned to a dense id.
  Transitions ``(config, byte) → config`` are memoised, so after warm-up feeding a byte is one dict
  lookup — the table the token engine walks to build masks.

Closures are computed *relative to an abstract parent* (a chain of rule states to hang under
whatever frame is the parent, plus whether control returns into it), memoised per rule state and
shared by every stack depth and context.

The construction is top-down, so left recursion is rejected at compile time (``analysis.prepare``);
recursion of any depth otherwise works, and ambiguous grammars are fine (a configuration holds every
live stack).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Collection, Iterable

from gramwright.grammar.analysis import prepare
from gramwright.grammar.ir import Grammar
from gramwright.recognizer.nfa import Nfa, build_nfa

DEAD = -1
# a rule state of more NFA states than this is stepped through a byte index (``_byte_index``)
_INDEX_MEMBERS = 64
_RUN_MAX = 256  # a literal run is followed this far at most (tokens are shorter)
BOTTOM = 0  # the empty stack: reaching it means the root rule has completed

Chain = tuple[int, ...]  # rule states: the top one first, then return states below it
RelClosure = tuple[tuple[Chain, ...], bool]  # chains to hang under the parent, returns into it


class CompiledGrammar:
    """A grammar ready to recognise bytes. Thread-compatible, not thread-safe (memo tables grow)."""

    def __init__(self, grammar: Grammar) -> None:
        t0 = time.perf_counter()
        self.source = grammar
        self.grammar = prepare(grammar)
        self.nfa: Nfa = build_nfa(self.grammar)
        self._hash: str | None = None
        # rule states (lazy per-rule subset construction)
        self._rs_nfa: list[frozenset[int]] = []
        self._rs_rule: list[int] = []
        self._rs_ids: dict[frozenset[int], int] = {}  # closed NFA sets (and sets asked for) → id
        self._rs_step: list[dict[int, int]] = []
        self._rs_info: list[tuple[bool, tuple[tuple[int, int], ...], bool] | None] = []
        self._rs_ranges: dict[int, tuple[tuple[int, int], ...]] = {}
        self._rs_index: dict[int, dict[int, set[int]]] = {}  # wide rule states: byte → targets
        self._literal_runs: dict[int, bytes] = {}  # rule state → its literal run (``literal_run``)
        self._runs_from: dict[frozenset[int], tuple[bytes, frozenset[int]]] = {}  # … by NFA states
        # rule state → the rule state after its literal run (``literal_run_end``)
        self._run_ends: dict[int, int] = {}
        self._run_end_members: dict[int, frozenset[int]] = {}
        # each rule's start state, interned when first entered (a 5,000-line edit grammar has
        # ~50k rules, of which a run enters a few hundred)
        self._rule_start: list[int] = [DEAD] * len(self.nfa.rule_start)
        # frame interning: frame id → (rule state, parent frame id); frame 0 is the stack bottom
        self._frame_state: list[int] = [-1]
        self._frame_parent: list[int] = [-1]
        self._frame_ids: dict[tuple[int, int], int] = {}
        # configurations
        self.config_frames: list[frozenset[int]] = []
        self.config_accepting: list[bool] = []
        self.trans: list[dict[int, int]] = []
        self._config_ids: dict[tuple[frozenset[int], bool], int] = {}
        self._allowed: dict[int, frozenset[int]] = {}
        self._rel: dict[int, RelClosure] = {}
        self._local: dict[int, dict[int, RelClosure]] = {}
        self._returns: dict[int, tuple[tuple[int, ...], bool]] = {}
        root = self.nfa.rule_names.index(self.grammar.root)
        chains, pops = self.rel_closure(self._start_state(root))
        frames = frozenset(self._hang(c, BOTTOM) for c in chains)
        self.initial = self._config(frames, pops)
        self.compile_ms = (time.perf_counter() - t0) * 1000.0

    # -- rule states -------------------------------------------------------------------------

    @property
    def hash(self) -> str:
        """A stable content hash of the prepared IR (dataclass reprs are deterministic), made when
        first asked for — by the on-disk store only: for a 5,000-line edit grammar the repr is
        ~0.6 s that an engine without a store never needs."""
        got = self._hash
        if got is None:
            content = repr((self.grammar.root, list(self.grammar.rules.items())))
            got = self._hash = hashlib.sha256(content.encode()).hexdigest()
        return got

    def _start_state(self, rule: int) -> int:
        """The rule state where ``rule`` begins (interned on first use)."""
        rs = self._rule_start[rule]
        if rs == DEAD:
            rs = self._rule_start[rule] = self._rule_state(frozenset([self.nfa.start(rule)]))
        return rs

    def _eps_closure(self, nfa_states: Iterable[int]) -> set[int]:
        """``nfa_states`` and every NFA state their epsilon edges reach (within the rule)."""
        eps = self.nfa.eps
        closed = set(nfa_states)
        stack = list(closed)
        while stack:
            for t in eps[stack.pop()]:
                if t not in closed:
                    closed.add(t)
                    stack.append(t)
        return closed

    def _rule_state(self, nfa_states: frozenset[int]) -> int:
        """Intern the epsilon closure (within the rule) of ``nfa_states``. The sets asked for are
        kept as aliases of their closure's id: a set asked for again (the targets of another byte
        of the same class, a call's return states) is one lookup, with no closure."""
        rid = self._rs_ids.get(nfa_states)
        if rid is not None:
            return rid
        key = frozenset(self._eps_closure(nfa_states))
        rid = self._rs_ids.get(key)
        if rid is None:
            rid = len(self._rs_nfa)
            self._rs_ids[key] = rid
            self._rs_nfa.append(key)
            self._rs_rule.append(self.nfa.rule_of[next(iter(key))])
            self._rs_step.append({})
            self._rs_info.append(None)
        self._rs_ids[nfa_states] = rid
        return rid

    def _info(self, rs: int) -> tuple[bool, tuple[tuple[int, int], ...], bool]:
        """(has byte edges, calls as (rule, return rule state), completes the rule)."""
        info = self._rs_info[rs]
        if info is None:
            nfa = self.nfa
            members = self._rs_nfa[rs]
            edges, all_calls = nfa.byte_edges, nfa.calls
            has_bytes = False
            returns: dict[int, set[int]] = {}
            for s in members:
                if edges[s]:
                    has_bytes = True
                for rule, ret in all_calls[s]:
                    returns.setdefault(rule, set()).add(ret)
            calls = (
                tuple((rule, self._rule_state(frozenset(rets))) for rule, rets in sorted(returns.items()))
                if returns
                else ()
            )
            final = nfa.rule_final[self._rs_rule[rs]] in members
            info = (has_bytes, calls, final)
            self._rs_info[rs] = info
        return info

    def _rs_byte(self, rs: int, byte: int) -> int:
        """The rule state after ``byte`` inside the rule (no calls, no returns); DEAD if none."""
        row = self._rs_step[rs]
        nxt = row.get(byte)
        if nxt is None:
            members = self._rs_nfa[rs]
            if len(members) > _INDEX_MEMBERS:
                index = self._rs_index.get(rs)
                if index is None:
                    index = self._rs_index[rs] = self._byte_index(members)
                targets: Iterable[int] = index.get(byte, ())
            else:
                edges = self.nfa.byte_edges
                targets = {t for s in members for lo, hi, t in edges[s] if lo <= byte <= hi}
            nxt = self._rule_state(frozenset(targets)) if targets else DEAD
            row[byte] = nxt
        return nxt

    def _byte_index(self, members: frozenset[int]) -> dict[int, set[int]]:
        """byte → the targets of ``members``' edges on it: a wide rule state (a diff's start
        lines, ~9k NFA states) is stepped on hundreds of bytes, each a scan of every member."""
        edges = self.nfa.byte_edges
        index: dict[int, set[int]] = {}
        for s in members:
            for lo, hi, t in edges[s]:
                for b in range(lo, hi + 1):
                    got = index.get(b)
                    if got is None:
                        index[b] = {t}
                    else:
                        got.add(t)
        return index

    def state_byte_ranges(self, rs: int) -> tuple[tuple[int, int], ...]:
        """The bytes a rule state can consume itself, as ranges."""
        got = self._rs_ranges.get(rs)
        if got is None:
            edges = self.nfa.byte_edges
            got = tuple(sorted({(lo, hi) for s in self._rs_nfa[rs] for lo, hi, _ in edges[s]}))
            self._rs_ranges[rs] = got
        return got

    def literal_run(self, rs: int) -> bytes:
        """The bytes that rule state ``rs`` must read next, one possible byte at a time, while
        nothing else can happen (no call, no completion, one byte): a literal such as a member's
        ``,"name":``. Only ``rs``'s own byte edges count for the first byte (its calls and its
        completion are other chains); the run ends after the first byte into a state that calls,
        completes or allows more than one byte. Memoised; empty when ``rs`` allows several bytes.
        A token walk follows it through the vocabulary trie without a state per byte."""
        got = self._literal_runs.get(rs)
        if got is None:
            known = self._runs_from.get(self._rs_nfa[rs])
            if known is not None:
                got, self._run_end_members[rs] = known
                self._literal_runs[rs] = got
                return got
            first = self.state_byte_ranges(rs)
            if len(first) != 1 or first[0][0] != first[0][1]:
                self._literal_runs[rs] = b""  # more than one first byte (memoised ranges)
                return b""
            nfa = self.nfa
            edges, calls = nfa.byte_edges, nfa.calls
            final = nfa.rule_final[self._rs_rule[rs]]
            out = bytearray()
            members: Collection[int] = self._rs_nfa[rs]
            passed: list[tuple[set[int], int]] = []  # the states the run went through, and where
            eps = nfa.eps
            while len(out) < _RUN_MAX:
                if len(members) == 1:
                    # a literal's inner states (one edge, no epsilon, no call: see ``expr``),
                    # read with no set or closure per byte; the first state that is not one
                    # (it calls, completes, branches or ends) is read by the general step below
                    (st,) = members
                    while len(out) < _RUN_MAX:
                        got_edges = edges[st]
                        if len(got_edges) != 1:
                            break
                        lo, hi, t = got_edges[0]
                        if lo != hi or eps[t] or calls[t] or t == final or not edges[t]:
                            break
                        out.append(lo)
                        st = t
                        passed.append(({t}, len(out)))
                    members = {st}
                    if len(out) >= _RUN_MAX:
                        break
                byte = -1
                targets: set[int] = set()
                for st in members:
                    for lo, hi, t in edges[st]:
                        if lo != hi or (byte >= 0 and lo != byte):
                            byte = -2
                            break
                        byte = lo
                        targets.add(t)
                    if byte == -2:
                        break
                if byte < 0:
                    break
                closed = self._eps_closure(targets)
                if final in closed or any(calls[st] for st in closed):
                    out.append(byte)
                    members = closed
                    break  # the byte is read; what follows it is more than a literal
                if not any(edges[st] for st in closed):
                    break  # nothing after the byte (a pruned grammar has no such state)
                out.append(byte)
                members = closed
                passed.append((closed, len(out)))
            got = self._literal_runs[rs] = bytes(out)
            end = self._run_end_members[rs] = frozenset(members)
            if len(out) < _RUN_MAX:
                # every position of a literal asks for its run (a walk per position of a long
                # key): the positions passed on the way have the rest of this one, and its end
                for state, at in passed:
                    self._runs_from.setdefault(frozenset(state), (got[at:], end))
        return got

    def literal_run_end(self, rs: int) -> int:
        """The rule state after ``rs``'s literal run (not empty): no call and no completion can
        happen inside a run, so this is where reading it byte by byte inside the rule leads."""
        got = self._run_ends.get(rs)
        if got is None:
            if not self.literal_run(rs):
                raise ValueError(f"rule state {rs} has no literal run")
            got = self._run_ends[rs] = self._rule_state(self._run_end_members[rs])
        return got

    def state_members(self, rs: int) -> frozenset[int]:
        """The NFA states of rule state ``rs`` (epsilon-closed, all in one rule)."""
        return self._rs_nfa[rs]

    def state_rule(self, rs: int) -> int:
        """The rule (an index into ``nfa.rule_names``) that rule state ``rs`` belongs to."""
        return self._rs_rule[rs]

    def rule_state(self, nfa_states: frozenset[int]) -> int:
        """Intern the rule state of ``nfa_states`` (NFA states of one rule; epsilon-closed here)."""
        return self._rule_state(nfa_states)

    def rule_name_of(self, rs: int) -> str:
        return self.nfa.rule_names[self._rs_rule[rs]]

    @property
    def num_rule_states(self) -> int:
        return len(self._rs_nfa)

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

    # -- closure and steps -------------------------------------------------------------------
    def rel_closure(self, rs: int) -> RelClosure:
        """Entering rule state ``rs`` under an abstract parent: the chains to hang under it, and
        whether control can return into the parent without consuming a byte (memoised)."""
        cached = self._rel.get(rs)
        if cached is not None:
            return cached
        has_bytes, calls, final = self._info(rs)
        if not calls and not final:
            # the common case (a literal's or a trie's next position): the state itself
            result: RelClosure = (((rs,),) if has_bytes else (), False)
            self._rel[rs] = result
            return result
        chains: set[Chain] = set()
        pops = False
        seen: set[tuple[int, Chain]] = set()
        work: list[tuple[int, Chain]] = [(rs, ())]
        start = self._start_state
        starts = self._rule_start
        infos = self._rs_info
        info_of = self._info
        while work:
            item = work.pop()
            if item in seen:
                continue
            seen.add(item)
            s, chain = item
            has_bytes, calls, final = infos[s] or info_of(s)
            if has_bytes:
                chains.add((s, *chain))
            for rule, ret in calls:
                callee = starts[rule]
                if callee == DEAD:
                    callee = start(rule)
                ret_bytes, ret_calls, ret_final = infos[ret] or info_of(ret)
                if ret_final and not ret_bytes and not ret_calls:
                    # a tail call (the return state can only complete its rule): the caller
                    # would only return after it, so no frame is kept (``rest-k ::= (member)?
                    # rest-(k-1)`` stays one frame deep, not k)
                    work.append((callee, chain))
                else:
                    work.append((callee, (ret, *chain)))
            if final:
                if chain:
                    work.append((chain[0], chain[1:]))
                else:
                    pops = True
        result = (tuple(sorted(chains)), pops)
        self._rel[rs] = result
        return result

    def local_step(self, rs: int, byte: int) -> RelClosure:
        """Byte ``byte`` from rule state ``rs``, relative to an abstract parent (memoised)."""
        row = self._local.get(rs)
        if row is None:
            row = self._local[rs] = {}
        hit = row.get(byte)
        if hit is not None:
            return hit
        nxt = self._rs_byte(rs, byte)
        result: RelClosure = ((), False) if nxt == DEAD else self.rel_closure(nxt)
        row[byte] = result
        return result

    def _hang(self, chain: Chain, parent: int) -> int:
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
            for frame in self.config_frames[config]:
                for lo, hi in self.state_byte_ranges(self._frame_state[frame]):
                    out.update(range(lo, hi + 1))
            allowed = frozenset(out)
            self._allowed[config] = allowed
        return allowed

    def active_rules(self, config: int) -> list[str]:
        """Names of the rules on top of the live stacks (for diagnostics), in rule order."""
        rules = {self._rs_rule[self._frame_state[f]] for f in self.config_frames[config]}
        return [self.nfa.rule_names[r] for r in sorted(rules)]

    def stack_rules(self, config: int) -> list[list[str]]:
        """Each live stack as rule names, innermost first (for diagnostics)."""
        out = []
        for frame in sorted(self.config_frames[config]):
            names: list[str] = []
            f = frame
            while f != BOTTOM:
                names.append(self.rule_name_of(self._frame_state[f]))
                f = self._frame_parent[f]
            out.append(names)
        return out
