"""Sampling in the order the architecture fixes: mask first, then temperature, top-k, top-p.

The mask uses a large negative *finite* value (not -inf) so that softmax never produces NaN even
if a caller masks every logit; the matcher guarantees that cannot happen for a valid grammar.

"Mask first" is the definition with a token budget too: top-k and top-p choose among the tokens
the *budget-narrowed* mask allows (renormalised over them), as ``transformers`` runs a logits
processor (ours, XGrammar's) before its temperature, top-k and top-p warpers. ``sample_fitting``
draws from exactly that distribution while building the narrowed mask only when it must.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

MASK_VALUE = -1e9

# Redraws tried (greedy, temperature) or ranked tokens tested (top-k, top-p) before the narrowed
# mask is built: a walk of every token the state allows, which these few token walks usually spare
CLOSING_REDRAWS = 8
RANKED_TESTS = 64


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0  # 0 = greedy
    top_k: int = 0  # 0 = off
    top_p: float = 1.0

    @property
    def truncates(self) -> bool:
        """top-k or top-p cut the candidates (sampling, not greedy): which tokens a narrower mask
        lets in changes the candidates, so removing a token and drawing again is not enough."""
        return self.temperature > 0 and (self.top_k > 0 or self.top_p < 1.0)


def clipped_mass(logits: torch.Tensor, blocked: torch.Tensor) -> float:
    """1 − Σ p(t) over allowed t — the mass of the blocked tokens — under the model's unmasked
    distribution (``blocked``: a bool tensor, True where the mask refuses a token)."""
    probs = torch.softmax(logits.float(), dim=-1)
    return float((probs * blocked).sum())


def apply_mask(logits: torch.Tensor, blocked: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(blocked, MASK_VALUE)


def distribution(logits: torch.Tensor, params: SamplingParams) -> torch.Tensor:
    """The probabilities ``sample`` draws from (``temperature > 0``), over already-masked logits:
    temperature, then top-k (every token scoring at least the k-th), then top-p (the highest
    tokens until their mass reaches p, the one crossing it included), renormalised."""
    scores = logits.float() / params.temperature
    if params.top_k > 0:
        k = min(params.top_k, scores.shape[-1])
        kth = torch.topk(scores, k).values[-1]
        scores = scores.masked_fill(scores < kth, MASK_VALUE)
    if params.top_p < 1.0:
        sorted_scores, order = torch.sort(scores, descending=True)
        cum = torch.cumsum(torch.softmax(sorted_scores, dim=-1), dim=-1)
        drop = cum - torch.softmax(sorted_scores, dim=-1) > params.top_p  # keep the first over p
        sorted_scores = sorted_scores.masked_fill(drop, MASK_VALUE)
        scores = torch.empty_like(scores).scatter_(0, order, sorted_scores)
    return torch.softmax(scores, dim=-1)


def sample(logits: torch.Tensor, params: SamplingParams, generator: Any = None) -> int:
    """One token id from already-masked logits."""
    if params.temperature <= 0:
        return int(torch.argmax(logits))
    return int(torch.multinomial(distribution(logits, params), 1, generator=generator))


@dataclass
class Fitted:
    """A draw under a budget: the token, the tokens of the plain mask found not to fit on the way
    (drawn or ranked), and the narrowed mask's blocked tensor when it had to be built."""

    token: int
    refused: list[int] = field(default_factory=list)
    narrowed: torch.Tensor | None = None


def sample_fitting(
    masked: torch.Tensor,
    params: SamplingParams,
    generator: Any,
    fits: Callable[[int], bool],
    narrowed: Callable[[], torch.Tensor],
    drawn: int | None = None,
) -> Fitted:
    """One token from the distribution ``sample`` gives on the logits masked by the *narrowed*
    mask — ``masked`` is masked by the plain one (a superset), ``fits`` says whether a token is in
    the narrowed one, ``narrowed()`` builds its blocked tensor (the costly part, avoided when a
    few token walks settle the draw). ``drawn``: a token already drawn by ``sample(masked)``.

    Greedy and temperature: draw, and while the token does not fit, remove it and draw again
    (removing tokens and drawing again is drawing from the narrower mask). Top-k/top-p: the
    candidates are those of the fitting tokens, so the plain mask's tokens are tested in rank order
    until the fitting candidates are settled (``fitting_candidates``) and drawn from."""
    if params.truncates:
        got = fitting_candidates(masked, params, fits)
        if got is None:
            blocked = narrowed()
            return Fitted(sample(apply_mask(masked, blocked), params, generator), [], blocked)
        ids, probs, found = got
        pick = int(torch.multinomial(probs, 1, generator=generator))
        return Fitted(ids[pick], found)
    token = sample(masked, params, generator) if drawn is None else drawn
    refused: list[int] = []
    masked_now = masked
    for _ in range(CLOSING_REDRAWS + 1):
        if fits(token):
            return Fitted(token, refused)
        refused.append(token)
        if len(refused) > CLOSING_REDRAWS:
            break
        if masked_now is masked:
            masked_now = masked.clone()
        masked_now[token] = MASK_VALUE
        token = sample(masked_now, params, generator)
        if float(masked_now[token]) <= MASK_VALUE:
            break  # every token of the plain mask was tried
    blocked = narrowed()
    return Fitted(sample(apply_mask(masked, blocked), params, generator), refused, blocked)


def fitting_candidates(
    masked: torch.Tensor, params: SamplingParams, fits: Callable[[int], bool], tests: int = RANKED_TESTS
) -> tuple[list[int], torch.Tensor, list[int]] | None:
    """Top-k/top-p's candidates among the fitting tokens, with the probabilities ``distribution``
    gives them on the narrowed mask, and the tokens found not to fit; None when ``tests`` tokens
    tested in rank order do not settle them (then only the narrowed mask says).

    Tested from the highest score down, each fitting token keeps its place among the fitting
    ones. Top-k is settled by k fitting tokens (and those tied with the k-th). Top-p keeps a
    fitting token while the fitting mass above it is at most p of the whole fitting mass ``M``;
    ``M`` is known to lie between the fitting mass tested and that plus the mass not yet tested,
    so the cut is settled once both bounds put it in the same place (at once when the model is
    sure: one token over p). Every plain-mask token tested also settles it."""
    scores = masked.float() / params.temperature
    allowed = int((masked > MASK_VALUE).sum())
    probs = torch.softmax(scores, dim=-1).double()
    # one more than is tested: its score says whether the k-th fitting token's ties are all in
    ranked = torch.topk(scores, min(tests + 1, allowed))
    fit_ids: list[int] = []
    fit_scores: list[float] = []
    refused: list[int] = []
    tested_mass = 0.0
    for n, (score, token) in enumerate(zip(ranked.values.tolist(), ranked.indices.tolist(), strict=True)):
        if params.top_k > 0 and len(fit_ids) >= params.top_k and score < fit_scores[params.top_k - 1]:
            return _settled(fit_ids, fit_scores, params, refused)  # all ties with the k-th tested
        if n == tests:
            return None
        if fits(token):
            fit_ids.append(token)
            fit_scores.append(score)
        else:
            refused.append(token)
        tested_mass += float(probs[token])
        if n + 1 == allowed:
            return _settled(fit_ids, fit_scores, params, refused)  # every plain-mask token tested
        untested = 1.0 - tested_mass
        if params.top_k == 0 and fit_ids and _nucleus_settled(fit_ids, probs, params.top_p, untested):
            return _settled(fit_ids, fit_scores, params, refused)
    return None


def _nucleus_settled(fit_ids: list[int], probs: torch.Tensor, p: float, untested: float) -> bool:
    """Whether top-p's cut among the fitting tokens is the same for every fitting mass between
    the tested one and that plus ``untested``: no untested token can be kept, and no tested one
    is kept under one bound and dropped under the other."""
    mass = [float(probs[t]) for t in fit_ids]
    low = sum(mass)
    high = low + max(untested, 0.0)
    if low <= p * high:  # a fitting token not yet tested might still be kept
        return False
    above = 0.0
    for m in mass:
        if (above <= p * low) != (above <= p * high):
            return False
        above += m
    return True


def _settled(
    fit_ids: list[int], fit_scores: list[float], params: SamplingParams, refused: list[int]
) -> tuple[list[int], torch.Tensor, list[int]]:
    """Top-k, then top-p, over the fitting tokens found (in rank order): the kept ones and their
    renormalised probabilities, as ``distribution`` computes them on the narrowed mask."""
    ids, scores = fit_ids, torch.tensor(fit_scores, dtype=torch.float64)
    if params.top_k > 0 and len(ids) > params.top_k:
        keep = int((scores >= scores[params.top_k - 1]).sum())  # ties with the k-th stay
        ids, scores = ids[:keep], scores[:keep]
    probs = torch.softmax(scores, dim=-1)
    if params.top_p < 1.0:
        above = torch.cumsum(probs, dim=-1) - probs
        keep = int((above <= params.top_p).sum())
        ids, probs = ids[:keep], probs[:keep] / probs[:keep].sum()
    return ids, probs, refused
