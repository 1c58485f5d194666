"""``models/fast_paths``: the loop's shortcuts (in-place cache, batch rows, drafts, broadcast
attention) only for a model whose cache is plain dynamic layers; a model with sliding-window
layers (Gemma 3's layout, built small here) decodes as transformers does, with transformers'
greedy outputs, alone and in a batch."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from bench.tokenizers_fixtures import as_transformers_tokenizer, byte_level_tokenizer
from gramwright.decode.batch import generate_batch
from gramwright.decode.rows import BatchRequest
from gramwright.models.fast_paths import fast_paths
from tests.support.tiny_gemma import tiny_gemma
from tests.support.tiny_llama import tiny_llama

# repeated text: the copy drafter proposes continuations from the prompt, and most are rejected
PROMPTS = [
    "def add(a, b):\n    return a + b\n" * 3,
    "The quick brown fox jumps over the lazy dog. " * 2,
    '{"name": "Alice", "age": 30, "tags": ["a", "b"]}',
]


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    tok = as_transformers_tokenizer(byte_level_tokenizer(), eos_token="<|endoftext|>")
    tok.pad_token = tok.eos_token
    return tok


def transformers_greedy(model: Any, tokenizer: Any, prompt: str, n: int) -> list[int]:
    ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).input_ids
    with torch.inference_mode():
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=n,
            min_new_tokens=n,  # random weights may draw the end token: the same length either way
            pad_token_id=tokenizer.pad_token_id,
        )
    return [int(t) for t in out[0, ids.shape[-1] :]]


def test_the_decision_per_cache_layout() -> None:
    llama = fast_paths(tiny_llama())
    assert llama.cache and llama.attention and llama.reason == ""
    eager = fast_paths(tiny_llama("eager"))
    assert eager.cache and not eager.attention and "eager" in eager.reason
    gemma = fast_paths(tiny_gemma())
    assert not gemma.cache and not gemma.attention
    assert "DynamicSlidingWindowLayer" in gemma.reason


@pytest.mark.parametrize("batch_size", [1, 3])
def test_sliding_window_layers_decode_as_transformers_does(tokenizer: Any, batch_size: int) -> None:
    model = tiny_gemma()
    n = 24  # past the window of 6 positions, drafts offered at every step
    # the end token is masked in neither; random weights rarely draw it, and a row that does
    # ends there (its tokens so far must still be transformers')
    run = generate_batch(
        model,
        tokenizer,
        [BatchRequest(p, max_tokens=n) for p in PROMPTS],
        batch_size=batch_size,
        eos_ids=frozenset(),
    )
    assert run.transformers_path and run.summary()["transformers_path"] == run.transformers_path
    for prompt, result in zip(PROMPTS, run.results, strict=True):
        want = transformers_greedy(model, tokenizer, prompt, n)
        got = list(result.token_ids)
        assert got == want[: len(got)] and (len(got) == n or got[-1] == tokenizer.eos_token_id)
