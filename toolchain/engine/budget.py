"""The closing zone: token masks that keep every output completable within its token budget.

A matcher with a budget allows a token only if, after it, a completion still fits in the tokens
left (EOS counted as one token, as ``transformers``' ``max_new_tokens`` counts it). What a
configuration still needs, ``need``, is its shortest completion in bytes (``recognizer/shortest``)
plus one for EOS, or 0 once the grammar allows nothing more. Bytes bound tokens because every byte
of a shortest completion is a token of its own in the vocabularies counted here (byte-level BPE,
SentencePiece byte fallback); a byte that is no token is never counted on (``shortest.py``).

The bound is inductive: when ``need(c) <= left``, the next byte of a shortest completion is an
allowed token with ``need <= left - 1`` after it, so a walk that starts within budget never meets an
empty mask and always ends accepting.

Three tiers, so that an ample budget costs nothing and the end is exact:

1. ``left >= max_need + 1`` where ``max_need`` bounds ``need`` over every configuration the grammar
   can reach (finite for a grammar without recursion): the mask is today's, with no work at all;
2. otherwise, per configuration once (cached): the most any of its allowed tokens can leave to
   complete (``worst``); ``left >= worst + 1`` means no token can break the budget — today's mask,
   the same object;
3. below that, the *closing zone*: today's mask less the tokens after which the completion no
   longer fits, cached per (configuration, tokens left).

Masks of tiers 1 and 2 are the engine's own (no copy, no change to the mask store or its caches);
only tier 3 builds new bitsets, and they are never stored.
"""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from gramwright.engine import bitset
from gramwright.engine.bitset import IntArray, Words
from gramwright.engine.masks import MaskComputer
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar
from gramwright.recognizer.compiled import DEAD, CompiledGrammar
from gramwright.recognizer.shortest import ShortestCompletion, shortest_bytes


def single_byte_tokens(vocab: TokenVocabulary) -> list[bool]:
    """Which of the 256 bytes the vocabulary has as a token of its own (specials excluded)."""
    ok = [False] * 256
    for data in vocab.token_bytes:
        if len(data) == 1:
            ok[data[0]] = True
    return ok


def shortest_output_tokens(grammar: Grammar, vocab: TokenVocabulary) -> int | None:
    """Tokens of the grammar's shortest output by the closing zone's bound (EOS counted), from
    the IR alone: what a caller checks ``--max-tokens`` against before any model loads."""
    got = shortest_bytes(grammar, single_byte_tokens(vocab))
    return None if math.isinf(got) else int(got) + 1


class ClosingZone:
    """Budget-aware masks for one engine (grammar × vocabulary), shared by its matchers."""

    def __init__(self, cg: CompiledGrammar, vocab: TokenVocabulary, masks: MaskComputer) -> None:
        self.cg = cg
        self.vocab = vocab
        self.masks = masks
        self.shortest = ShortestCompletion(cg, single_byte_tokens(vocab))
        self.max_need = self.shortest.max_shortest + 1  # EOS
        # configuration → (allowed token ids, the need after each, the most of those needs)
        self._after: dict[int, tuple[IntArray, npt.NDArray[np.float64], float]] = {}
        self._closing: dict[tuple[int, int], Words] = {}
        self._end_index: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)
        self.worst_computed = 0  # configurations whose tokens were walked (tier 2)
        self.walk_s = 0.0  # … and the time those walks took

    def need(self, config: int) -> float:
        """Tokens still needed from ``config`` to end: its shortest completion plus EOS, 0 when
        the grammar allows nothing more; infinite when no completion is counted on."""
        if not self.cg.config_frames[config]:
            return 0.0
        return self.shortest.config_min(config) + 1

    def shortest_output(self) -> int | None:
        """Tokens of the shortest output (EOS included) by this bound; None if none is countable."""
        got = self.need(self.cg.initial)
        return None if math.isinf(got) else int(got)

    def need_after(self, config: int, token_bytes: bytes) -> float:
        nxt = self.cg.walk(config, token_bytes)
        return math.inf if nxt == DEAD else self.need(nxt)

    def ample(self, config: int, left: int) -> bool:
        """No allowed token of ``config`` can leave more to complete than ``left - 1`` tokens."""
        if left >= self.max_need + 1:
            return True
        return left >= self._walked(config)[2] + 1

    def restrict(self, config: int, left: int, words: Words) -> Words:
        """``words`` (the engine's mask of ``config``, EOS aside) if the budget is ample, else the
        closing zone's mask: the tokens after which a completion fits in ``left - 1``."""
        if self.ample(config, left):
            return words
        key = (config, left)
        got = self._closing.get(key)
        if got is None:
            ids, needs, _ = self._walked(config)
            got = bitset.pack(ids[needs <= left - 1], self.vocab.size)
            got.setflags(write=False)
            self._closing[key] = got
        return got

    def _walked(self, config: int) -> tuple[IntArray, npt.NDArray[np.float64], float]:
        """Each allowed token of ``config`` with the need after it (cached per configuration)."""
        got = self._after.get(config)
        if got is not None:
            return got
        self.worst_computed += 1
        ids = self.masks.allowed(config)
        t0 = time.perf_counter()
        ends = self._walk_all(config, ids)
        needs = np.asarray([self.need(c) for c in ends.tolist()], dtype=np.float64)[self._end_index]
        worst = float(needs.max()) if needs.size else 0.0
        self.walk_s += time.perf_counter() - t0
        got = self._after[config] = (ids, needs, worst)
        return got

    def _walk_all(self, config: int, ids: IntArray) -> IntArray:
        """Walk every token of ``ids`` from ``config`` at once, byte position by byte position:
        at each position the distinct (configuration, byte) pairs are few (a string body's
        characters all lead to one next position), so each is stepped once and the tokens move
        by one numpy gather. Returns the distinct end configurations; ``_end_index`` maps each
        token to one of them."""
        cg, vocab = self.cg, self.vocab
        local = [config]
        index = {config: 0}
        cur = np.zeros(ids.size, dtype=np.int64)
        lengths = vocab.lengths[ids]
        matrix = vocab.byte_matrix[ids]
        for col in range(int(lengths.max(initial=0))):
            live = np.flatnonzero(lengths > col)
            keys = cur[live] * 256 + matrix[live, col]
            # the distinct pairs without a sort: keys are below 256 × the configurations met
            seen = np.zeros(len(local) * 256, dtype=bool)
            seen[keys] = True
            pairs = np.flatnonzero(seen)
            moved = np.empty(len(local) * 256, dtype=np.int64)
            for pair in pairs.tolist():
                u, b = divmod(pair, 256)
                nxt = cg.step(local[u], b)
                if nxt == DEAD:  # never for an allowed token (the mask is exact): stay put
                    moved[pair] = u
                    continue
                k = index.get(nxt)
                if k is None:
                    k = index[nxt] = len(local)
                    local.append(nxt)
                moved[pair] = k
            cur[live] = moved[keys]
        ends, self._end_index = np.unique(cur, return_inverse=True)
        return np.asarray([local[int(k)] for k in ends], dtype=np.int64)
