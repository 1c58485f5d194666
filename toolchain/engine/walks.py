"""Random constrained walks: draw tokens uniformly from each mask — a fuzzer for the engine.

Uniform draws explore the grammar far more aggressively than a model does (odd tokens, deep
nesting, every escape), which is what a soundness check needs: a walk must never meet an empty
mask, and every walk that ends (EOS, or nothing more allowed) must end in an accepting state.
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass

from gramwright.engine.bitset import IntArray
from gramwright.engine.matcher import GrammarEngine, Matcher
from gramwright.engine.sections import SectionedMatcher


@dataclass
class Walk:
    output: bytes
    tokens: int
    ended: bool  # EOS drawn or the grammar allowed nothing more
    accepting: bool


def random_walk(engine: GrammarEngine, rng: random.Random, budget: int) -> Walk:
    """One walk of at most ``budget`` tokens. Raises EmptyMaskError if the engine dead-ends."""
    matcher = engine.matcher()
    eos = engine.vocab.eos_ids
    for n in range(1, budget + 1):
        ids = matcher.allowed_token_ids()
        token = int(ids[rng.randrange(ids.size)])
        matcher.consume(token)
        if token in eos or matcher.is_terminated():
            return Walk(matcher.output, n, True, matcher.is_accepting())
    return Walk(matcher.output, budget, False, matcher.is_accepting())


# each configuration's allowed ids, per engine: the engine unpacks its bitset on every call
_IDS: weakref.WeakKeyDictionary[GrammarEngine, dict[int, IntArray]] = weakref.WeakKeyDictionary()

# uniform redraws before the budget-narrowed mask is built: rejection keeps the draw uniform
# over the narrowed mask, and costs one token walk instead of a walk of every allowed token
REDRAWS = 8


def uniform_token(matcher: Matcher, rng: random.Random) -> int:
    """A token drawn uniformly from the matcher's (budget-narrowed) mask."""
    if isinstance(matcher, SectionedMatcher):
        matcher = matcher.part()
    engine = matcher.engine
    cache = _IDS.setdefault(engine, {})
    ids = cache.get(matcher.config)
    if ids is None:
        ids = cache[matcher.config] = engine.allowed_ids(matcher.config)
    if ids.size:
        for _ in range(REDRAWS):
            token = int(ids[rng.randrange(ids.size)])
            if matcher.fits(token) and (token not in engine.vocab.eos_ids or matcher.is_accepting()):
                return token
    narrowed = matcher.allowed_token_ids()
    return int(narrowed[rng.randrange(narrowed.size)])
