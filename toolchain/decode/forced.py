"""Fast-forward: the tokens the decode loop appends without sampling, where the grammar forces
the next bytes.

The engine knows, per configuration, the bytes the grammar forces from it
(``GrammarEngine.forced``: JSON keys and punctuation, most of a SEARCH line in a file-aware edit
grammar). Here those bytes become tokens, once per configuration and cached beside the engine
(as ``masking.py`` caches mask tensors): the loop feeds them to the model in the same forward
pass as the token it sampled (a prefill chunk over the KV cache), so ``k`` forced tokens cost one
forward pass instead of ``k``. A greedy row drafts them and keeps what the model's own choice
agrees with (``batch.py``); a sampling row appends them.

Tokenisation, so that the model reads text as its tokenizer writes it:

* the forced bytes are tokenised *on their own* by the model's tokenizer (its BPE merges, not a
  longest match over the vocabulary). At the start they meet the token the model chose, which is
  kept as chosen: its bytes are the model's, and re-tokenising across that boundary would mean
  taking back a token the model already read;
* the *last* token of that tokenisation is left to the model, unless the grammar allows nothing
  after the forced bytes: it is where the forced text meets free text, and the model's next token
  may merge the two (``":"`` + a value's first word as one token) the way its tokenizer would.
  The mask allows only tokens that continue the forced bytes, so the model cannot leave them;
* a forced run that ends inside a UTF-8 character is cut before that character (the tokenizer
  reads text), and a tokenisation whose bytes are not exactly the forced bytes (a special token's
  text inside them, say) is not used: that configuration is then decoded step by step.

A verified draft need not be the tokenizer's spelling: a model under a mask often writes forced
text its own way (a 135M model writes ``<<<<<<< SEARCH`` a character or two at a time), and
a draft in the tokenizer's spelling is then cut at its first token. ``Spellings`` remembers, per
tokenizer and process, how the model last wrote each forced run it was drafted, and the next
draft of the same run follows the model's spelling. It is only a guess for the verification —
every position is still the model's masked choice — so it changes the forward passes, never the
output; appended (unverified) forced text always uses the tokenizer's spelling.

The forced tokens are consumed by the request's matcher like sampled ones, so they count against
its token budget; that stays sound because every completion from the configuration starts with
the forced bytes, and each byte is at most one token (``engine/budget.py``): the completion's
need falls by at least the tokens taken.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

from gramwright.engine.matcher import GrammarEngine


class ForcedTokens:
    """The forced tokens of one engine's configurations, tokenised by one tokenizer (cached)."""

    def __init__(self, engine: GrammarEngine, tokenizer: Any) -> None:
        self._engine = weakref.ref(engine)
        self.tokenizer = tokenizer
        self.spellings = spellings(tokenizer)
        self._tokens: dict[int, tuple[int, ...]] = {}

    def tokens(self, config: int) -> tuple[int, ...]:
        """The tokens to append from ``config`` without sampling (empty: sample the next one)."""
        got = self._tokens.get(config)
        if got is None:
            engine = self._engine()
            got = self._tokens[config] = self._tokenise(engine, config) if engine else ()
        return got

    def _tokenise(self, engine: GrammarEngine, config: int) -> tuple[int, ...]:
        data = engine.forced(config)
        if not data:
            return ()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            data = data[: err.start]
            text = data.decode("utf-8")
        if not text:
            return ()
        ids = [int(i) for i in self.tokenizer(text, add_special_tokens=False).input_ids]
        vocab = engine.vocab
        if any(i >= vocab.size or i in vocab.special_ids for i in ids):
            return ()
        if b"".join(vocab.token_bytes[i] for i in ids) != data:
            return ()
        after = engine.compiled.walk(config, data)
        if engine.compiled.config_frames[after]:
            ids = ids[:-1]  # the meeting with free text is the model's (see above)
        return tuple(ids)


class Spellings:
    """How the model wrote forced runs when they were drafted: the tokenizer's spelling of a run
    (its tokens) to the model's tokens for the same bytes, the latest seen, the ``limit`` most
    recently used kept."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._known: OrderedDict[tuple[int, ...], tuple[int, ...]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._known)

    def spelled(self, tokens: tuple[int, ...]) -> tuple[int, ...]:
        """The model's last spelling of the run ``tokens`` spell; ``tokens`` when none is known."""
        got = self._known.get(tokens)
        if got is None:
            return tokens
        self._known.move_to_end(tokens)
        return got

    def learn(self, tokens: tuple[int, ...], spelled: tuple[int, ...]) -> None:
        """The model wrote the bytes of ``tokens`` as ``spelled``."""
        if spelled == tokens:
            self._known.pop(tokens, None)
            return
        self._known[tokens] = spelled
        self._known.move_to_end(tokens)
        while len(self._known) > self.limit:
            self._known.popitem(last=False)


_SPELLINGS: weakref.WeakKeyDictionary[Any, Spellings] = weakref.WeakKeyDictionary()


def spellings(tokenizer: Any) -> Spellings:
    """The process's memory of the model's spellings for ``tokenizer`` (held weakly)."""
    got = _SPELLINGS.get(tokenizer)
    if got is None:
        got = _SPELLINGS[tokenizer] = Spellings()
    return got


_PER_ENGINE: weakref.WeakKeyDictionary[GrammarEngine, ForcedTokens] = weakref.WeakKeyDictionary()


def forced_tokens(engine: GrammarEngine, tokenizer: Any) -> ForcedTokens:
    """The engine's forced tokens for ``tokenizer`` (one per engine, held weakly, so requests on a
    shared engine reuse the tokenisations met before)."""
    got = _PER_ENGINE.get(engine)
    if got is None or got.tokenizer is not tokenizer:
        got = _PER_ENGINE[engine] = ForcedTokens(engine, tokenizer)
    return got
