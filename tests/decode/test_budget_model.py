"""The token budget on the real embedded model: a constrained output is always complete within
``max_tokens``, says when the budget closed it, and the transformers processor takes the budget."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from gramwright.decode.generate import GrammarLogitsProcessor, generate
from gramwright.decode.prompt import system_prompt
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.schema import compile_schema

pytestmark = pytest.mark.model

SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["summary", "tags"],
    "additionalProperties": False,
}


def test_a_tight_budget_closes_the_output_complete_and_valid(
    embedded_model: tuple[Any, TokenVocabulary],
) -> None:
    from gramwright.models.loader import apply_chat_template

    lm, vocab = embedded_model
    engine = GrammarEngine(compile_schema(SCHEMA).grammar, vocab)
    shortest = engine.shortest_output()
    assert shortest is not None
    prompt = apply_chat_template(
        lm.tokenizer, system_prompt(schema=SCHEMA), "Summarise the history of the Roman Empire in detail."
    )
    budget = shortest + 12
    result = generate(lm.model, lm.tokenizer, prompt, engine=engine, max_tokens=budget)
    assert result.finish_reason == "stop"
    assert len(result.steps) <= budget
    jsonschema.validate(json.loads(result.text), SCHEMA)
    assert result.closed_by_budget  # a long answer asked for, 12 tokens over the shortest
    assert result.closing_offset is not None and 0 < result.closing_offset <= len(result.text)
    assert result.metrics["closing_steps"] >= 1
    assert any(s.closing for s in result.steps)


def test_logits_processor_takes_max_new_tokens(embedded_model: tuple[Any, TokenVocabulary]) -> None:
    import torch
    from transformers import LogitsProcessorList

    lm, vocab = embedded_model
    engine = GrammarEngine(load_bundled("json"), vocab)
    ids = lm.tokenizer("Write a long JSON list of fruits:", return_tensors="pt").input_ids
    proc = GrammarLogitsProcessor(engine, prompt_length=ids.shape[-1], max_new_tokens=10)
    with torch.inference_mode():
        out = lm.model.generate(
            ids, logits_processor=LogitsProcessorList([proc]), max_new_tokens=10, do_sample=False
        )
    new = out[0, ids.shape[-1] :].tolist()
    assert len(new) <= 10
    text = b"".join(vocab.token_bytes[t] for t in new if t not in vocab.eos_ids).decode()
    json.loads(text)  # complete within the budget, though transformers stops at 10 either way
