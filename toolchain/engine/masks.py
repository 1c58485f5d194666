"""Token masks for a recognizer configuration: which tokens' *whole* byte strings are viable.

Per configuration, the mask is the union over its live stacks (frames) of

* the frame's **local mask** (see ``local.py``): computed once per local key (the NFA states of the
  top ``depth`` frames) by a walk of the vocabulary (``local_masks.py``: the trie for restrictive
  states, numpy over the vocabulary otherwise);
* its **pending tokens** (those that return below the local key with bytes left), checked against
  the real stack from the return configuration: those whose next byte it allows, then each
  remainder through the memoised transitions.

Local keys are as coarse as exactness allows, because a cold key costs a walk of the vocabulary:

* the top frames are named up to the longest token (``horizon``): the copies of an unrolled
  ``char{0,1024}`` that are more than a token away from either end are one key;
* near the end of such a repetition the mask is computed per band of token lengths, each band
  keyed at its own horizon, so short tokens still share and only long ones see the end (and
  within a band, tokens made of a *run*'s bytes — a string's ordinary characters — are decided
  by their length, ``runs.py``);
* a key whose rule states have content signatures (``StateKeys.state_signature``) means
  the same in every grammar: its mask is shared by every engine on the vocabulary (a string
  body is walked once per process, not once per schema).

Results are bitsets (``bitset.py``, the peers' layout) cached per configuration id (exact for
every request that reaches it) and local masks per key: a configuration's mask is a few word-wise
ORs of its local masks plus its checked pending tokens. Special tokens never appear; EOS is the
matcher's business.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable

import numpy as np
import numpy.typing as npt

from gramwright.engine import bitset
from gramwright.engine.bitset import IntArray, Words
from gramwright.engine.byte_sets import byte_mask
from gramwright.engine.collector import cold_work
from gramwright.engine.keys import StateKeys
from gramwright.engine.local import LocalAutomaton
from gramwright.engine.local_masks import LocalMask, LocalWalker
from gramwright.engine.tables import Bands
from gramwright.engine.trie import TokenTrie
from gramwright.engine.vocab import TokenVocabulary
from gramwright.recognizer.compiled import BOTTOM, DEAD, Chain, CompiledGrammar

# At or below this many tokens with an allowed first byte, a trie walk beats numpy over the
# vocabulary: fewer tokens favour the trie's shared prefixes, more favour numpy's vector walk; on
# the JSONSchemaBench replay both 300 and 5,000 were slower overall.
TRIE_MAX_TOKENS = 1500
# … and so does it from a state allowing at most this many bytes, however many tokens start
# with them (a key's next letters, a pattern's class): a trie walk only goes down the prefixes
# the state lets through and accepts a looping subtree whole, where numpy walks every token to
# its end and builds each state it meets. Wider states are string bodies and a free key's body,
# whose first bytes lead into a shared state with a stored suffix mask (the vector walk's
# shortcut); walking those by trie costs far more (Kubernetes and Snowplow at 100 and above), so
# the bound sits where the narrow states end (docs/dev/benchmarks.md has the counts).
TRIE_MAX_BYTES = 64
# Top frames in a local key, not counting leaf rules (a character, an escape). A deeper key
# tells more states apart and so shares fewer masks: on the JSONSchemaBench replay 2 and 3 cost
# more time in all than 1.
DEFAULT_DEPTH = 1

# Token length bands (bytes): near the end of ``x{0,n}`` a band's mask depends only on whether
# the end is within its upper bound, so short-token bands are shared by most copies. Each band is
# a key to name (a signature walk) and a mask to look up and OR at every new position, so fewer
# bands win once walks are shared or stored: one band at 8 bytes beat six finer ones, and (4, 16)
# or (16,), on the long replay and in fresh processes alike.
BAND_UPPERS = (8,)
# A trie walk's state is named by content (and so shared between grammars and stored) when it
# starts on this many bytes with this many tokens behind them: any character past ASCII does.
SIGN_MIN_BYTES = 16
SIGN_MIN_TOKENS = 256
# A band of at most this many tokens is walked through its own trie (shared prefixes), not numpy.
BAND_TRIE_MAX = 1000
_NONE = np.zeros(0, dtype=np.int32)
_LITERAL = ("literal",)  # the key of a literal's prefix mask (never looked up: it has no pending)
GRAMMAR_NAMESPACE = "grammar"  # the on-disk store's name space for one grammar's own masks
# under a grammar's hash, the entry that says the store holds masks of that grammar: a grammar
# never stored (every schema's first run) skips the store for its own keys after one lookup
GRAMMAR_MARK = "stored"
# … and under its rule names, a mark asked first: the grammar's hash is a repr of its whole IR
# (3.5 ms for a 90-member object, paid by a first mask), its names' digest a few µs. Names say
# nothing of the rules' bodies, so a hit there only sends the lookup on to the hash's mark.
NAMES_MARK = "names"


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
        self.keys = StateKeys(compiled)
        self.local = LocalAutomaton(compiled, self.horizon, self.keys)
        self.walker = LocalWalker(self.local, vocab)
        self.cache: dict[int, Words] = {}  # per configuration: allowed tokens
        self.local_masks: dict[Hashable, LocalMask] = {}
        # masks of grammar-independent keys, shared by every engine on this vocabulary
        self.shared_masks = vocab.tables.shared_masks
        self._chain_lids: dict[Chain, int] = {}
        self._keys: dict[tuple[Chain, bool, int | None, bool], tuple[Hashable, bool]] = {}
        # a grammar-own key → what it was made from (``_stable`` names it on disk)
        self._stable_of: dict[Hashable, tuple[int | None, Chain, int, bool]] = {}
        self.hits = 0
        self.misses = 0
        self.local_misses = 0
        self.empty: set[int] = set()  # configurations whose mask (without EOS) is empty
        self._band_ids, self._band_tries = _bands(vocab, self.walker.ids, self.band_uppers)
        self._return_configs: dict[int, int] = {}
        self._cheap_lids: dict[int, bool] = {}
        self._pending: dict[tuple[Hashable, int], IntArray] = {}  # checked pending tokens
        # … and by content: (return configuration, digest of the ids and offsets) → viable ids
        self._pending_by_content: dict[tuple[int, bytes], IntArray] = {}
        self._allowed: dict[int, npt.NDArray[np.bool_]] = {}  # per return configuration
        self._frame_parts: dict[int, tuple[tuple[Words | None, IntArray | None], ...]] = {}
        self._in_store: bool | None = None  # whether the store held this grammar's own masks
        # own masks computed since the last ``publish`` (named with the grammar's hash only then:
        # at the end of a run, not in a mask's time)
        self._unpublished: dict[Hashable, LocalMask] = {}

    # -- per configuration -------------------------------------------------------------------
    def allowed_bits(self, config: int) -> Words:
        """The tokens allowed in ``config`` as a read-only bitset (EOS and special tokens excluded)."""
        hit = self.cache.get(config)
        if hit is not None:
            self.hits += 1
            return hit
        self.misses += 1
        with cold_work():
            out = self._compute(config)
        return self.store(config, out)

    def allowed(self, config: int) -> IntArray:
        """Sorted token ids allowed in ``config`` (EOS and special tokens excluded)."""
        return bitset.unpack(self.allowed_bits(config), self.vocab.size)

    def _compute(self, config: int) -> Words:
        """The union of the config's local masks (word-wise ORs) and its checked pending tokens
        (``parts``): one of its local masks itself where that is all it holds."""
        bits, checked = self.parts(config)
        if len(bits) == 1 and not checked:
            return bits[0]
        return bitset.union(bits, checked, self.vocab.size)

    def parts(self, config: int) -> tuple[list[Words], list[IntArray]]:
        """What the mask of ``config`` is the union of: its frames' local masks (each once: one
        mask is shared by many keys) and their checked pending tokens. Each stack top is its own
        local key, even where dozens hang under one object frame (the next-member keys after a
        member of a wide object): walked as one state they would be a new key at every member,
        while one key per member's key is reused until it is passed."""
        bits: list[Words] = []
        checked: list[IntArray] = []
        frame_parts = self._frame_parts
        ored: set[int] = set()  # local masks already in
        for frame in self.cg.config_frames[config]:
            got = frame_parts.get(frame)
            if got is None:
                got = frame_parts[frame] = self._frame_part(frame)
            for words, found in got:
                if words is not None and id(words) not in ored:
                    ored.add(id(words))
                    bits.append(words)
                if found is not None:
                    checked.append(found)
        return bits, checked

    def store(self, config: int, words: Words) -> Words:
        """Keep ``words``, the mask of ``config`` computed outside ``allowed_bits`` (a batch's
        rows, filled together from ``parts``), as ``allowed_bits`` keeps its own."""
        words.setflags(write=False)
        if not bitset.nonempty(words):
            self.empty.add(config)
        self.cache[config] = words
        return words

    def _frame_part(self, frame: int) -> tuple[tuple[Words | None, IntArray | None], ...]:
        """What one frame adds to the masks of the configurations holding it: its local masks'
        accepted bits and its checked pending tokens (None where empty). Memoised per frame: the
        next-member frames of a wide object recur in config after config (Snowplow: 2,382 frames
        met in 343 new configurations, 721 distinct), and each visit re-derived its stack top,
        local keys and pending memo."""
        chain, parent = self._top(frame)
        out = []
        for key, local in self._chain_masks(chain, parent == BOTTOM):
            found = self._check_pending(key, local, parent) if local.pending_ids.size else None
            out.append(
                (
                    local.accepted if local.any_accepted else None,
                    found if found is not None and found.size else None,
                )
            )
        return tuple(out)

    def _chain_masks(self, chain: Chain, bottom: bool) -> list[tuple[Hashable, LocalMask]]:
        """The local masks of one stack's top, with their keys: one per length band near a
        repetition's end."""
        lid = self._lid(chain)
        out: list[tuple[Hashable, LocalMask]] = []
        if self._banded(chain):
            for band in range(len(self.band_uppers)):
                key, shared = self._key(chain, bottom, band)
                out.append((key, self._local_mask(key, shared, lid, band)))
            return out
        literal = self.walker.literal_mask(lid)
        if literal is not None:
            # a literal no token goes past (a member's ``"name":``): its mask is the prefix's the
            # trie holds, shared by every literal starting alike — no key to name, nothing pending
            return [(_LITERAL, literal)]
        # a cheap (trie) walk is not worth the content signature that would share it, unless it
        # starts on many bytes (a character past ASCII: ~1,400 tokens through UTF-8 states)
        key, shared = self._key(chain, bottom, None, not self._cheap(lid) or self._starts_wide(lid))
        out.append((key, self._local_mask(key, shared, lid, None)))
        return out

    def _top(self, frame: int) -> tuple[Chain, int]:
        """The top rule states of a stack (``depth`` of them, not counting leaf rules such as a
        character, which return within a few bytes) and the frame below them."""
        cg = self.cg
        is_leaf = self.keys.is_leaf
        states: list[int] = []
        f = frame
        counted = 0
        while f != BOTTOM and counted < self.depth:
            rs = cg.frame_state(f)
            states.append(rs)
            counted += not is_leaf(rs)
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
        keys = self.keys
        horizon = self.horizon if band is None else self.band_uppers[band]
        if signed:
            sigs = [keys.state_signature(rs, horizon) for rs in chain]
            if all(sig is not None for sig in sigs):
                return (band, tuple(sigs), bottom), True
        key = (band, tuple(keys.canonical_state(rs, horizon) for rs in chain), bottom)
        self._stable_of.setdefault(key, (band, chain, horizon, bottom))
        return key, False

    def _stable(self, key: Hashable) -> tuple[Hashable, ...]:
        """A grammar-own key as data that means the same in every process compiling this
        grammar: its name on disk, under the grammar's hash (made only when a store is attached)."""
        band, chain, horizon, bottom = self._stable_of[key]
        return (band, tuple(self.keys.canonical_name(rs, horizon) for rs in chain), bottom)

    def _banded(self, chain: Chain) -> bool:
        """Whether ``chain`` sits within a token's reach of the end of an unrolled repetition
        (``char{0,32}``): there short tokens see the same grammar as in earlier copies and only
        long ones see the end, so the mask is computed per band of token lengths, each band keyed
        at its own horizon and so shared as far as it can be."""
        near_end = self.keys.near_end
        for rs in chain:
            left = near_end(rs)
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

    def _check_pending(self, key: Hashable, local: LocalMask, parent: int) -> IntArray:
        """The pending tokens of ``local`` (under ``key``) that are viable once control returns
        into frame ``parent``: memoised per (key, parent), since every position of a string body
        under one member has the same key and parent, and each new position is a new
        configuration (its check was a walk of the remainders every time)."""
        memo = (key, parent)
        got = self._pending.get(memo)
        if got is None:
            # a new key often holds the pending tokens of another (every node of a key's trie
            # returns on ``"`` with the same ~50 tokens ``":``, ``",`` …): checked once per
            # return configuration and content, the content named by a digest (a string body's
            # pending tokens run to thousands, and the memo lives as long as the engine)
            named = local.pending_digest
            if named is None:  # once per local mask: it is checked under many parents
                digest = hashlib.blake2b(local.pending_ids.tobytes(), digest_size=16)
                digest.update(local.pending_offsets.tobytes())
                named = local.pending_digest = digest.digest()
            content = (self._return_config(parent), named)
            got = self._pending_by_content.get(content)
            if got is None:
                got = self._pending_by_content[content] = self._walk_pending(local, parent)
            self._pending[memo] = got
        return got

    def _walk_pending(self, local: LocalMask, parent: int) -> IntArray:
        """The pending tokens whose remainders are viable from the return configuration: those
        whose next byte the configuration allows (one gather over the vocabulary's byte matrix:
        after a string value only ``,`` and ``}`` survive, where a walk of the remainders' trie
        stepped a wide configuration on every first byte to find it dead), then each survivor's
        remainder walked through the memoised transitions."""
        start = self._return_config(parent)
        ids, offsets = local.pending_ids, local.pending_offsets
        allowed = self._allowed_bytes(start)
        first = self.walker.byte_at(ids, offsets)
        keep = allowed.take(first)
        if not bitset.nonempty(keep):
            return _NONE
        ids, offsets = ids[keep], offsets[keep]
        tb = self.vocab.token_bytes
        walk = self.cg.walk
        # tokens often share a remainder (``":`` after many names' ends): each walked once
        viable: dict[bytes, bool] = {}
        out = []
        for tid, off in zip(ids.tolist(), offsets.tolist(), strict=True):
            rest = tb[tid][off:]
            ok = viable.get(rest)
            if ok is None:
                ok = viable[rest] = walk(start, rest) != DEAD
            if ok:
                out.append(tid)
        return np.asarray(out, dtype=np.int32)

    def _allowed_bytes(self, config: int) -> npt.NDArray[np.bool_]:
        """The bytes ``config`` allows, as a 256-entry mask (memoised per configuration)."""
        got = self._allowed.get(config)
        if got is None:
            got = self._allowed[config] = byte_mask(self.cg.allowed_bytes(config))
        return got

    # -- per local key -----------------------------------------------------------------------
    def _lid(self, chain: Chain) -> int:
        lid = self._chain_lids.get(chain)
        if lid is None:
            lid = self._chain_lids[chain] = self.local.intern(frozenset([self.local.quotient(chain)]))
        return lid

    def _cheap(self, lid: int) -> bool:
        """Whether the local mask of ``lid`` is a trie walk: it allows at most TRIE_MAX_BYTES
        bytes, or few tokens start with one it allows. Memoised: every stack top asks twice (its
        key, its walk)."""
        got = self._cheap_lids.get(lid)
        if got is None:
            first = self.local.first_bytes(lid)
            got = len(first) <= TRIE_MAX_BYTES or self.walker.starting_with(first) <= TRIE_MAX_TOKENS
            self._cheap_lids[lid] = got
        return got

    def _starts_wide(self, lid: int) -> bool:
        """Whether ``lid`` starts on at least SIGN_MIN_BYTES bytes with SIGN_MIN_TOKENS tokens
        behind them: its trie walk costs more than naming it, and its name may be shared."""
        first = self.local.first_bytes(lid)
        return len(first) >= SIGN_MIN_BYTES and self.walker.starting_with(first) >= SIGN_MIN_TOKENS

    def _local_mask(self, key: Hashable, shared: bool, lid: int, band: int | None) -> LocalMask:
        # the on-disk store (``mask_store.py``), when one is attached, keeps this grammar's own
        # masks too, under the grammar's hash
        backing = self.shared_masks.backing
        if shared:
            got = self.shared_masks.lookup(key)
        else:
            got = self.local_masks.get(key)
            if got is None and backing is not None and self._grammar_stored():
                got = backing.load(GRAMMAR_NAMESPACE, (self.cg.hash, *self._stable(key)))
                if got is not None:
                    self.local_masks[key] = got
        if got is None:
            self.local_misses += 1
            walker = self.walker
            if band is not None:
                ids = self._band_ids[band]
                # near the end of ``char{0,n}``: only the tokens off its run are walked
                got = walker.run_walk(lid, ids, (tuple(self.band_uppers), band))
                if got is None:
                    # a band of few tokens has a trie (``_bands``): it shares the prefixes that a
                    # per-token walk would step again for every token (with the one 8-byte band
                    # both bands are large on the vocabularies measured, so none has one)
                    trie = self._band_tries.get(band)
                    got = walker.vector_walk(lid, ids) if trie is None else walker.trie_walk(lid, trie)
            elif self._cheap(lid):
                got = walker.trie_walk(lid)
            else:
                got = walker.vector_walk(lid, walker.ids)
            if shared:
                self.shared_masks.put(key, got)  # bounded: the oldest goes first
            else:
                self.local_masks[key] = got
                if backing is not None:
                    self._unpublished[key] = got
        return got

    def publish(self) -> int:
        """Hand the grammar's own masks computed since the last call to the on-disk store, under
        the grammar's hash, with the marks the next process looks this grammar up by (called by
        ``save_engine`` before the store is written). Returns how many masks it handed over."""
        backing = self.shared_masks.backing
        if backing is None or not self._unpublished:
            return 0
        grammar = self.cg.hash
        empty = _empty_mask(self.vocab.size)
        backing.added(GRAMMAR_NAMESPACE, (self._names_digest(), NAMES_MARK), empty)
        backing.added(GRAMMAR_NAMESPACE, (grammar, GRAMMAR_MARK), empty)
        for key, mask in self._unpublished.items():
            backing.added(GRAMMAR_NAMESPACE, (grammar, *self._stable(key)), mask)
        done = len(self._unpublished)
        self._unpublished = {}
        return done

    def _names_digest(self) -> str:
        """A digest of the grammar's root and rule names (not their bodies): cheap to make."""
        nfa = self.cg.nfa
        text = "\0".join([self.cg.grammar.root, *nfa.rule_names])
        return hashlib.sha256(text.encode()).hexdigest()

    def _grammar_stored(self) -> bool:
        """Whether the store held masks of this grammar (its marks) when first asked: once per
        engine, so a grammar the store has never seen costs one lookup, not one per key — and
        not its hash: the mark of its rule names is asked first."""
        got = self._in_store
        if got is None:
            backing = self.shared_masks.backing
            got = (
                backing is not None
                and backing.load(GRAMMAR_NAMESPACE, (self._names_digest(), NAMES_MARK)) is not None
                and backing.load(GRAMMAR_NAMESPACE, (self.cg.hash, GRAMMAR_MARK)) is not None
            )
            self._in_store = got
        return got


def _empty_mask(vocab_size: int) -> LocalMask:
    words = np.zeros(bitset.num_words(vocab_size), dtype=np.uint32)
    none = np.zeros(0, dtype=np.int32)
    return LocalMask(words, False, none, none)


def _bands(vocab: TokenVocabulary, ids: IntArray, uppers: list[int]) -> Bands:
    """Per length band, its tokens, and for the bands of at most BAND_TRIE_MAX tokens (the
    longest tokens) their trie, subtree index included: built once per vocabulary (kept in its
    tables) with the first engine, not by the first mask near a repetition's end (~15 ms for the
    trie and its index)."""
    store = vocab.tables.bands
    got = store.get(tuple(uppers))
    if got is None:
        bands: list[IntArray] = []
        lower = 0
        lengths = vocab.lengths[ids]
        for upper in uppers:
            bands.append(ids[(lengths > lower) & (lengths <= upper)])
            lower = upper
        tb = vocab.token_bytes
        tries: dict[int, TokenTrie] = {}
        for band, members in enumerate(bands):
            if members.size <= BAND_TRIE_MAX:
                tries[band] = TokenTrie.from_pairs((t, tb[t]) for t in members.tolist())
                tries[band].subtrees()
        got = store[tuple(uppers)] = (bands, tries)
    return got
