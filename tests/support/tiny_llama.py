"""A small Llama built from a config (random weights, no files): a real transformers model with
grouped-query attention for tests of what the decode layer does around the forward pass."""

from __future__ import annotations

from typing import Any

import torch


def tiny_llama(attn: str = "sdpa", seed: int = 0) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=97,
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=6,
        num_key_value_heads=2,  # three query heads per key/value head
        max_position_embeddings=256,
        attn_implementation=attn,
    )
    return LlamaForCausalLM(config).eval()
