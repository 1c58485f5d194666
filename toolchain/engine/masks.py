"""Token masks for a recognizer configuration: which tokens' *whole* byte strings are viable.

Per configuration, the mask is the union over its live stacks (frames) of

* the frame's **local mask** (see ``local.py``): computed once per local key (the NFA states of the
  top ``depth`` frames) by walking the whole vocabulary — numpy over the vocabulary, byte position
  by byte position, dropping dead tokens as it goes, with a dense mirror of the transition table;
* its **pending tokens** (those that return below the local key with bytes left), checked against
  the real stack by a walk of their remainders' trie from the return configuration.

Local keys are as coarse as exactness allows, because a cold key costs a walk of the vocabulary:

* the top frames are named up to the longest token (``horizon``): the copies of an unrolled
  ``char{0,1024}`` that are more than a token away from either end are one key;
* near the end of such a repetition the mask is computed per band of token lengths, each band
  keyed at its own horizon, so short tokens still share and only long ones see the end;
* a key whose rule states have content signatures (``CompiledGrammar.state_signature``) means
  the same in every grammar: its mask is shared by every engine on the vocabulary (a string
  body is walked once per process, not once per schema).

Results are cached per configuration id (exact for every request that reaches it) and local masks
per key. Special tokens never appear; EOS is the matcher's business.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from toolchain.engine import bitset
from toolchain.engine.bitset import Words
from toolchain.engine.local import LocalAutomaton
from toolchain.engine.trie import TokenTrie
from toolchain.engine.vocab import TokenVocabulary
from toolchain.recognizer.compiled import BOTTOM, DEAD, Chain, CompiledGrammar

UNKNOWN = -1
# At or below this many tokens with an allowed first byte, a trie walk beats numpy over the
# vocabulary (measured on the JSONSchemaBench replay: 300 and 5000 were slower overall).
TRIE_MAX_TOKENS = 1500
# Below this many surviving tokens the numpy walk hands over to per-token dict lookups.
VECTOR_TAIL = 256
# Top frames in a local key, not counting leaf rules (a character, an escape). Measured on the
# JSONSchemaBench mask replay: 1 → 8.6 s total, 2 → 12.6 s, 3 → 11.0 s (before band/shape keys).
DEFAULT_DEPTH = 1

# Token length bands (bytes): near the end of ``x{0,n}`` a band's mask depends only on whether
# the end is within its upper bound, so short-token bands are shared by most copies.
BAND_UPPERS = (2, 4, 6, 8, 11, 16)
SHARED_MAX = 4096  # local (and suffix) masks kept per vocabulary for sharing between grammars
SUFFIX_MIN_TOKENS = 8192  # tokens in one state after their first byte, for a shared suffix mask

IntArray = npt.NDArray[np.int32]


@dataclass
class LocalMask:
    accepted: IntArray  # sorted token ids valid in every context below the key
    pending_ids: IntArray  # tokens that return into the abstract parent with bytes left …
    pending_offsets: IntArray  # … after this many bytes
    pending_trie: TokenTrie | None = None  # their remainders, built on first use
    bits: Words | None = None  # ``accepted`` as a bitset, built on first use


class MaskComputer:
    """Computes and caches allowed-token sets for one (grammar, vocabulary) pair."""

    def __init__(
        self,
        compiled: CompiledGrammar,
        vocab: TokenVocabulary,
        depth: int = DEFAULT_DEPTH,
    ) -> None:
        self.cg = compiled
        self.vocab = vocab
        self.depth = depth
        self.horizon = int(vocab.lengths.max()) if vocab.size else 0
        # token length bands (upper bounds, bytes) for masks near the end of a repetition
        self.band_uppers = [u for u in BAND_UPPERS if u < self.horizon] + [self.horizon]
        self.local = LocalAutomaton(compiled, self.horizon)
        self.cache: dict[int, Words] = {}  # per configuration: allowed tokens
        self.local_masks: dict[Hashable, LocalMask] = {}
        # masks of grammar-independent keys, shared by every engine on this vocabulary
        self.shared_masks = _SHARED.setdefault(vocab.fingerprint, {})
        self.suffix_masks = _SUFFIXES.setdefault(vocab.fingerprint, {})
        self._local_sigs: dict[int, Hashable | None] = {}
        self._chain_lids: dict[Chain, int] = {}
        self._keys: dict[tuple[Chain, bool, int | None, bool], tuple[Hashable, bool]] = {}
        self.hits = 0
        self.misses = 0
        self.local_misses = 0
        self._table: npt.NDArray[np.int32] = np.full((64, 256), UNKNOWN, dtype=np.int32)
        self._ids: IntArray = np.nonzero(vocab.lengths > 0)[0].astype(np.int32)
        lower = 0
        self._band_ids: list[IntArray] = []
        for upper in self.band_uppers:
            in_band = (vocab.lengths[self._ids] > lower) & (vocab.lengths[self._ids] <= upper)
            self._band_ids.append(self._ids[in_band])
            lower = upper
        self._matrix_t = np.ascontiguousarray(vocab.byte_matrix.T)  # position-major: rows gather fast
        self._tail_sets = tail_byte_sets(vocab)
        self._multi_byte_ids: IntArray = self._ids[vocab.lengths[self._ids] > 1]
        self._first_byte: npt.NDArray[np.uint8] = np.ascontiguousarray(vocab.byte_matrix[:, 0])
        firsts = vocab.byte_matrix[self._ids, 0]
        self._first_counts: list[int] = np.bincount(firsts, minlength=256).tolist()
        self._return_configs: dict[int, int] = {}
        self._trie: TokenTrie | None = None

    def state(self) -> dict[str, object]:
        return {
            "local": self.local,
            "cache": self.cache,
            "local_masks": self.local_masks,
            "table": self._table,
            "return_configs": self._return_configs,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.local = state["local"]
        self.cache = state["cache"]
        self.local_masks = state["local_masks"]
        self._table = state["table"]
        self._return_configs = state["return_configs"]

    # -- per configuration -------------------------------------------------------------------
    def allowed_bits(self, config: int) -> Words:
        """The tokens allowed in ``config`` as a read-only bitset (EOS and special tokens excluded)."""
        hit = self.cache.get(config)
        if hit is not None:
            self.hits += 1
            return hit
        self.misses += 1
        with _collector_paused():
            out = self._compute(config)
        out.setflags(write=False)
        self.cache[config] = out
        return out

    def allowed(self, config: int) -> IntArray:
        """Sorted token ids allowed in ``config`` (EOS and special tokens excluded)."""
        return bitset.unpack(self.allowed_bits(config), self.vocab.size)

    def _compute(self, config: int) -> Words:
        """The union of the config's local masks (word-wise ORs) and its checked pending tokens."""
        words: Words | None = None
        owned = False  # whether ``words`` is a fresh array (else a local mask's own bits)
        checked: list[IntArray] = []
        for frame in self.cg.config_frames[config]:
            chain, parent = self._top(frame)
            bottom = parent == BOTTOM
            if self._banded(chain):
                locals_ = [
                    self._local_mask(*self._key(chain, bottom, band), chain, band)
                    for band in range(len(self.band_uppers))
                ]
            else:
                # a cheap (trie) walk is not worth the content signature that would share it
                signed = not self._cheap(chain)
                locals_ = [self._local_mask(*self._key(chain, bottom, None, signed), chain, None)]
            for local in locals_:
                if local.accepted.size:
                    bits = local.bits
                    if bits is None:
                        bits = local.bits = bitset.pack(local.accepted, self.vocab.size)
                        bits.setflags(write=False)
                    if words is None:
                        words = bits
                    else:
                        if not owned:
                            words, owned = words.copy(), True
                        words |= bits
                if local.pending_ids.size:
                    found = self._check_pending(local, parent)
                    if found.size:
                        checked.append(found)
        if words is None:
            words, owned = np.zeros(bitset.num_words(self.vocab.size), dtype=np.uint32), True
        if checked:
            if not owned:
                words = words.copy()
            bitset.add(words, np.concatenate(checked) if len(checked) > 1 else checked[0], self.vocab.size)
        return words

    def _top(self, frame: int) -> tuple[Chain, int]:
        """The top rule states of a stack (``depth`` of them, not counting leaf rules such as a
        character, which return within a few bytes) and the frame below them."""
        cg = self.cg
        states: list[int] = []
        f = frame
        counted = 0
        while f != BOTTOM and counted < self.depth:
            rs = cg.frame_state(f)
            states.append(rs)
            counted += not cg.is_leaf(rs)
            f = cg.frame_parent(f)
        return tuple(states), f

    def _key(
        self, chain: Chain, bottom: bool, band: int | None, signed: bool = True
    ) -> tuple[Hashable, bool]:
        """The local key of ``chain`` for the tokens of length band ``band`` (None: every token),
        and whether it means the same in every grammar (then its mask is shared with every engine
        on this vocabulary): by content signature when every state has one, else by this
        grammar's canonical ids. The key names the band, not just its horizon: the last band
        and the whole vocabulary share a horizon but not their tokens."""
        memo = (chain, bottom, band, signed)
        got = self._keys.get(memo)
        if got is None:
            got = self._keys[memo] = self._key_uncached(chain, bottom, band, signed)
        return got

    def _key_uncached(
        self, chain: Chain, bottom: bool, band: int | None, signed: bool
    ) -> tuple[Hashable, bool]:
        cg = self.cg
        horizon = self.horizon if band is None else self.band_uppers[band]
        if signed:
            sigs = [cg.state_signature(rs, horizon) for rs in chain]
            if all(sig is not None for sig in sigs):
                return (band, tuple(sigs), bottom), True
        return (band, tuple(cg.canonical_state(rs, horizon) for rs in chain), bottom), False

    def _banded(self, chain: Chain) -> bool:
        """Whether ``chain`` sits within a token's reach of the end of an unrolled repetition
        (``char{0,32}``): there short tokens see the same grammar as in earlier copies and only
        long ones see the end, so the mask is computed per band of token lengths, each band keyed
        at its own horizon and so shared as far as it can be."""
        cg = self.cg
        for rs in chain:
            left = cg.near_end(rs)
            if left is not None and left <= self.horizon:
                return True
        return False

    def _return_config(self, parent: int) -> int:
        """The configuration right after control returns into frame ``parent``."""
        rc = self._return_configs.get(parent)
        if rc is None:
            if parent == BOTTOM:
                rc = self.cg.config_of(frozenset(), True)
            else:
                frames, accepting = self.cg.return_into(parent)
                rc = self.cg.config_of(frozenset(frames), accepting)
            self._return_configs[parent] = rc
        return rc

    def _check_pending(self, local: LocalMask, parent: int) -> IntArray:
        if local.pending_trie is None:
            tb = self.vocab.token_bytes
            pairs = zip(local.pending_ids.tolist(), local.pending_offsets.tolist(), strict=True)
            local.pending_trie = TokenTrie.from_pairs((tid, tb[tid][off:]) for tid, off in pairs)
        start = self._return_config(parent)
        return _trie_walk(self.cg, local.pending_trie, start)

    # -- per local key -----------------------------------------------------------------------
    def _lid(self, chain: Chain) -> int:
        lid = self._chain_lids.get(chain)
        if lid is None:
            lid = self._chain_lids[chain] = self.local.intern(frozenset([self.local.quotient(chain)]))
        return lid

    def _cheap(self, chain: Chain) -> bool:
        """Whether the local mask of ``chain`` is a trie walk: few tokens start with a byte it allows."""
        return self._starting_with(self.local.first_bytes(self._lid(chain))) <= TRIE_MAX_TOKENS

    def _local_mask(self, key: Hashable, shared: bool, chain: Chain, band: int | None) -> LocalMask:
        store = self.shared_masks if shared else self.local_masks
        got = store.get(key)
        if got is None:
            self.local_misses += 1
            lid = self._lid(chain)
            if band is not None:
                got = self._vector_walk(lid, self._band_ids[band])
            elif self._cheap(chain):
                got = self._trie_local_walk(lid)
            else:
                got = self._vector_walk(lid, self._ids)
            if shared and len(store) >= SHARED_MAX:
                del store[next(iter(store))]  # oldest first
            store[key] = got
        return got

    def _starting_with(self, first_bytes: frozenset[int]) -> int:
        counts = self._first_counts
        return sum(counts[b] for b in first_bytes)

    def _trie_local_walk(self, lid: int) -> LocalMask:
        """The local mask by depth-first walk of the vocabulary trie (restrictive keys)."""
        if self._trie is None:
            self._trie = vocabulary_trie(self.vocab)
        children = self._trie.children
        ends = self._trie.ends
        wide = self._trie.wide
        local = self.local
        accepted: list[int] = []
        pending: list[tuple[int, int]] = []
        stack = [(0, lid, 0)]
        class_step = local.class_step
        while stack:
            node, cur, depth = stack.pop()
            row = local.trans[cur]
            kids = children[node]
            by_byte = wide.get(node)
            if by_byte is not None:
                allowed = local.first_bytes(cur)
                if len(allowed) < len(kids):  # the root under a key: a few bytes of 256
                    kids = tuple((b, by_byte[b]) for b in allowed if b in by_byte)
            for b, child in kids:
                code = row.get(b)
                if code is None:
                    code = class_step(cur, b)[2]
                nxt = (code >> 1) - 1
                returned = code & 1
                if (nxt >= 0 or returned) and ends[child]:
                    accepted.extend(ends[child])
                if returned and children[child]:
                    # every longer token below this node continues in the real context
                    sub = [(child, depth + 1)]
                    while sub:
                        n, d = sub.pop()
                        for _, c in children[n]:
                            pending.extend((t, depth + 1) for t in ends[c])
                            sub.append((c, d + 1))
                if nxt >= 0 and children[child]:
                    stack.append((child, nxt, depth + 1))
        acc = np.unique(np.asarray(accepted, dtype=np.int32))
        if pending:
            in_acc = np.zeros(self.vocab.size, dtype=bool)
            in_acc[acc] = True
            p_ids = np.asarray([t for t, _ in pending], dtype=np.int32)
            p_off = np.asarray([o for _, o in pending], dtype=np.int32)
            keep = ~in_acc[p_ids]
            # a token may return at several offsets (ambiguity): each is checked, any one suffices
            p_ids, p_off = p_ids[keep], p_off[keep]
        else:
            p_ids = p_off = np.zeros(0, dtype=np.int32)
        return LocalMask(acc.astype(np.int32), p_ids.astype(np.int32), p_off.astype(np.int32))

    def _ensure_rows(self) -> None:
        need = self.local.num_states
        if need > self._table.shape[0]:
            grown = np.full((max(need, 2 * self._table.shape[0]), 256), UNKNOWN, dtype=np.int32)
            grown[: self._table.shape[0]] = self._table
            self._table = grown

    def _codes(self, cur: IntArray, byts: npt.NDArray[np.uint8]) -> IntArray:
        flat = cur.astype(np.int64) * 256 + byts
        codes: IntArray = self._table.ravel()[flat]
        unknown = codes == UNKNOWN
        if unknown.any():
            # one step per byte class met (the class shares it), not per byte nor per whole row
            table = self._table
            step = self.local.class_step
            lids = cur[unknown]
            if lids.size > 256 and lids.min() == lids.max():
                # one state (the first position of a walk): its bytes by counting, not sorting
                present = np.flatnonzero(np.bincount(byts[unknown], minlength=256)).tolist()
                pairs = [(int(lids[0]), b) for b in present]
            else:
                pairs = [divmod(f, 256) for f in np.unique(flat[unknown]).tolist()]
            for lid, b in pairs:
                if table[lid, b] == UNKNOWN:
                    lo, hi, code = step(lid, b)
                    table[lid, lo:hi] = code
            self._ensure_rows()  # the steps may have made new states: the next position needs rows
            codes = self._table.ravel()[flat]
        return codes

    def _finish_in_python(
        self,
        ids: IntArray,
        cur: IntArray,
        pos: int,
        accepted: list[IntArray],
        pend_ids: list[IntArray],
        pend_off: list[IntArray],
    ) -> None:
        local = self.local
        trans = local.trans
        token_bytes = self.vocab.token_bytes
        acc: list[int] = []
        p_ids: list[int] = []
        p_off: list[int] = []
        for tid, state in zip(ids.tolist(), cur.tolist(), strict=True):
            data = token_bytes[tid]
            last = len(data) - 1
            for i in range(pos, len(data)):
                b = data[i]
                code = trans[state].get(b)
                if code is None:
                    code = local.step(state, b)  # long tokens touch few bytes: no whole row
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
        accepted.append(np.asarray(acc, dtype=np.int32))
        if p_ids:
            pend_ids.append(np.asarray(p_ids, dtype=np.int32))
            pend_off.append(np.asarray(p_off, dtype=np.int32))

    def _accept_loops(
        self, ids: IntArray, cur: IntArray, accepted: list[IntArray]
    ) -> tuple[IntArray, IntArray]:
        """After the first byte: a token whose remaining bytes all lead from its state straight back
        to that state (a string body's ordinary characters) ends there, alive — accept it without
        walking it. Returns the tokens still to walk. (Whether the loop can also return into the
        parent does not matter: pending checks are only for tokens not accepted locally.) A suffix
        walk calls it before the second byte: the bytes left are the same, so is the test."""
        counts = np.bincount(cur)
        drop = np.zeros(ids.size, dtype=bool)
        for state in np.flatnonzero(counts >= VECTOR_TAIL).tolist():
            stay = (state + 1) * 2
            # with or without a possible return on the way: a token that ends alive is accepted,
            # and an accepted token needs no pending check
            loop = [b for b, code in self.local.row(state).items() if code >> 1 == stay >> 1]
            if len(loop) < 2:
                continue
            outside = np.ones(256, dtype=bool)
            outside[loop] = False
            words = np.packbits(outside, bitorder="little").view(np.uint64).tolist()
            here = np.flatnonzero(cur == state)
            tids = ids[here]
            cols = self._tail_sets
            hit = cols[0][tids] & np.uint64(words[0])
            for w in range(1, 4):
                hit |= cols[w][tids] & np.uint64(words[w])
            inside = here[hit == 0]
            accepted.append(ids[inside])
            drop[inside] = True
        if not drop.any():
            return ids, cur
        return ids[~drop], cur[~drop]

    def _local_signature(self, lid: int) -> Hashable | None:
        """A grammar-independent name for local state ``lid`` (None if a rule state has none)."""
        if lid in self._local_sigs:
            return self._local_sigs[lid]
        cg = self.cg
        out: Hashable | None = None
        sigs = []
        for chain in self.local.chains[lid]:
            sig = tuple(cg.state_signature(rs, self.horizon) for rs in chain)
            if any(part is None for part in sig):
                break
            sigs.append(sig)
        else:
            out = frozenset(sigs)
        self._local_sigs[lid] = out
        return out

    def _share_suffixes(
        self,
        ids: IntArray,
        cur: IntArray,
        accepted: list[IntArray],
        pend_ids: list[IntArray],
        pend_off: list[IntArray],
        make: bool = True,
    ) -> tuple[IntArray, IntArray]:
        """After the first byte, tokens that stand in a state with a content signature are decided
        by that state's *suffix mask* — every token's bytes after the first, walked from there —
        computed once per process and vocabulary. So ``[^_p] chars`` and ``[^b] chars`` (two keys
        "other than" known names) share the walk of the free string behind their first byte."""
        counts = np.bincount(cur)
        drop = np.zeros(ids.size, dtype=bool)
        # a suffix mask walks every token: worth it only where most of the vocabulary goes on
        for state in np.flatnonzero(counts >= SUFFIX_MIN_TOKENS).tolist():
            sig = self._local_signature(state)
            if sig is None:
                continue
            got = self.suffix_masks.get(sig)
            if got is None:
                if not make:
                    continue
                got = self._vector_walk(state, self._multi_byte_ids, start=1)
                if len(self.suffix_masks) >= SHARED_MAX:
                    del self.suffix_masks[next(iter(self.suffix_masks))]
                self.suffix_masks[sig] = got
            here = np.flatnonzero(cur == state)
            mine = ids[here]
            if mine.size * 16 < got.accepted.size:
                # a few tokens: look them up (sorted ids) instead of scattering over the vocabulary
                accepted.append(_members(got.accepted, mine))
            else:
                member = np.zeros(self.vocab.size, dtype=bool)
                member[mine] = True
                accepted.append(got.accepted[member[got.accepted]])
            if got.pending_ids.size:
                keep = np.isin(got.pending_ids, mine)
                pend_ids.append(got.pending_ids[keep])
                pend_off.append(got.pending_offsets[keep])
            drop[here] = True
        if not drop.any():
            return ids, cur
        return ids[~drop], cur[~drop]

    def _first_byte_groups(
        self,
        lid: int,
        accepted: list[IntArray],
        pend_ids: list[IntArray],
        pend_off: list[IntArray],
    ) -> npt.NDArray[np.bool_] | None:
        """Decide the multi-byte tokens whose first byte leads from ``lid`` into a state with a
        content signature by that state's suffix mask, filtered by
        first byte: ``[^az] chars`` (a key other than known names) is the free string's suffix
        mask minus tokens starting with ``a`` or ``z`` — no per-token step at all. Returns the
        first bytes so decided (None: none were)."""
        groups: dict[int, list[int]] = {}
        for b, code in self.local.row(lid).items():
            if code >= 2:  # alive after the byte (possibly also returned: see below)
                groups.setdefault(code, []).append(b)
        taken: npt.NDArray[np.bool_] | None = None
        for code, bytes_ in groups.items():
            state = (code >> 1) - 1
            if self._starting_with(frozenset(bytes_)) < SUFFIX_MIN_TOKENS:
                continue
            sig = self._local_signature(state)
            if sig is None:
                continue
            got = self.suffix_masks.get(sig)
            if got is None:
                got = self._vector_walk(state, self._multi_byte_ids, start=1)
                if len(self.suffix_masks) >= SHARED_MAX:
                    del self.suffix_masks[next(iter(self.suffix_masks))]
                self.suffix_masks[sig] = got
            sel = np.zeros(256, dtype=bool)
            sel[bytes_] = True
            first_of = self._first_byte
            accepted.append(got.accepted[sel[first_of[got.accepted]]])
            if got.pending_ids.size:
                keep = sel[first_of[got.pending_ids]]
                pend_ids.append(got.pending_ids[keep])
                pend_off.append(got.pending_offsets[keep])
            if code & 1:
                # the first byte can also end the key: every such token may return after it
                # (those accepted locally are dropped from the pending ones at the end)
                multi = self._multi_byte_ids
                returning = multi[sel[first_of[multi]]]
                pend_ids.append(returning)
                pend_off.append(np.ones(returning.size, dtype=np.int32))
            taken = sel if taken is None else taken | sel
        return taken

    def _vector_walk(self, lid: int, candidates: IntArray, start: int = 0) -> LocalMask:
        """The local mask of ``lid`` over ``candidates`` by numpy, position by position; with
        ``start=1`` the tokens' bytes after their first one (a suffix mask, see above)."""
        self._ensure_rows()
        first = np.zeros(256, dtype=bool)
        first[list(self.local.first_bytes(lid))] = True
        matrix = self._matrix_t
        lengths = self.vocab.lengths
        accepted: list[IntArray] = []
        pend_ids: list[IntArray] = []
        pend_off: list[IntArray] = []
        if start == 0 and candidates is self._ids:
            # first bytes that lead into a shared state take its suffix mask, without a walk
            taken = self._first_byte_groups(lid, accepted, pend_ids, pend_off)
            if taken is not None:
                first &= ~taken
                first_of = matrix[0, candidates]
                single = lengths[candidates] == 1
                # one-byte tokens of those first bytes still end here (walked below)
                ids = candidates[first[first_of] | (taken[first_of] & single)]
            else:
                ids = candidates[first[matrix[start, candidates]]]
        else:
            ids = candidates[first[matrix[start, candidates]]]
        cur = np.full(ids.shape[0], lid, dtype=np.int32)
        pos = start
        if start == 1 and ids.size > VECTOR_TAIL:
            ids, cur = self._accept_loops(ids, cur, accepted)
        while ids.size:
            codes = self._codes(cur, matrix[pos, ids])
            nxt = (codes >> 1) - 1
            returned = (codes & 1).astype(bool)
            alive = nxt >= 0
            ended = lengths[ids] == pos + 1
            # a token that returns exactly at its last byte is valid in every context: returning
            # is always possible (grammars are pruned, so every parent continuation exists)
            accepted.append(ids[(alive | returned) & ended])
            leftover = returned & ~ended
            if leftover.any():
                pend_ids.append(ids[leftover])
                pend_off.append(np.full(int(leftover.sum()), pos + 1, dtype=np.int32))
            keep = alive & ~ended
            ids, cur = ids[keep], nxt[keep].astype(np.int32)
            if pos == 0 and ids.size > VECTOR_TAIL:
                # a band walk only uses suffix masks made before: near a repetition's end, the
                # states are per position and their suffix masks (whole-vocabulary walks) rarely
                # serve twice
                make = candidates is self._ids
                ids, cur = self._share_suffixes(ids, cur, accepted, pend_ids, pend_off, make)
                ids, cur = self._accept_loops(ids, cur, accepted)
            pos += 1
            if 0 < ids.size <= VECTOR_TAIL:
                # the long tail (a few long tokens over many positions): per-op numpy overhead
                # dominates there, so finish each token with dict lookups
                self._finish_in_python(ids, cur, pos, accepted, pend_ids, pend_off)
                break
        # each token ends at exactly one position, so the parts are disjoint: sort, no unique
        acc = np.sort(np.concatenate(accepted)) if accepted else np.zeros(0, np.int32)
        if pend_ids:
            p_ids = np.concatenate(pend_ids)
            p_off = np.concatenate(pend_off)
            # a token accepted locally needs no context check
            in_acc = np.zeros(self.vocab.size, dtype=bool)
            in_acc[acc] = True
            keep = ~in_acc[p_ids]
            p_ids, p_off = p_ids[keep], p_off[keep]
        else:
            p_ids = p_off = np.zeros(0, dtype=np.int32)
        return LocalMask(acc.astype(np.int32), p_ids.astype(np.int32), p_off.astype(np.int32))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a cold mask is computed, and afterwards the objects alive
    then (the engine's memo tables, mostly) move to the collector's permanent generation
    (``gc.freeze``): they live as long as the engine anyway, and full collections scanning
    millions of them cost up to ~0.4 s each (measured on the JSONSchemaBench replay: the replay
    total drops by about a third). Side effect, process-wide: cyclic garbage that exists at
    that moment is never collected; objects freed by reference counting are unaffected."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


_TRIES: dict[str, TokenTrie] = {}
_TAIL_SETS: dict[str, npt.NDArray[np.uint64]] = {}


def _members(sorted_ids: IntArray, query: IntArray) -> IntArray:
    """The ids of ``query`` that occur in ``sorted_ids`` (binary search: ``query`` is small)."""
    if not sorted_ids.size:
        return sorted_ids
    at = np.minimum(np.searchsorted(sorted_ids, query), sorted_ids.size - 1)
    found: IntArray = query[sorted_ids[at] == query]
    return found


def forget_shared(vocab: TokenVocabulary) -> None:
    """Drop the masks shared between grammars on ``vocab`` (benchmarks of cold engines)."""
    _SHARED.get(vocab.fingerprint, {}).clear()
    _SUFFIXES.get(vocab.fingerprint, {}).clear()


def tail_byte_sets(vocab: TokenVocabulary) -> npt.NDArray[np.uint64]:
    """Per token, the set of bytes after its first one, as a 256-bit mask: four uint64 rows
    (bytes 0–63, 64–127, …), one entry per token."""
    got = _TAIL_SETS.get(vocab.fingerprint)
    if got is None:
        tails = [b[1:] for b in vocab.token_bytes]
        present = np.zeros((vocab.size, 256), dtype=bool)
        rows = np.repeat(np.arange(vocab.size), [len(t) for t in tails])
        present[rows, np.frombuffer(b"".join(tails), dtype=np.uint8)] = True
        # column-major: one uint64 column per 64 bytes, gathered one at a time
        got = np.ascontiguousarray(np.packbits(present, axis=1, bitorder="little").view(np.uint64).T)
        _TAIL_SETS[vocab.fingerprint] = got
    return got


_SHARED: dict[str, dict[Hashable, LocalMask]] = {}
_SUFFIXES: dict[str, dict[Hashable, LocalMask]] = {}


def vocabulary_trie(vocab: TokenVocabulary) -> TokenTrie:
    """One trie per tokenizer (by fingerprint), shared by every grammar's engine (~0.3 s to build)."""
    trie = _TRIES.get(vocab.fingerprint)
    if trie is None:
        trie = _TRIES[vocab.fingerprint] = TokenTrie(vocab.token_bytes, (vocab.lengths > 0).tolist())
    return trie


def _trie_walk(cg: CompiledGrammar, trie: TokenTrie, config: int) -> IntArray:
    """Token ids of ``trie`` whose bytes are viable from ``config`` (depth-first, pruned)."""
    trans = cg.trans
    step = cg.step
    children = trie.children
    ends = trie.ends
    out: list[int] = []
    stack = [(0, config)]
    while stack:
        node, cfg = stack.pop()
        row = trans[cfg]
        for b, child in children[node]:
            nxt = row.get(b)
            if nxt is None:
                nxt = step(cfg, b)
            if nxt == DEAD:
                continue
            if ends[child]:
                out.extend(ends[child])
            if children[child]:
                stack.append((child, nxt))
    out.sort()
    return np.asarray(out, dtype=np.int32)
