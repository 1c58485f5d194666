"""Random constrained walks: draw tokens uniformly from each mask — a fuzzer for the engine.

Uniform draws explore the grammar far more aggressively than a model does (odd tokens, deep
nesting, every escape), which is what a soundness check needs: a walk must never meet an empty
mask, and every walk that ends (EOS, or nothing more allowed) must end in an accepting state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gramwright.engine.matcher import GrammarEngine


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
