"""``kv_rows.GrowingLayer``: the cache appends in place instead of copying itself at every pass,
with the logits of transformers' own dynamic cache, bit for bit, through the passes the batched
loop makes (prefill, chunks, a crop of rejected draft positions, a row joining and leaving)."""

from __future__ import annotations

from typing import Any

import torch

from gramwright.decode.generate import _cache_argument
from gramwright.decode.kv_rows import GrowingLayer, KVRows, growing_cache
from tests.support.tiny_llama import tiny_llama


def run(model: Any, grow: bool) -> tuple[list[torch.Tensor], list[int]]:
    """Greedy-ish passes through ``KVRows`` as the loop makes them; returns the logits of every
    pass and, for the growing cache, the first layer's key buffer address after each pass."""
    arg = _cache_argument(model)
    kv = KVRows()
    logits: list[torch.Tensor] = []
    addresses: list[int] = []

    def prefill(ids: list[int]) -> None:
        extra = {arg: growing_cache(model.config)} if grow else {}
        out = model(input_ids=torch.tensor([ids]), use_cache=True, **extra)
        logits.append(out.logits[:, -1])
        kv.join(getattr(out, arg), len(ids))

    def step(feeds: list[list[int]], drops: list[int]) -> None:
        out = model(**kv.chunk(feeds, 0), use_cache=True, **{arg: kv.cache})
        kv.cache = getattr(out, arg)
        logits.append(out.logits)
        kv.reject(drops)
        addresses.append(kv.cache.layers[0].keys.data_ptr())

    with torch.inference_mode():
        prefill([5, 6, 7, 8, 9])
        step([[10]], [0])
        step([[11, 12, 13, 14]], [2])  # a draft of which two positions are rejected
        step([[15]], [0])
        step([[16, 17]], [0])
        prefill([20, 21, 22])  # a second row joins: the keys are replaced (a new buffer next)
        step([[18], [23]], [0, 0])
        step([[19, 30, 31], [24]], [1, 0])
        kv.leave([1])  # the first row leaves
        step([[25]], [0])
        step([[26]], [0])
    return logits, addresses


def test_the_logits_equal_the_dynamic_cache_s_bit_for_bit() -> None:
    model = tiny_llama()
    plain, _ = run(model, grow=False)
    grown, _ = run(model, grow=True)
    assert len(plain) == len(grown)
    for a, b in zip(plain, grown, strict=True):
        assert torch.equal(a, b)


def test_appends_stay_in_one_buffer_until_the_rows_change() -> None:
    model = tiny_llama()
    _, addresses = run(model, grow=True)
    # the first row alone: four passes, a crop among them, one buffer
    assert len(set(addresses[:4])) == 1
    # a row joined (keys replaced): the next pass lays a new buffer, the one after appends to it
    assert addresses[4] != addresses[3] and addresses[5] == addresses[4]
    # a row left (keys replaced again): likewise
    assert addresses[6] != addresses[5] and addresses[7] == addresses[6]


def test_only_plain_dynamic_layers_are_replaced() -> None:
    cache = growing_cache(tiny_llama().config)
    assert cache.layers and all(isinstance(layer, GrowingLayer) for layer in cache.layers)
