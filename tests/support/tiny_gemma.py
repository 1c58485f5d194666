"""A small Gemma 3 built from a config (random weights, no files): sliding-window layers between
full-attention ones, one key/value head for four query heads — the cache layout of Gemma 3 270M,
with a window of a few positions so that a short decode runs past it."""

from __future__ import annotations

from typing import Any

import torch


def tiny_gemma(window: int = 6, seed: int = 0) -> Any:
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(seed)
    config = Gemma3TextConfig(
        vocab_size=512,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=8,
        sliding_window=window,
        layer_types=["sliding_attention", "sliding_attention", "full_attention"],
        max_position_embeddings=256,
        attn_implementation="sdpa",
    )
    return Gemma3ForCausalLM(config).eval()
