"""Attention over several positions on a CPU without copying the keys and values per query head.

In grouped-query attention (SmolLM2-135M: 9 query heads share 3 key/value heads) transformers'
``sdpa`` attention lets torch broadcast the shared heads in two cases — one query position
(``pack_gqa``), or no mask (``enable_gqa``) — and otherwise copies every key and value head once per
query head it serves (``repeat_kv``) before calling torch's SDPA. A verification pass (a draft's
positions over the KV cache, with a mask; ``decode/verify.py``) is that otherwise, and on a CPU
the copies, the whole cache's keys and values in every layer, took about a quarter of a 4-position
pass. ``gqa_sdpa`` makes the same SDPA call with ``enable_gqa=True`` so that torch broadcasts the
heads instead; the arithmetic is the same and the logits equal bit for bit
(``tests/models/test_attention.py``). On a GPU transformers' choice stands: a mask with
``enable_gqa`` sends SDPA to its slowest kernel there.
"""

from __future__ import annotations

from typing import Any

import torch

NAME = "gramwright_sdpa"


def gqa_sdpa(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    is_causal: bool | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """transformers' ``sdpa`` attention (same arguments, same result), with the shared key/value
    heads broadcast by torch where transformers would copy them: several query positions, a mask,
    on the CPU. Everything else goes to transformers' own function."""
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    plain = (
        getattr(module, "num_key_value_groups", 1) == 1
        or query.shape[2] == 1
        or attention_mask is None
        or query.device.type != "cpu"
        or key.shape[-1] != value.shape[-1]
        or kwargs.get("position_bias") is not None
        or kwargs.get("softcap") is not None
        or kwargs.get("output_attentions", False)
    )
    if plain:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout, scaling, is_causal, **kwargs
        )
    out = torch.nn.functional.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=dropout,
        scale=scaling,
        is_causal=False,  # the mask says it, as in transformers' function when a mask is given
        enable_gqa=True,
    )
    return out.transpose(1, 2).contiguous(), None


def use_gqa_sdpa(model: Any) -> bool:
    """Switch a model that attends with transformers' ``sdpa`` to ``gqa_sdpa`` (registered with
    transformers' attention and mask interfaces once, its masks ``sdpa``'s); False, and the
    model unchanged, where it attends otherwise."""
    config = getattr(model, "config", None)
    current = getattr(config, "_attn_implementation", None)
    if current == NAME:
        return True
    if current != "sdpa" or not hasattr(model, "set_attn_implementation"):
        return False
    from transformers import AttentionInterface, AttentionMaskInterface
    from transformers.masking_utils import sdpa_mask

    AttentionInterface.register(NAME, gqa_sdpa)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    model.set_attn_implementation(NAME)
    return True
