"""Sampling under a token budget (decode/sampling.py ``sample_fitting``, generate's ``_draw``):
the token is drawn from the distribution the budget-narrowed mask gives — mask first, then
temperature, top-k, top-p over the tokens it allows — though only the engine's own mask is built
unless the draw needs the narrowed one. Real tokenizer, real engine, real closing zone; the logits
are chosen, since the test is about the sampler, not the model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache

import pytest
import torch

from gramwright.decode.generate import _draw
from gramwright.decode.masking import tensor_masks
from gramwright.decode.sampling import (
    SamplingParams,
    apply_mask,
    clipped_mass,
    distribution,
    fitting_candidates,
    sample_fitting,
)
from gramwright.engine.matcher import GrammarEngine, Matcher
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.gbnf import parse_gbnf
from tests.support.tokens import load_smol

# budget 4 from the start: "cat" and "dog" fit (3 bytes and EOS), the longer animals do not
ANIMALS = 'root ::= "cat" | "dog" | "elephant" | "hippopotamus" | "rhinoceros"'
# after "hello" with five tokens left: only the digits fit (four of them and EOS still needed), no
# letter token does — thousands refused, as in a string the budget closes
WORD_CODE = "root ::= [a-z]{1,40} [0-9]{4}"


@cache
def engine(gbnf: str) -> GrammarEngine:
    return GrammarEngine(parse_gbnf(gbnf), _vocab())


@cache
def _vocab() -> TokenVocabulary:
    return load_smol()[1]


def animals() -> Matcher:
    m = engine(ANIMALS).matcher(4)
    assert not m.every_token_fits()
    return m


def word_code() -> Matcher:
    m = engine(WORD_CODE).matcher(6)
    m.consume(_id(m.engine, b"hello"))
    assert m.remaining == 5 and not m.every_token_fits()
    return m


def _id(eng: GrammarEngine, data: bytes) -> int:
    return eng.vocab.token_bytes.index(data)


def _sets(m: Matcher) -> tuple[list[int], list[int]]:
    """The plain mask's tokens that fit, and those the budget refuses."""
    plain = m.engine.allowed_ids(m.config).tolist()
    narrow = set(m.allowed_token_ids().tolist())
    return [t for t in plain if t in narrow], [t for t in plain if t not in narrow]


def _expected(m: Matcher, logits: torch.Tensor, params: SamplingParams) -> dict[int, float]:
    """The full-mask path: the narrowed mask applied, then ``distribution``."""
    blocked = tensor_masks(m.engine).blocked(m, logits.shape[-1], "cpu")
    probs = distribution(apply_mask(logits, blocked), params)
    return {int(t): float(probs[t]) for t in torch.nonzero(probs > 1e-9).flatten()}


def _narrowed(m: Matcher) -> Callable[[], torch.Tensor]:
    return lambda: tensor_masks(m.engine).blocked(m, m.engine.vocab.size, "cpu")


def _plain(m: Matcher, logits: torch.Tensor) -> torch.Tensor:
    return apply_mask(logits, tensor_masks(m.engine).blocked(m, logits.shape[-1], "cpu", budget=False))


PARAMS = [
    SamplingParams(1.0, top_k=2),
    SamplingParams(0.7, top_k=5),
    SamplingParams(1.0, top_p=0.5),
    SamplingParams(1.3, top_p=0.9),
    SamplingParams(0.8, top_k=4, top_p=0.7),
]


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_ranked_candidates_are_the_narrowed_masks_exactly(params: SamplingParams) -> None:
    """Over random logits, the candidates found by testing ranked tokens carry the probabilities
    the narrowed mask gives (support and values); unsettled, the narrowed mask is built."""
    settled = unsettled = 0
    for make in (animals, word_code):
        m = make()
        fit, refused = _sets(m)
        assert fit and refused
        gen = torch.Generator().manual_seed(7)
        for trial in range(12):
            logits = torch.full((m.engine.vocab.size,), -4.0)
            plain = torch.tensor(fit + refused)
            logits[plain] = torch.randn(plain.numel(), generator=gen) * 2
            if trial % 3 == 0:  # the model prefers some fitting tokens: the draw settles early
                logits[torch.tensor(fit[:5])] += 6
            if trial % 5 == 0 and params.top_p == 1.0:  # ties with the k-th stay, as in the full path
                # (top-p among tied tokens keeps whichever its sort puts first: no one answer)
                logits[torch.tensor(fit[:3])] = 3.0
            expected = _expected(m, logits, params)
            got = fitting_candidates(_plain(m, logits), params, m.fits)
            if got is None:
                unsettled += 1
            else:
                settled += 1
                ids, probs, found = got
                assert set(found) <= set(refused)
                assert dict(zip(ids, probs.tolist(), strict=True)) == pytest.approx(expected, abs=1e-5)
            token = sample_fitting(_plain(m, logits), params, gen, m.fits, _narrowed(m)).token
            assert token in expected
    assert settled >= 12 and unsettled >= 1  # both ways are exercised


def _draws(m: Matcher, logits: torch.Tensor, params: SamplingParams, n: int) -> Counter[int]:
    masks = tensor_masks(m.engine)
    blocked = masks.blocked(m, logits.shape[-1], "cpu", budget=False)
    plain_mass = clipped_mass(logits, blocked)
    gen = torch.Generator().manual_seed(11)
    counts: Counter[int] = Counter()
    for _ in range(n):
        token, mass, closing, _us = _draw(m, masks, logits, blocked, plain_mass, params, gen)
        counts[token] += 1
        if closing:
            assert mass > plain_mass
    return counts


def _total_variation(counts: Counter[int], expected: dict[int, float]) -> float:
    n = sum(counts.values())
    keys = set(counts) | set(expected)
    return 0.5 * sum(abs(counts[k] / n - expected.get(k, 0.0)) for k in keys)


CASES = {
    # ranked cat, e (refused), dog: the two fitting candidates are cat and dog, about even; drawing
    # from the plain top-2 (cat, e) and again without e gives dog far less often
    "top-k": (SamplingParams(1.0, top_k=2), {b"cat": 0.0, b"e": -0.1, b"dog": -0.2}),
    # p(cat)=.3, p(dog)=.25 among the fitting .55: cat alone reaches half of it, so top-p 0.5
    # keeps only cat; the plain nucleus (cat, dog before e, h) would give dog 45 % of the time
    "top-p": (SamplingParams(1.0, top_p=0.5), {b"cat": 0.3, b"dog": 0.25, b"e": 0.25, b"h": 0.2}),
    "temperature": (SamplingParams(0.7), {b"cat": 0.0, b"e": 1.0, b"dog": -0.5, b"h": 0.5}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_decode_draws_from_the_narrowed_distribution(case: str) -> None:
    """2,000 seeded draws through the decode loop's own step against the full-mask path's exact
    probabilities: total variation within sampling noise (drawing from the plain mask's top-k or
    top-p and redrawing what does not fit is 0.2–0.45 away in these cases)."""
    params, scores = CASES[case]
    m = animals()
    eng = m.engine
    logits = torch.full((eng.vocab.size,), -20.0)
    for data, value in scores.items():
        logits[_id(eng, data)] = value if case != "top-p" else torch.log(torch.tensor(value))
    expected = _expected(m, logits, params)
    counts = _draws(m, logits, params, 2000)
    assert _total_variation(counts, expected) < 0.06, (counts, expected)


def test_greedy_takes_the_best_fitting_token() -> None:
    m = animals()
    eng = m.engine
    logits = torch.full((eng.vocab.size,), -20.0)
    for data, value in {b"e": 5.0, b"h": 4.0, b"do": 3.0, b"cat": 2.0}.items():
        logits[_id(eng, data)] = value
    counts = _draws(m, logits, SamplingParams(), 3)
    assert counts == Counter({_id(eng, b"do"): 3})
