"""The generation loop and the transformers LogitsProcessor on the real embedded model (few, short)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gramwright.decode.generate import GrammarLogitsProcessor, generate
from gramwright.decode.prompt import system_prompt
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, alt, literal, seq

pytestmark = pytest.mark.model


def test_constrained_generation_is_in_the_grammar_and_reports_metrics(
    embedded_model: tuple[Any, TokenVocabulary],
) -> None:
    from gramwright.models.loader import apply_chat_template

    lm, vocab = embedded_model
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
    engine = GrammarEngine(load_bundled("json"), vocab)
    prompt = apply_chat_template(lm.tokenizer, system_prompt(schema=schema), "A cat named Tom, age 3.")
    seen: list[bytes] = []
    result = generate(
        lm.model, lm.tokenizer, prompt, engine=engine, max_tokens=40, on_step=lambda s: seen.append(s.text)
    )
    assert result.finish_reason in ("stop", "length")
    assert b"".join(seen).decode() == result.text
    if result.finish_reason == "stop":
        json.loads(result.text)
    matcher = engine.matcher()
    for tid in result.token_ids:
        matcher.consume(tid)  # every generated token is in the grammar
    m = result.metrics
    assert m["tokens"] == len(result.steps) and m["mask_us_p50"] > 0
    assert m["mask_us_p50"] <= m["mask_us_p99"] and m["mask_us_mean"] > 0
    assert 0.0 < m["mask_share_of_token"] < 1.0  # the masker's part of the whole token time
    assert 0.0 <= m["clipped_mass_avg"] <= m["clipped_mass_max"] <= 1.0
    # forced steps (fast-forward) were not sampled: no distribution, no clipped mass
    assert all(s.clipped_mass is not None for s in result.steps if not s.forced)


def test_logits_processor_with_transformers_generate(embedded_model: tuple[Any, TokenVocabulary]) -> None:
    import torch
    from transformers import LogitsProcessorList

    lm, vocab = embedded_model
    grammar = Grammar({"root": seq(literal("Answer: "), alt(literal("yes"), literal("no")))})
    engine = GrammarEngine(grammar, vocab)
    ids = lm.tokenizer("Is the sky blue?", return_tensors="pt").input_ids
    proc = GrammarLogitsProcessor(engine, prompt_length=ids.shape[-1])
    with torch.inference_mode():
        out = lm.model.generate(
            ids, logits_processor=LogitsProcessorList([proc]), max_new_tokens=8, do_sample=False
        )
    new = out[0, ids.shape[-1] :].tolist()
    text = b"".join(vocab.token_bytes[t] for t in new if t not in vocab.eos_ids).decode()
    assert text in ("Answer: yes", "Answer: no")


def test_a_prompt_longer_than_the_context_is_refused_before_any_forward_pass(
    embedded_model: tuple[Any, TokenVocabulary],
) -> None:
    from gramwright.decode.generate import _room, context_length
    from gramwright.errors import ModelError

    lm, _vocab = embedded_model
    limit = context_length(lm.model)
    assert limit == 8192  # SmolLM2-135M's max_position_embeddings
    long_prompt = "word " * (limit + 100)  # well past it: more than one token per word or not
    with pytest.raises(ModelError, match=r"the model reads at most 8,192") as err:
        generate(lm.model, lm.tokenizer, long_prompt, engine=None, max_tokens=4)
    assert "fewer or smaller files" in err.value.one_line()
    # a prompt that fits with less room than asked: the output is capped there (and the metrics
    # say ``max_tokens_capped_to``); a prompt that leaves room for all of it is left alone
    assert _room(lm.model, limit - 10, 100) == 11  # the last token is never fed back
    assert _room(lm.model, limit, 5) == 1
    assert _room(lm.model, 100, 256) == 256
