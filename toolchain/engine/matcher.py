"""GrammarEngine (per grammar × tokenizer, shared) and Matcher (per request).

The matcher advances the one recognizer by whole tokens and answers the allowed-token set for the
current state, as a bitset (the peers' int32 layout; ``gramwright.decode.masking`` turns it into
tensors on the logits' device) or as ids. EOS is allowed only in an accepting state; special tokens
never. An empty mask is a bug and raises EmptyMaskError with the state, the tail of the output and
the live rule stacks — never a silent EOS.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np
import numpy.typing as npt

from gramwright.engine import bitset
from gramwright.engine.bitset import IntArray
from gramwright.engine.budget import ClosingZone
from gramwright.engine.masks import MaskComputer
from gramwright.engine.vocab import TokenVocabulary
from gramwright.errors import BudgetTooSmall, EngineError
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import DEAD, CompiledGrammar, compile_grammar

# Engine modules that decide no mask (the store's own format carries its own version number):
# editing them must not make every tokenizer's store stale.
# The closing zone (``budget.py``, ``shortest.py``) filters a mask per request and stores nothing;
# ``sections.py`` chains two engines' matchers; ``walks.py`` only draws from masks.
_NOT_MASK_CODE = frozenset(
    {
        "budget.py",
        "cache.py",
        "cache_info.py",
        "collector.py",
        "mask_store.py",
        "sections.py",
        "shortest.py",
        "store_format.py",
        "walks.py",
        "warm.py",
    }
)


def _engine_version() -> str:
    """The mask store's engine component: a format number plus a hash of the code that decides
    masks, so that any change to the recognizer or the engine's walks invalidates old entries."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(b"2")
    for path in sorted([*here.parent.joinpath("recognizer").glob("*.py"), *here.glob("*.py")]):
        if path.name in _NOT_MASK_CODE:
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


ENGINE_VERSION = _engine_version()


class EmptyMaskError(EngineError, RuntimeError):
    """No token is allowed: a bug in the engine or the grammar, never answered with a silent EOS."""

    def __init__(self, config: int, prefix: bytes, stacks: list[list[str]]) -> None:
        self.config = config
        self.prefix = prefix
        self.stacks = stacks
        super().__init__(
            f"no token is allowed after {prefix[-60:]!r}; rule stacks: {stacks}",
            where=f"engine state {config}",
            hint="this is a bug: please report the grammar and the prefix",
        )


class TokenRejected(EngineError, ValueError):
    """A token outside the current mask was fed to a matcher."""

    def __init__(self, token_id: int, token: bytes) -> None:
        self.token_id = token_id
        self.token = token
        super().__init__(f"token {token_id} ({token!r}) is not allowed here")


def bitmask_from_ids(ids: IntArray, vocab_size: int) -> npt.NDArray[np.int32]:
    """The peers' layout: int32 words, bit ``i % 32`` of word ``i // 32`` set when token i is allowed."""
    return bitset.pack(ids, vocab_size).view(np.int32)


def ids_from_bitmask(bitmask: npt.NDArray[np.int32], vocab_size: int) -> IntArray:
    return bitset.unpack(bitmask, vocab_size)


# A forced run is cut here: a file-aware grammar forces at most a line at a time, so this is a
# bound against a pathological grammar, not a limit anyone meets.
FORCED_MAX = 4096


def _forced_from(cg: CompiledGrammar, config: int) -> bytes:
    out = bytearray()
    while len(out) < FORCED_MAX and cg.config_frames[config] and not cg.config_accepting[config]:
        allowed = cg.allowed_bytes(config)
        if len(allowed) != 1:
            break
        (b,) = allowed
        nxt = cg.step(config, b)
        if nxt == DEAD:  # the byte ranges are a superset of the live bytes: then nothing is forced
            break
        out.append(b)
        config = nxt
    return bytes(out)


class GrammarEngine:
    """A compiled grammar bound to a vocabulary: the masks it computes serve every request."""

    def __init__(self, grammar: Grammar | CompiledGrammar, vocab: TokenVocabulary) -> None:
        t0 = time.perf_counter()
        self.compiled = grammar if isinstance(grammar, CompiledGrammar) else compile_grammar(grammar)
        self.vocab = vocab
        self.masks = MaskComputer(self.compiled, vocab)
        self.eos = np.asarray(sorted(vocab.eos_ids), dtype=np.int32)
        self._bitmasks: dict[int, npt.NDArray[np.int32]] = {}
        self.stopped_bitmask = np.zeros(bitset.num_words(vocab.size), dtype=np.int32)  # after EOS
        self.stopped_bitmask.setflags(write=False)
        self.from_cache = False
        self._closing: ClosingZone | None = None
        self._forced: dict[int, bytes] = {}
        self.setup_ms = (time.perf_counter() - t0) * 1000.0

    @property
    def cache_key(self) -> tuple[str, str, str]:
        """What every cached artefact of this engine is keyed by."""
        return (self.compiled.hash, self.vocab.fingerprint, ENGINE_VERSION)

    def allowed_ids(self, config: int) -> IntArray:
        ids = self.masks.allowed(config)
        if self.compiled.config_accepting[config] and self.eos.size:
            ids = np.union1d(ids, self.eos).astype(np.int32)
        return ids

    def bitmask(self, config: int) -> npt.NDArray[np.int32]:
        """The mask of ``config`` in the peers' int32 bitset layout, read-only (cached per
        configuration): the computer's own bits, plus EOS in an accepting state."""
        words = self.masks.allowed_bits(config)
        if not (self.compiled.config_accepting[config] and self.eos.size):
            return words.view(np.int32)
        got = self._bitmasks.get(config)
        if got is None:
            with_eos = words.copy()
            bitset.add(with_eos, self.eos, self.vocab.size)
            with_eos.setflags(write=False)
            got = self._bitmasks[config] = with_eos.view(np.int32)
        return got

    def forced(self, config: int) -> bytes:
        """The bytes the grammar forces from ``config``: one allowed byte at a time, up to the
        first choice or accepting configuration (where EOS is a choice), at most
        ``FORCED_MAX`` bytes. Cached per configuration, as masks are: every matcher of this
        engine that reaches ``config`` reads it (the decode loop's fast-forward)."""
        got = self._forced.get(config)
        if got is None:
            got = self._forced[config] = _forced_from(self.compiled, config)
        return got

    @property
    def closing(self) -> ClosingZone:
        """The budget-aware side of the masks (built when a matcher with a budget first asks)."""
        if self._closing is None:
            self._closing = ClosingZone(self.compiled, self.vocab, self.masks)
        return self._closing

    def shortest_output(self) -> int | None:
        """Tokens of the shortest output this grammar accepts (EOS counted), by the closing
        zone's sound bound: a budget of at least this many always ends accepting."""
        return self.closing.shortest_output()

    def check_budget(self, max_tokens: int) -> None:
        """Raise BudgetTooSmall when ``max_tokens`` cannot hold the shortest output."""
        BudgetTooSmall.check(self.shortest_output(), max_tokens)

    def matcher(self, max_tokens: int | None = None) -> Matcher:
        return Matcher(self, max_tokens)


class Matcher:
    """One request's position in the grammar, advanced token by token."""

    def __init__(self, engine: GrammarEngine, max_tokens: int | None = None) -> None:
        """``max_tokens``: the token budget (EOS counted); every allowed token then leaves a
        completion that fits in what is left (``budget.py``). None: no budget."""
        self.engine = engine
        self._cg = engine.compiled
        self._config = self._cg.initial
        self._history: list[tuple[int, int]] = []  # (config before, token id)
        self._output = bytearray()
        self._stopped = False
        self.max_tokens = max_tokens
        self._zone: ClosingZone | None = None
        # the first step whose mask the budget narrowed: (tokens consumed, output bytes) then
        self.closing_began: tuple[int, int] | None = None
        self.closing_steps = 0  # steps whose mask the budget narrowed
        self._counted = -1  # the step last counted in closing_steps
        if max_tokens is not None:
            engine.check_budget(max_tokens)
            self._zone = engine.closing

    @property
    def remaining(self) -> int | None:
        """Tokens left in the budget (None without one)."""
        return None if self.max_tokens is None else self.max_tokens - len(self._history)

    @property
    def closed_by_budget(self) -> bool:
        """Some mask of this output was narrowed by the budget: the output was closed early."""
        return self.closing_began is not None

    def mask_state(self, budget: bool = True) -> tuple[int, int]:
        """What the current mask (``bitmask(budget)``) depends on: the configuration, and the
        tokens left when the closing zone narrows it (-1 otherwise) — a key for per-state tensor
        caches."""
        if self._stopped:
            return (-1, -1)
        zone, left = self._zone, self.remaining
        if not budget or zone is None or left is None or zone.ample(self._config, left):
            return (self._config, -1)
        return (self._config, left)

    def every_token_fits(self) -> bool:
        """No token can break the budget here, whatever the state: no budget, or more tokens left
        than any configuration of the grammar needs (tier 1 of ``budget.py``; no walk). False
        only says that ``fits`` must be asked."""
        zone, left = self._zone, self.remaining
        return zone is None or left is None or left >= zone.max_need + 1

    def fits(self, token_id: int) -> bool:
        """Whether ``token_id`` leaves a completion that fits in the budget (always True without
        one): a token of the engine's mask for which this is False is outside ``bitmask()``. Costs
        one walk of the token's bytes, so a decode loop may sample from the engine's own mask and
        ask this of the token drawn, narrowing the mask only when it says no (``decode/generate``)."""
        zone, left = self._zone, self.remaining
        if zone is None or left is None:
            return True
        if left < 1:
            return False
        if token_id in self.engine.vocab.eos_ids or left >= zone.max_need + 1:
            return True
        data = self.engine.vocab.token_bytes[token_id] if token_id < self.engine.vocab.size else b""
        return bool(data) and zone.need_after(self._config, data) <= left - 1

    @property
    def config(self) -> int:
        return self._config

    @property
    def consumed(self) -> int:
        """Tokens consumed so far (EOS included)."""
        return len(self._history)

    @property
    def stopped(self) -> bool:
        """EOS was consumed: nothing more is allowed."""
        return self._stopped

    @property
    def output(self) -> bytes:
        return bytes(self._output)

    def is_accepting(self) -> bool:
        return self._cg.config_accepting[self._config]

    def is_terminated(self) -> bool:
        """EOS was consumed, or the grammar allows nothing more (complete)."""
        return self._stopped or not self._cg.config_frames[self._config]

    def allowed_token_ids(self) -> IntArray:
        if self._stopped:
            return np.zeros(0, dtype=np.int32)
        zone, left = self._zone, self.remaining
        if zone is None or left is None or zone.ample(self._config, left):
            ids = self.engine.allowed_ids(self._config)
        else:
            ids = ids_from_bitmask(self.bitmask(), self.engine.vocab.size)
        if ids.size == 0:
            raise EmptyMaskError(self._config, self.output, self._cg.stack_rules(self._config))
        return ids

    def bitmask(self, budget: bool = True) -> npt.NDArray[np.int32]:
        """The current mask as a read-only int32 bitset (cached per state by the engine; no copy):
        EOS included in an accepting state, all zero once stopped. With a budget, narrowed in the
        closing zone (``budget=False``: the engine's own mask, a superset; see ``fits``)."""
        if self._stopped:
            return self.engine.stopped_bitmask
        config = self._config
        words = self.engine.bitmask(config)
        if config in self.engine.masks.empty and not (
            self._cg.config_accepting[config] and self.engine.eos.size
        ):
            # an empty mask is a bug: say where, never hand it out
            raise EmptyMaskError(config, self.output, self._cg.stack_rules(config))
        if budget and self._zone is not None:
            words = self._closing_words(config, words)
        return words

    def _closing_words(self, config: int, words: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
        """The engine's mask, narrowed by the closing zone when the budget is not ample; EOS
        stays where the configuration accepts (it needs one token, and one is always left)."""
        zone, left = self._zone, self.remaining
        assert zone is not None and left is not None
        if zone.ample(config, left):
            return words
        own = self.engine.masks.allowed_bits(config)
        narrowed = zone.restrict(config, left, own)
        if self._counted != len(self._history):
            self._counted = len(self._history)
            self.closing_steps += 1
        if self.closing_began is None:
            self.closing_began = (len(self._history), len(self._output))
        if self._cg.config_accepting[config] and self.engine.eos.size and left >= 1:
            narrowed = narrowed.copy()
            bitset.add(narrowed, self.engine.eos, self.engine.vocab.size)
        if not narrowed.any():
            raise EmptyMaskError(config, self.output, self._cg.stack_rules(config))
        return narrowed.view(np.int32)

    def fill_bitmask(self, bitmask: npt.NDArray[np.int32], row: int = 0) -> None:
        """Write the current mask into ``bitmask[row]`` ((batch, ceil(V/32)) int32, as the peers)."""
        bitmask[row] = self.bitmask()

    def try_consume(self, token_id: int) -> bool:
        if self._stopped:
            return False
        left = self.remaining
        if left is not None and left < 1:
            return False  # the budget is spent
        if token_id in self.engine.vocab.eos_ids:
            if not self.is_accepting():
                return False
            self._history.append((self._config, token_id))
            self._stopped = True
            return True
        data = self.engine.vocab.token_bytes[token_id] if token_id < self.engine.vocab.size else b""
        if not data:
            return False
        nxt = self._cg.walk(self._config, data)
        if nxt == DEAD:
            return False
        if self._zone is not None and left is not None and self._zone.need(nxt) > left - 1:
            return False  # no completion would fit in what is left after this token
        self._history.append((self._config, token_id))
        self._config = nxt
        self._output += data
        return True

    def consume(self, token_id: int) -> None:
        if not self.try_consume(token_id):
            raw = self.engine.vocab.token_bytes[token_id] if token_id < self.engine.vocab.size else b""
            raise TokenRejected(token_id, raw)

    def rollback(self, n: int) -> None:
        """Undo the last ``n`` consumed tokens (speculative decoding)."""
        if n > len(self._history):
            raise ValueError(f"cannot roll back {n} tokens, only {len(self._history)} consumed")
        for _ in range(n):
            config, token_id = self._history.pop()
            if self.closing_began is not None and self.closing_began[0] >= len(self._history):
                self.closing_began = None
            if token_id in self.engine.vocab.eos_ids and self._stopped:
                self._stopped = False
            else:
                del self._output[len(self._output) - len(self.engine.vocab.token_bytes[token_id]) :]
            self._config = config

    def forced_bytes(self) -> bytes:
        """Bytes the grammar forces next (``GrammarEngine.forced``; nothing once stopped)."""
        return b"" if self._stopped else self.engine.forced(self._config)

    def fast_forward(self) -> list[int]:
        """Consume tokens while exactly one token is allowed; returns them (no model call needed)."""
        taken: list[int] = []
        while not self.is_terminated():
            ids = self.allowed_token_ids()
            if ids.size != 1:
                break
            self.consume(int(ids[0]))
            taken.append(int(ids[0]))
        return taken
