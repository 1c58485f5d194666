"""Batched generation (``decode/batch.py``) and fast-forward on the real embedded model: greedy
batched outputs equal the single loop's row by row, fast-forward keeps outputs in the grammar and
within the budget, the LogitsProcessor masks a batched ``model.generate``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest

from gramwright.decode.batch import BatchRequest, generate_batch
from gramwright.decode.generate import GrammarLogitsProcessor, generate
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar, alt, literal, seq

pytestmark = pytest.mark.model


@lru_cache(maxsize=1)
def generator() -> Any:
    from gramwright.generation import Generator

    return Generator(device="cpu")


def loaded() -> tuple[Any, TokenVocabulary]:
    gen = generator()
    return gen.load_model(), gen.vocab


@lru_cache(maxsize=1)
def cases() -> list[tuple[str, GrammarEngine | None]]:
    """The throughput benchmark's prompts with their engines (and one unconstrained row)."""
    from bench.throughput import build_cases

    built = build_cases(generator(), kinds=("po", "mixed", "edit"))
    built = built[:3] + [c for c in built if c.kind != "po"]  # three of the twenty PO requests
    return [(c.prompt, c.engine) for c in built] + [(built[0].prompt, None)]


def test_batched_greedy_outputs_equal_single_ones_row_by_row() -> None:
    lm, vocab = loaded()
    rows = cases()
    # a few tokens past each grammar's shortest output: the budget closes some rows, as in use
    budgets = [max(40, (engine.shortest_output() or 0) + 4) if engine else 40 for _, engine in rows]
    single = [
        generate(
            lm.model,
            lm.tokenizer,
            prompt,
            engine=engine,
            max_tokens=budget,
            fast_forward=False,
            eos_ids=vocab.eos_ids,
        )
        for (prompt, engine), budget in zip(rows, budgets, strict=True)
    ]
    requests = [
        BatchRequest(prompt, engine, max_tokens=budget, fast_forward=False)
        for (prompt, engine), budget in zip(rows, budgets, strict=True)
    ]
    # fewer slots than requests: rows leave and join while others are mid-way
    run = generate_batch(lm.model, lm.tokenizer, requests, batch_size=3, eos_ids=vocab.eos_ids)
    assert len(run.results) == len(rows)
    for i, (one, batched) in enumerate(zip(single, run.results, strict=True)):
        assert batched.token_ids == one.token_ids, f"row {i}"
        assert batched.text == one.text and batched.finish_reason == one.finish_reason, f"row {i}"
        assert batched.closing_offset == one.closing_offset, f"row {i}"
    assert run.forward_passes < sum(len(r.steps) for r in single)  # rows shared forward passes


def test_fast_forward_outputs_stay_in_the_grammar_and_the_budget_and_take_fewer_passes() -> None:
    lm, vocab = loaded()
    for prompt, engine in cases()[:3]:
        assert engine is not None
        max_tokens = max(48, (engine.shortest_output() or 0) + 8)
        result = generate(
            lm.model, lm.tokenizer, prompt, engine=engine, max_tokens=max_tokens, eos_ids=vocab.eos_ids
        )
        matcher = engine.matcher(max_tokens)
        for token in result.token_ids:
            matcher.consume(token)  # forced tokens included: each is in the grammar and the budget
        assert result.finish_reason == "stop" and len(result.steps) <= max_tokens
        m = result.metrics
        assert m["forced_tokens"] == sum(s.forced for s in result.steps) > 0
        # one forward pass per sampled token; the forced ones ride along
        assert m["forward_passes"] == len(result.steps) - m["forced_tokens"]
        assert all(s.clipped_mass is None for s in result.steps if s.forced)
        batched = generate_batch(
            lm.model,
            lm.tokenizer,
            [BatchRequest(prompt, engine, max_tokens=max_tokens)],
            eos_ids=vocab.eos_ids,
        ).results[0]
        assert batched.token_ids == result.token_ids  # fast-forward batched as single


def test_copy_speculation_keeps_greedy_outputs_and_saves_forward_passes() -> None:
    """Speculation on against off, fast-forward off and on: the same tokens row by row, alone
    (the cache cropped) and two rows at a time (the rejected columns masked in a shared cache)."""
    lm, vocab = loaded()
    rows = cases()
    picked = [c for c in rows if c[1] is not None and c[1] not in {e for _, e in rows[:7]}]  # the edits
    picked += [rows[0], rows[-1]]  # a purchase order, and a row without a grammar
    budgets = [max(48, (engine.shortest_output() or 0) + 8) if engine else 48 for _, engine in picked]
    drafted = accepted = 0
    for fast_forward in (False, True):
        plain = generate_batch(
            lm.model,
            lm.tokenizer,
            [
                BatchRequest(p, e, max_tokens=b, fast_forward=fast_forward, speculate=False)
                for (p, e), b in zip(picked, budgets, strict=True)
            ],
            batch_size=1,
            eos_ids=vocab.eos_ids,
        )
        for batch_size in (1, 2):
            spec = generate_batch(
                lm.model,
                lm.tokenizer,
                [
                    BatchRequest(p, e, max_tokens=b, fast_forward=fast_forward)
                    for (p, e), b in zip(picked, budgets, strict=True)
                ],
                batch_size=batch_size,
                eos_ids=vocab.eos_ids,
            )
            for i, (a, b) in enumerate(zip(plain.results, spec.results, strict=True)):
                where = f"row {i}, fast-forward {fast_forward}, batch {batch_size}"
                assert b.token_ids == a.token_ids and b.text == a.text, where
                assert b.finish_reason == a.finish_reason and b.closing_offset == a.closing_offset, where
                assert b.metrics["speculate"] and not a.metrics["speculate"]
                assert b.metrics["accepted_tokens"] <= b.metrics["drafted_tokens"]
            if batch_size == 1:
                drafted += spec.drafted
                accepted += spec.accepted
                assert spec.forward_passes <= plain.forward_passes
    assert accepted > 0 and drafted > accepted  # drafts were made, kept and cut


def test_logits_processor_masks_each_row_of_a_batched_generate() -> None:
    import torch
    from transformers import LogitsProcessorList

    lm, vocab = loaded()
    grammar = Grammar({"root": seq(literal("Answer: "), alt(literal("yes"), literal("no")))})
    engine = GrammarEngine(grammar, vocab)
    tok = lm.tokenizer
    tok.padding_side = "left"
    enc = tok(["Is the sky blue?", "Is fire cold? Answer briefly please."], return_tensors="pt", padding=True)
    proc = GrammarLogitsProcessor(engine, prompt_length=enc.input_ids.shape[-1], max_new_tokens=16)
    with torch.inference_mode():
        out = lm.model.generate(
            **enc,
            logits_processor=LogitsProcessorList([proc]),
            max_new_tokens=16,
            do_sample=False,
            pad_token_id=tok.pad_token_id,
        )
    assert len(proc.matchers) == 2
    for row in out[:, enc.input_ids.shape[-1] :].tolist():
        text = b"".join(vocab.token_bytes[t] for t in row if t not in vocab.eos_ids and t != tok.pad_token_id)
        assert text.decode() in ("Answer: yes", "Answer: no")
