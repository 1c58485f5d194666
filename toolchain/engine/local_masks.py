"""Local masks: which tokens a local state (``local.py``) accepts, by walking the vocabulary.

A local mask is the set of tokens consumed entirely above the abstract parent (a bitset: valid in
every context) plus the *pending* tokens that return into the parent with bytes left (ids and
offsets: checked against the real stack by ``masks.py``). Three walks compute it:

* a **run walk** near the end of ``char{0,n}`` (``runs.py``): tokens made of the bytes that step
  every remaining copy alike are decided by length, only the others are walked;
* a **trie walk** for restrictive states (few tokens start with an allowed byte): depth first
  through the vocabulary trie, dropping a subtree at its first dead byte, taking a subtree whole
  where every byte below loops (a node with many children is stepped by byte class, so the
  hundreds of letters after a free key's known prefix are one range, not one visit each), and
  sharing the mask of a literal no token runs past (a function of the prefix the trie holds);
* a **vector walk** over a candidate set with numpy, byte position by byte position, dropping dead
  tokens as it goes, with a dense mirror of the local transitions. Three shortcuts keep it from
  stepping every byte of every token:

  - *first-byte groups*: first bytes that lead into a state with a content signature take that
    state's **suffix mask** (every token's bytes after the first, walked from there once per
    process and vocabulary), filtered by first byte — ``[^az] chars`` (a key other than known
    names) is the free string's suffix mask minus tokens starting with ``a`` or ``z``;
  - *shared suffixes*: after the first byte, tokens standing in a signed state with most of the
    vocabulary take its suffix mask the same way;
  - *loops*: a token whose remaining bytes all lead from its state back to it (a string body's
    ordinary characters) is accepted without a walk;

  and the long tail (a few long tokens) finishes in Python, where numpy's per-call cost dominates.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from gramwright.engine import bitset
from gramwright.engine.bitset import IntArray, Words
from gramwright.engine.byte_sets import byte_mask, tail_inside
from gramwright.engine.local import LocalAutomaton
from gramwright.engine.runs import Run, near_run, run_split
from gramwright.engine.trie import TokenTrie
from gramwright.engine.vocab import TokenVocabulary

UNKNOWN = -1
# Below this many surviving tokens the numpy walk hands over to per-token dict lookups.
VECTOR_TAIL = 256
SUFFIX_MIN_TOKENS = 8192  # tokens in one state after their first byte, for a shared suffix mask
# A trie walk takes a subtree whole (no visit) when it has this many tokens below its node and every
# byte below loops on the state there (1: any; 4 cost 1.4 % more instructions, measured);
# only states allowing LOOP_MIN_BYTES bytes are looked at for loops.
WHOLE_SUBTREE_MIN = 1
LOOP_MIN_BYTES = 32
# A trie node with this many children is stepped by byte class (``_whole_classes``), not by child.
CLASS_KIDS_MIN = 6
# A walk's candidates are gathered from the per-first-byte lists up to this many tokens (then
# sorted); more than that, one boolean pass over the vocabulary is cheaper.
WALK_GATHER_MAX = 8192


@dataclass
class LocalMask:
    accepted: Words  # bitset: tokens valid in every context below the key
    any_accepted: bool
    pending_ids: IntArray  # tokens that return into the abstract parent with bytes left …
    pending_offsets: IntArray  # … after this many bytes
    rejected: IntArray | None = None  # suffix masks: multi-byte tokens not accepted (on first use)
    pending_digest: bytes | None = None  # what is pending, as a digest (on first pending check)


@dataclass
class _Parts:
    """What a walk has decided so far: accepted tokens (as ids or as bitsets) and pending ones."""

    vocab_size: int
    ids: list[IntArray] = field(default_factory=list)
    bits: list[Words] = field(default_factory=list)
    pend_ids: list[IntArray] = field(default_factory=list)
    pend_off: list[IntArray] = field(default_factory=list)

    def pending(self, ids: IntArray, offsets: IntArray) -> None:
        if ids.size:
            self.pend_ids.append(ids)
            self.pend_off.append(offsets)

    def finish(self) -> LocalMask:
        words = np.zeros(bitset.num_words(self.vocab_size), dtype=np.uint32)
        for part in self.bits:
            words |= part
        walked = [part for part in self.ids if part.size]
        if walked:
            bitset.add(words, np.concatenate(walked) if len(walked) > 1 else walked[0], self.vocab_size)
        # a walked id is a bit set: only OR-ed bitsets can leave the mask empty
        any_accepted = bool(walked) or (bool(self.bits) and bitset.nonempty(words))
        if self.pend_ids:
            p_ids = np.concatenate(self.pend_ids).astype(np.int32)
            p_off = np.concatenate(self.pend_off).astype(np.int32)
            # a token accepted locally needs no context check (a token may return at several
            # offsets — ambiguity —: each is checked, any one suffices)
            keep = ~bitset.contains(words, p_ids)
            p_ids, p_off = p_ids[keep], p_off[keep]
        else:
            p_ids = p_off = np.zeros(0, dtype=np.int32)
        words.setflags(write=False)
        return LocalMask(words, any_accepted, p_ids, p_off)


def _follow(trie: TokenTrie, node: int, run: bytes) -> tuple[list[int], bool]:
    """The trie nodes that ``run`` (not empty) leads through from ``node``, and whether it got to
    the run's end (else the trie holds no token going on there)."""
    passed: list[int] = []
    child_of = trie.child
    at = node
    for b in run:
        below = child_of(at, b)
        if below is None:
            return passed, False
        passed.append(below)
        at = below
    return passed, True


class LocalWalker:
    """Walks the vocabulary from the states of one local automaton (one grammar × vocabulary)."""

    def __init__(self, local: LocalAutomaton, vocab: TokenVocabulary) -> None:
        self.local = local
        self.cg = local.cg
        self.vocab = vocab
        self.horizon = local.horizon
        self.table: npt.NDArray[np.int32] = np.full((64, 256), UNKNOWN, dtype=np.int32)
        tables = vocab.tables
        self.suffix_masks = tables.suffix_masks  # shared by every grammar on this vocabulary
        arrays = tables.arrays()
        self.ids = arrays.ids
        self._matrix_t = arrays.matrix_t
        self._tail_sets = tables.tail_sets()
        self._multi_byte_ids = arrays.multi_byte_ids
        self._first_byte = arrays.first_byte
        self._ids_first_byte = arrays.ids_first_byte
        self._ids_single = arrays.ids_single
        self._first_counts = arrays.first_counts
        self._by_first = arrays.by_first
        self._single_by_first = arrays.single_by_first
        self._multi_bits_below = arrays.multi_bits_below
        self._local_sigs: dict[int, Hashable | None] = {}
        self._loop_sets: dict[int, int] = {}
        self._literals: dict[int, bytes] = {}
        self._starting: dict[frozenset[int], int] = {}
        self._prefix_masks: dict[bytes, LocalMask] = {}
        self._literal_masks: dict[int, LocalMask | None] = {}  # per local state (``literal_mask``)
        self._runs: dict[int, Run | None] = {}
        self._trie: TokenTrie | None = None

    def starting_with(self, first_bytes: frozenset[int]) -> int:
        """How many tokens start with one of ``first_bytes`` (memoised: the local states of one
        string body share one set of ~200 bytes, asked for by every stack top over it)."""
        got = self._starting.get(first_bytes)
        if got is None:
            counts = self._first_counts
            got = self._starting[first_bytes] = sum([counts[b] for b in first_bytes])
        return got

    def byte_at(self, ids: IntArray, offsets: IntArray) -> npt.NDArray[np.uint8]:
        """Per token of ``ids``, its byte at ``offsets`` (each below the token's length)."""
        # one flat ``take`` (a pair of int32 index arrays costs ~2.5x: each is converted to
        # intp element by element)
        matrix = self._matrix_t
        flat = offsets.astype(np.intp) * matrix.shape[1] + ids
        got: npt.NDArray[np.uint8] = matrix.ravel().take(flat)
        return got

    def trie(self) -> TokenTrie:
        if self._trie is None:
            self._trie = self.vocab.tables.trie()
        return self._trie

    # -- trie walk ---------------------------------------------------------------------------
    def trie_walk(self, lid: int, trie: TokenTrie | None = None) -> LocalMask:
        """The local mask by depth-first walk of the vocabulary trie (restrictive states), or of
        ``trie`` (a subset of the vocabulary, such as the longest tokens). A state reading a
        literal no token goes past has its mask from ``literal_mask`` (the engine asks it first);
        walked, it gets the same mask."""
        if trie is None:
            trie = self.trie()
        children = trie.children
        ends = trie.ends
        wide = trie.wide
        below, order, first, last = trie.subtrees()
        local = self.local
        accepted: list[int] = []
        whole: list[IntArray] = []  # subtrees accepted without a visit
        returning: list[IntArray] = []  # tokens below a node where the key can return …
        returned_at: list[int] = []  # … and how many bytes in
        run_start = run_end = 0  # the range of ``order`` being gathered into ``whole``
        loop_sets = self._loop_sets
        stack = [(0, lid, 0)]
        class_step = local.class_step
        first_bytes = local.first_bytes
        # the memo dicts read inline (a method call per trie node was ~8 % of the walk)
        known_first = local.first_memo
        known_runs = self._literals
        literal = self._literal
        while stack:
            node, cur, depth = stack.pop()
            run = known_runs.get(cur)
            if run is None:
                run = literal(cur)
            if run:
                # a literal (a member's ``,"name":``): follow its bytes down the trie with no
                # local state per byte — the tokens ending on the way are alive, and unless the
                # trie gets to the literal's end (rare: tokens are short), that is all
                passed, through = _follow(trie, node, run)
                for n in passed[:-1] if through else passed:
                    if ends[n]:
                        accepted.extend(ends[n])
                if not through:
                    continue
                # the run's end: its tokens, and the longer ones from the state after the run
                # (one step over the whole run, not a local state per byte)
                past = local.after_run(cur, run)
                nxt = (past >> 1) - 1
                end = passed[-1]
                depth += len(run)
                if (nxt >= 0 or past & 1) and ends[end]:
                    accepted.extend(ends[end])
                if past & 1 and children[end]:
                    returning.append(order[first[end] + len(ends[end]) : last[end]])
                    returned_at.append(depth)
                if nxt >= 0 and children[end]:
                    stack.append((end, nxt, depth))
                continue
            row = local.trans[cur]
            allowed = known_first.get(cur)
            if allowed is None:
                allowed = first_bytes(cur)
            kids: Sequence[tuple[int, int]] = children[node]
            by_byte = wide.get(node)
            if by_byte is not None and len(allowed) < len(kids):
                # the root under a key: a few bytes of 256
                kids = tuple((b, by_byte[b]) for b in allowed if b in by_byte)
            elif len(kids) >= CLASS_KIDS_MIN:
                kids = self._whole_classes(trie, node, cur, kids, whole)
            for b, child in kids:
                code = row[b]
                if code is None:
                    if b not in allowed:
                        continue  # dead: no step (a literal's state is dead on all but one byte)
                    code = class_step(cur, b)[2]
                nxt = (code >> 1) - 1
                returned = code & 1
                if nxt >= 0:
                    span_lo, span_hi = first[child], last[child]  # its tokens in ``order``
                    own = ends[child]
                    # only a state allowing many bytes is worth its loop set (a whole row); and
                    # one byte below first: a state that does not loop on it (the next copy of a
                    # repetition) is never asked for its whole row
                    # (a state's loop set, once known, answers without the probe: a probe byte
                    # outside it leaves a byte below outside it too)
                    if span_hi - span_lo - len(own) >= WHOLE_SUBTREE_MIN and (
                        len(known_first.get(nxt) or first_bytes(nxt)) >= LOOP_MIN_BYTES
                    ):
                        under = below[child]
                        loop = loop_sets.get(nxt)
                        if loop is None:
                            loop = self._probed_loop(nxt, children[child][0][0])
                        if loop and not under & ~loop:
                            # every byte below leads from ``nxt`` back to it (a string body's
                            # characters): every token at or below ends there, alive — no
                            # visit, and no pending check even where the key could also return
                            # on the way; neighbouring subtrees are one range of ``order``
                            if span_lo == run_end:
                                run_end = span_hi
                            else:
                                if run_end > run_start:
                                    whole.append(order[run_start:run_end])
                                run_start, run_end = span_lo, span_hi
                            continue
                    if own:
                        accepted.extend(own)
                elif returned and ends[child]:
                    accepted.extend(ends[child])
                if returned and children[child]:
                    # every longer token below this node continues in the real context
                    returning.append(order[first[child] + len(ends[child]) : last[child]])
                    returned_at.append(depth + 1)
                if nxt >= 0 and children[child]:
                    stack.append((child, nxt, depth + 1))
        if run_end > run_start:
            whole.append(order[run_start:run_end])
        parts = _Parts(self.vocab.size)
        parts.ids.append(np.asarray(accepted, dtype=np.int32))
        parts.ids.extend(whole)
        if returning:
            parts.pending(
                np.concatenate(returning),
                np.repeat(np.asarray(returned_at, dtype=np.int32), [r.size for r in returning]),
            )
        return parts.finish()

    def _whole_classes(
        self,
        trie: TokenTrie,
        node: int,
        cur: int,
        kids: Sequence[tuple[int, int]],
        whole: list[IntArray],
    ) -> list[tuple[int, int]]:
        """A node with many children, stepped one byte class of ``cur`` at a time: the children
        of a class that leads into a state looping on every byte below them (a free key's letter,
        after which every other letter leaves the known names for a free string) are one range
        of the trie's order, accepted whole into ``whole`` with no visit per child. Returns the
        children still to visit one by one (dead classes dropped)."""
        local = self.local
        cuts = local.byte_cuts(cur)
        allowed = local.first_bytes(cur)
        row = local.trans[cur]
        _, order, first, last = trie.subtrees()
        kid_bytes = trie.kid_bytes(node)
        rest: list[tuple[int, int]] = []
        i, n = 0, len(kids)
        c = bisect.bisect_right(cuts, kid_bytes[0]) - 1
        while i < n:
            while cuts[c + 1] <= kid_bytes[i]:
                c += 1
            lo, hi = cuts[c], cuts[c + 1]
            j = bisect.bisect_left(kid_bytes, hi, i)
            if lo not in allowed:
                i = j  # a dead class
                continue
            if j - i >= 2:
                code = row[lo]
                if code is None:
                    code = local.class_step(cur, lo)[2]
                nxt = (code >> 1) - 1
                if nxt >= 0 and len(local.first_bytes(nxt)) >= LOOP_MIN_BYTES:
                    under = trie.below_kids(node, i, j)
                    loop = self._loop_sets.get(nxt) if under else 0
                    if loop is None:
                        loop = self._probed_loop(nxt, (under & -under).bit_length() - 1)
                    if not under & ~loop:
                        whole.append(order[first[kids[i][1]] : last[kids[j - 1][1]]])
                        i = j
                        continue
            rest.extend(kids[i:j])
            i = j
        return rest

    def literal_mask(self, lid: int) -> LocalMask | None:
        """The local mask of ``lid`` when it reads a literal no token goes past (``_prefix_mask``;
        None otherwise): a function of the literal, so the engine needs no key to find it."""
        if lid in self._literal_masks:
            return self._literal_masks[lid]
        run = self._literal(lid)
        got = self._literal_masks[lid] = self._prefix_mask(run) if run else None
        return got

    def _prefix_mask(self, run: bytes) -> LocalMask | None:
        """The local mask of a state whose literal run is ``run`` when no token goes past the
        run's end: the tokens spelling a prefix of it, all alive, none pending — a function of
        the prefix the trie holds, so shared by every state whose run starts with it (the 74
        optional members still open after one of a wide object: each ``,"name":`` has the same
        few tokens ``,`` and ``,"``). None when a token goes on past the run's end."""
        trie = self.trie()
        passed, through = _follow(trie, 0, run)
        if through and trie.children[passed[-1]]:
            return None  # longer tokens go past the run's end: the state's own walk
        prefix = run[: len(passed)]
        got = self._prefix_masks.get(prefix)
        if got is None:
            ends = trie.ends
            accepted: list[int] = []
            for n in passed:
                accepted.extend(ends[n])
            parts = _Parts(self.vocab.size)
            parts.ids.append(np.asarray(accepted, dtype=np.int32))
            got = self._prefix_masks[prefix] = parts.finish()
        return got

    def _literal(self, lid: int) -> bytes:
        """The literal run of ``lid`` (``CompiledGrammar.literal_run``) when it is one chain:
        empty otherwise. Memoised per local state."""
        got = self._literals.get(lid)
        if got is None:
            chains = self.local.chains[lid]
            got = b""
            if len(chains) == 1:
                got = self.cg.literal_run(next(iter(chains))[0])
            self._literals[lid] = got
        return got

    def _probed_loop(self, lid: int, probe: int) -> int:
        """The loop set of ``lid`` (``_loop_set``) when it loops on ``probe`` (a byte below a trie
        node), else 0 (not memoised): a state that does not loop on it (the next copy of a
        repetition, a key leaving a name) is never asked for its whole row, and a byte below
        outside a loop set would keep the subtree from being taken whole anyway. (A byte right
        below the node is the probe of choice: the walk steps it anyway when it goes down.)"""
        seen = self.local.trans[lid][probe]
        if seen is None:
            seen = self.local.class_step(lid, probe)[2]
        return self._loop_set(lid) if seen >> 1 == lid + 1 else 0

    def _loop_set(self, lid: int) -> int:
        """The bytes that lead from ``lid`` straight back to it (a string body's ordinary
        characters), as an int bit set; with or without a possible return on the way: a token
        that ends alive is accepted, and an accepted token needs no pending check."""
        got = self._loop_sets.get(lid)
        if got is None:
            got = 0
            stay = lid + 1
            for lo, hi, code in self.local.classes(lid):
                if code >> 1 == stay:
                    got |= (1 << hi) - (1 << lo)  # bits lo..hi-1
            self._loop_sets[lid] = got
        return got

    # -- runs near a repetition's end --------------------------------------------------------
    def run_walk(self, lid: int, candidates: IntArray, band: Hashable) -> LocalMask | None:
        """The local mask of ``lid`` over ``candidates`` when ``lid`` starts a *run* (see
        ``near_run``; None when it does not): a token made only of the run's bytes is accepted
        when it fits in the run and dead when it does not, so only the others are walked — near
        the end of ``char{0,n}`` that is ~1.3k of 49k tokens (quotes, escapes, non-ASCII). The
        runs found are kept in ``self._runs`` (per local state); ``band`` names ``candidates``
        (a length band of the vocabulary) for their split by the run's bytes (``run_split``)."""
        run = near_run(self.local, lid, self._runs)
        if run is None:
            return None
        loop, k = run
        others, pure, pure_lengths = run_split(self.vocab, loop, candidates, band)
        fitting = pure[: int(np.searchsorted(pure_lengths, k, side="right"))]
        return self.vector_walk(lid, others, accepted=fitting)

    # -- vector walk -------------------------------------------------------------------------
    def vector_walk(
        self, lid: int, candidates: IntArray, start: int = 0, accepted: IntArray | None = None
    ) -> LocalMask:
        """The local mask of ``lid`` over ``candidates`` by numpy, position by position; with
        ``start=1`` the tokens' bytes after their first one (a suffix mask, see above). Tokens in
        ``accepted`` are in the mask without a walk (decided by the caller)."""
        self._ensure_rows()
        first = byte_mask(self.local.first_bytes(lid))
        matrix = self._matrix_t
        lengths = self.vocab.lengths
        parts = _Parts(self.vocab.size)
        if accepted is not None:
            parts.ids.append(accepted)
        if start == 0 and candidates is self.ids:
            # first bytes that lead into a shared state take its suffix mask, without a walk
            taken = self._first_byte_groups(lid, parts)
            if taken is not None:
                first &= ~taken
                # one-byte tokens of those first bytes still end here (walked below)
                ids = self._starting_with_ids(first, taken)
            else:
                ids = self._starting_with_ids(first, None)
        else:
            ids = candidates[first.take(matrix[start].take(candidates))]
        cur = np.full(ids.shape[0], lid, dtype=np.int32)
        pos = start
        if start == 1 and ids.size > VECTOR_TAIL:
            ids, cur = self._accept_loops(ids, cur, parts)
        while ids.size:
            codes = self._codes(cur, matrix[pos].take(ids))
            nxt = (codes >> 1) - 1
            returned = (codes & 1).astype(bool)
            alive = nxt >= 0
            ended = lengths.take(ids) == pos + 1
            # a token that returns exactly at its last byte is valid in every context: returning
            # is always possible (grammars are pruned, so every parent continuation exists)
            parts.ids.append(ids[(alive | returned) & ended])
            leftover = returned & ~ended
            if bitset.nonempty(leftover):
                parts.pending(ids[leftover], np.full(int(leftover.sum()), pos + 1, dtype=np.int32))
            keep = alive & ~ended
            ids, cur = ids[keep], nxt[keep].astype(np.int32)
            if pos == 0 and ids.size > VECTOR_TAIL:
                # a band walk only uses suffix masks made before: near a repetition's end, the
                # states are per position and their suffix masks (whole-vocabulary walks) rarely
                # serve twice
                make = candidates is self.ids
                ids, cur = self._share_suffixes(ids, cur, parts, make)
                ids, cur = self._accept_loops(ids, cur, parts)
            elif pos == 1 and start == 0 and ids.size > VECTOR_TAIL:
                # ``x+`` is ``x x*``: its loop is the state after the second byte (an e-mail
                # pattern's 11k tokens were walked to their ends for want of this)
                ids, cur = self._accept_loops(ids, cur, parts, at=2)
            pos += 1
            if 0 < ids.size <= VECTOR_TAIL:
                # the long tail (a few long tokens over many positions): per-op numpy overhead
                # dominates there, so finish each token with dict lookups
                self._finish_in_python(ids, cur, pos, parts)
                break
        return parts.finish()

    def _starting_with_ids(
        self, first: npt.NDArray[np.bool_], singles_of: npt.NDArray[np.bool_] | None
    ) -> IntArray:
        """The tokens whose first byte is in ``first``, plus the one-byte tokens of the bytes in
        ``singles_of``, ascending: from the per-byte lists when they are few (a free key's walk
        keeps an escape and a few lead bytes), else by one pass over the vocabulary."""
        walked = np.flatnonzero(first).tolist()
        counts = self._first_counts
        if sum(counts[b] for b in walked) > WALK_GATHER_MAX:
            first_of = self._ids_first_byte
            keep = first.take(first_of)
            if singles_of is not None:
                keep |= singles_of.take(first_of) & self._ids_single
            return self.ids[keep]
        pieces = [self._by_first[b] for b in walked if counts[b]]
        if singles_of is not None:
            singles = self._single_by_first
            pieces += [singles[b] for b in np.flatnonzero(singles_of).tolist() if singles[b].size]
        if not pieces:
            return np.zeros(0, dtype=np.int32)
        if len(pieces) == 1:
            return pieces[0]
        return np.sort(np.concatenate(pieces))

    def _group_bits(self, group: npt.NDArray[np.bool_]) -> Words:
        """The multi-byte tokens whose first byte is in ``group``, as a bitset: per run of
        consecutive bytes ``lo..hi-1``, ``below[hi] ^ below[lo]`` (``multi_bits_below``), all
        XOR-ed in one reduce — a few rows, where a union of the per-byte rows gathered up to
        128 of them (0.8 MB) for every group."""
        padded = np.zeros(group.size + 2, dtype=bool)
        padded[1:-1] = group
        bounds = np.flatnonzero(padded[1:] != padded[:-1])  # where each run starts and ends
        got: Words = np.bitwise_xor.reduce(self._multi_bits_below[bounds], axis=0)
        return got

    def _ensure_rows(self) -> None:
        need = self.local.num_states
        if need > self.table.shape[0]:
            grown = np.full((max(need, 2 * self.table.shape[0]), 256), UNKNOWN, dtype=np.int32)
            grown[: self.table.shape[0]] = self.table
            self.table = grown

    def _codes(self, cur: IntArray, byts: npt.NDArray[np.uint8]) -> IntArray:
        flat = cur.astype(np.int64) * 256 + byts
        codes: IntArray = self.table.ravel().take(flat)
        unknown = codes == UNKNOWN
        if bitset.nonempty(unknown):
            # one step per byte class met (the class shares it), not per byte nor per whole row
            table = self.table
            step = self.local.class_step
            lids = cur[unknown]
            if lids.size > 256 and lids.min() == lids.max():
                # one state (the first position of a walk): its bytes by counting, not sorting
                present = np.flatnonzero(np.bincount(byts[unknown], minlength=256)).tolist()
                pairs = [(int(lids[0]), b) for b in present]
            else:
                # distinct (state, byte) pairs by sorting: np.unique's first call imports
                # numpy.ma (~12 ms, paid by whichever mask came first)
                met = np.sort(flat[unknown])
                met = met[np.concatenate(([True], met[1:] != met[:-1]))]
                pairs = [divmod(f, 256) for f in met.tolist()]
            for lid, b in pairs:
                if table.item(lid, b) == UNKNOWN:  # (an earlier step may have filled its class)
                    lo, hi, code = step(lid, b)
                    table[lid, lo:hi] = code
            self._ensure_rows()  # the steps may have made new states: the next position needs rows
            codes = self.table.ravel().take(flat)
        return codes

    def _finish_in_python(self, ids: IntArray, cur: IntArray, pos: int, parts: _Parts) -> None:
        local = self.local
        trans = local.trans
        first_bytes = local.first_bytes
        token_bytes = self.vocab.token_bytes
        acc: list[int] = []
        p_ids: list[int] = []
        p_off: list[int] = []
        for tid, state in zip(ids.tolist(), cur.tolist(), strict=True):
            data = token_bytes[tid]
            last = len(data) - 1
            for i in range(pos, len(data)):
                b = data[i]
                code = trans[state][b]
                if code is None:
                    # its byte class at once (not the whole row: long tokens touch few bytes), so
                    # the next token's other letter of a pattern's class is a lookup, not a step;
                    # a dead byte is not recorded, so it is told apart before the class is looked up
                    code = local.class_step(state, b)[2] if b in first_bytes(state) else 0
                state = (code >> 1) - 1
                if code & 1:
                    if i == last:
                        acc.append(tid)
                        break
                    p_ids.append(tid)
                    p_off.append(i + 1)
                if state < 0:
                    break
                if i == last:
                    acc.append(tid)
        parts.ids.append(np.asarray(acc, dtype=np.int32))
        if p_ids:
            parts.pending(np.asarray(p_ids, dtype=np.int32), np.asarray(p_off, dtype=np.int32))

    def _accept_loops(
        self, ids: IntArray, cur: IntArray, parts: _Parts, at: int = 1
    ) -> tuple[IntArray, IntArray]:
        """Before byte ``at`` (the second or third): a token whose bytes after its first all lead
        from its state straight back to that state (a string body's ordinary characters) ends
        there, alive — accept it without walking it. Returns the tokens still to walk. (Whether the
        loop can also return into the parent does not matter: pending checks are only for tokens
        not accepted locally.) A suffix walk calls it before the second byte: the bytes left are
        the same, so is the test; before the third, the test asks the second byte too (stricter,
        so still exact)."""
        counts = np.bincount(cur)
        drop = np.zeros(ids.size, dtype=bool)
        local = self.local
        for state in np.flatnonzero(counts >= VECTOR_TAIL).tolist():
            here = np.flatnonzero(cur == state)
            # the tokens' most common next byte first: a state that does not loop on it (a key
            # leaving a known name's first letter) is never asked for its whole row — ~20 steps
            # into states nothing else needs
            probe = int(np.bincount(self._matrix_t[at].take(ids.take(here))).argmax())
            if local.class_step(state, probe)[2] >> 1 != state + 1:
                continue
            loop = self._loop_set(state)
            if loop.bit_count() < 2:
                continue
            inside = here[tail_inside(self._tail_sets, loop, ids.take(here))]
            parts.ids.append(ids.take(inside))
            drop[inside] = True
        if not bitset.nonempty(drop):
            return ids, cur
        return ids[~drop], cur[~drop]

    # -- suffix masks shared between grammars ------------------------------------------------
    def _local_signature(self, lid: int) -> Hashable | None:
        """A grammar-independent name for local state ``lid`` (None if a rule state has none)."""
        if lid in self._local_sigs:
            return self._local_sigs[lid]
        keys = self.local.keys
        out: Hashable | None = None
        sigs = []
        for chain in self.local.chains[lid]:
            sig = tuple(keys.state_signature(rs, self.horizon) for rs in chain)
            if any(part is None for part in sig):
                break
            sigs.append(sig)
        else:
            out = frozenset(sigs)
        self._local_sigs[lid] = out
        return out

    def _suffix_mask(self, state: int, make: bool = True) -> LocalMask | None:
        """The suffix mask of local state ``state`` (None: it has no content signature, or it was
        not made before and ``make`` is false or the state is no loop)."""
        sig = self._local_signature(state)
        if sig is None:
            return None
        got = self.suffix_masks.lookup(sig)
        # only a state that loops (a string body) is worth a walk of every token: it recurs in
        # many grammars and contexts; a pattern's or a bounded string's states rarely do
        if got is None and make and self._loop_set(state):
            got = self.suffix_masks.put(sig, self.vector_walk(state, self._multi_byte_ids, start=1))
        return got

    def _rejected(self, suffix: LocalMask) -> IntArray:
        """The multi-byte tokens that suffix mask ``suffix`` does not accept."""
        if suffix.rejected is None:
            multi = self._multi_byte_ids
            suffix.rejected = multi[~bitset.contains(suffix.accepted, multi)]
        return suffix.rejected

    def _share_suffixes(
        self, ids: IntArray, cur: IntArray, parts: _Parts, make: bool = True
    ) -> tuple[IntArray, IntArray]:
        """After the first byte, tokens that stand in a state with a content signature are decided
        by that state's *suffix mask* — every token's bytes after the first, walked from there —
        computed once per process and vocabulary. So ``[^_p] chars`` and ``[^b] chars`` (two keys
        "other than" known names) share the walk of the free string behind their first byte."""
        counts = np.bincount(cur)
        drop = np.zeros(ids.size, dtype=bool)
        # a suffix mask walks every token: worth it only where most of the vocabulary goes on
        for state in np.flatnonzero(counts >= SUFFIX_MIN_TOKENS).tolist():
            got = self._suffix_mask(state, make)
            if got is None:
                continue
            here = np.flatnonzero(cur == state)
            mine = ids[here]
            parts.ids.append(mine[bitset.contains(got.accepted, mine)])
            if got.pending_ids.size:
                keep = np.isin(got.pending_ids, mine)
                parts.pending(got.pending_ids[keep], got.pending_offsets[keep])
            drop[here] = True
        if not bitset.nonempty(drop):
            return ids, cur
        return ids[~drop], cur[~drop]

    def _first_byte_groups(self, lid: int, parts: _Parts) -> npt.NDArray[np.bool_] | None:
        """Decide the multi-byte tokens whose first byte leads from ``lid`` into a state with a
        content signature by that state's suffix mask, filtered by first byte. Returns the first
        bytes so decided (None: none were)."""
        groups: dict[int, list[int]] = {}
        for lo, hi, code in self.local.classes(lid):
            if code >= 2:  # alive after the byte (possibly also returned: see below)
                groups.setdefault(code, []).extend(range(lo, hi))
        taken: npt.NDArray[np.bool_] | None = None
        first_of = self._first_byte
        for code, bytes_ in groups.items():
            if self.starting_with(frozenset(bytes_)) < SUFFIX_MIN_TOKENS:
                continue
            got = self._suffix_mask((code >> 1) - 1)
            if got is None:
                continue
            sel = byte_mask(bytes_)
            # the suffix mask holds multi-byte tokens only, so empty tokens never slip in
            parts.bits.append(got.accepted & self._group_bits(sel))
            if got.pending_ids.size:
                keep = sel.take(first_of.take(got.pending_ids))
                parts.pending(got.pending_ids[keep], got.pending_offsets[keep])
            if code & 1:
                # the first byte can also end the key: every such token may return after it, but
                # one the suffix mask accepts needs no check (a free string's: all but a few)
                rejected = self._rejected(got)
                returning = rejected[sel.take(first_of.take(rejected))]
                parts.pending(returning, np.ones(returning.size, dtype=np.int32))
            taken = sel if taken is None else taken | sel
        return taken
