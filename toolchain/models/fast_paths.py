"""Which of the decode loop's shortcuts a model may take, decided from its config before any pass.

The batched loop has three ways of being faster than transformers' own decoding, all written for a
cache whose every layer is a plain ``DynamicLayer`` — one key and one value per cached position,
its length read off the keys' shape:

* the in-place cache (``decode/kv_rows.GrowingLayer``) and the rows of ``KVRows`` that join, leave
  and forget rejected draft positions by slicing those keys and values;
* drafts verified in one pass (``decode/verify.py``), which need that forgetting;
* grouped-query attention broadcast over a mask (``models/attention.gqa_sdpa``), on ``sdpa``.

A model with other layers in its cache — Gemma 3's sliding-window layers keep only the last
``sliding_window - 1`` positions and count the positions they have seen apart from the keys — is
outside what those shortcuts assume: slicing its keys leaves the count behind and the next mask one
column per forgotten position too wide. Such a model decodes as transformers does: one request at a
time, no drafts, the cache transformers builds, transformers' attention. The outputs are then
transformers' own; where the shortcuts are taken, their logits equal transformers' bit for bit
(``tests/models/test_fast_paths.py`` checks both, per model of the test matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FastPaths:
    """The decision for one model: ``cache`` covers the in-place cache, the batch rows and the
    drafts; ``attention`` the broadcast attention; ``reason`` says why not, empty when both hold."""

    cache: bool
    attention: bool
    reason: str = ""


def fast_paths(model: Any) -> FastPaths:
    """The shortcuts ``model`` may take (see the module's docstring)."""
    from transformers.cache_utils import DynamicCache, DynamicLayer

    config = getattr(model, "config", None)
    if config is None:
        return FastPaths(False, False, "the model has no transformers config")
    try:
        layers = DynamicCache(config=config).layers
    except (TypeError, ValueError, AttributeError) as exc:
        return FastPaths(False, False, f"transformers builds no dynamic cache for it ({exc})")
    others = sorted({type(layer).__name__ for layer in layers if type(layer) is not DynamicLayer})
    if others:
        return FastPaths(
            False, False, f"its cache has {', '.join(others)} layers: decoded as transformers does"
        )
    attends = getattr(config, "_attn_implementation", None)
    from gramwright.models.attention import NAME

    if attends not in ("sdpa", NAME):
        return FastPaths(True, False, f"it attends with {attends!r}, not sdpa")
    return FastPaths(True, True)
