"""Sampling in the order the architecture fixes: mask first, then temperature, top-k, top-p.

The mask uses a large negative *finite* value (not -inf) so that softmax never produces NaN even
if a caller masks every logit; the matcher guarantees that cannot happen for a valid grammar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

MASK_VALUE = -1e9


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0  # 0 = greedy
    top_k: int = 0  # 0 = off
    top_p: float = 1.0


def clipped_mass(logits: torch.Tensor, blocked: torch.Tensor) -> float:
    """1 − Σ p(t) over allowed t — the mass of the blocked tokens — under the model's unmasked
    distribution (``blocked``: a bool tensor, True where the mask refuses a token)."""
    probs = torch.softmax(logits.float(), dim=-1)
    return float((probs * blocked).sum())


def apply_mask(logits: torch.Tensor, blocked: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(blocked, MASK_VALUE)


def sample(logits: torch.Tensor, params: SamplingParams, generator: Any = None) -> int:
    """One token id from already-masked logits."""
    if params.temperature <= 0:
        return int(torch.argmax(logits))
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
    probs = torch.softmax(scores, dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))
