"""``models/attention.gqa_sdpa``: grouped-query attention over several positions with a mask,
the shared key/value heads broadcast by torch instead of copied — the same logits as transformers'
``sdpa``, bit for bit, on a small Llama built here and on the embedded model."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from gramwright.decode.generate import _cache_argument
from gramwright.models.attention import NAME, use_gqa_sdpa
from tests.support.tiny_llama import tiny_llama


def passes(model: Any) -> list[torch.Tensor]:
    """Logits of a two-row batch (the second row left-padded): a prefill, a 4-position chunk over
    the cache, then a one-position step — the shapes of the batched loop's passes."""
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [0, 0, 11, 12, 13, 14]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    pos = torch.tensor([[0, 1, 2, 3, 4, 5], [0, 0, 0, 1, 2, 3]])
    out: list[torch.Tensor] = []
    arg = _cache_argument(model)
    with torch.inference_mode():
        first = model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True)
        out.append(first.logits)
        cache = getattr(first, arg)
        chunk = torch.tensor([[20, 21, 22, 23], [30, 31, 32, 33]])
        mask = torch.cat([mask, torch.ones(2, 4, dtype=torch.long)], dim=1)
        pos = torch.tensor([[6, 7, 8, 9], [4, 5, 6, 7]])
        second = model(input_ids=chunk, attention_mask=mask, position_ids=pos, use_cache=True, **{arg: cache})
        out.append(second.logits)
        mask = torch.cat([mask, torch.ones(2, 1, dtype=torch.long)], dim=1)
        third = model(
            input_ids=torch.tensor([[40], [41]]),
            attention_mask=mask,
            position_ids=torch.tensor([[10], [8]]),
            use_cache=True,
            **{arg: getattr(second, arg)},
        )
        out.append(third.logits)
    return out


def test_the_same_logits_as_transformers_sdpa_bit_for_bit() -> None:
    plain = passes(tiny_llama())
    model = tiny_llama()
    assert use_gqa_sdpa(model)
    assert model.config._attn_implementation == NAME
    mine = passes(model)
    for a, b in zip(plain, mine, strict=True):
        assert torch.equal(a, b)


def test_a_model_that_does_not_attend_with_sdpa_is_left_as_it_is() -> None:
    model = tiny_llama("eager")
    assert not use_gqa_sdpa(model)
    assert model.config._attn_implementation == "eager"


@pytest.mark.model
def test_the_embedded_model_on_the_cpu_attends_so_and_a_chunk_keeps_its_logits(
    embedded_model: tuple[Any, Any],
) -> None:
    lm, _vocab = embedded_model
    model = lm.model
    assert model.config._attn_implementation == NAME  # load_model switched it (device cpu)
    ids = torch.arange(1000, 1040).unsqueeze(0)
    chunk = torch.arange(2000, 2006).unsqueeze(0)
    mask = torch.ones(1, 46, dtype=torch.long)
    got = []
    arg = _cache_argument(model)
    try:
        for impl in (NAME, "sdpa"):
            model.set_attn_implementation(impl)
            with torch.inference_mode():
                first = model(input_ids=ids, use_cache=True)
                cache = getattr(first, arg)
                second = model(input_ids=chunk, attention_mask=mask, use_cache=True, **{arg: cache})
            got.append(second.logits)
    finally:
        model.set_attn_implementation(NAME)
    assert torch.equal(got[0], got[1])
