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
def _built() -> list[Any]:
    """The throughput benchmark's cases: three of the twenty PO requests, and where
    ``../shared/data`` holds them the mixed schemas and the first edit case in both formats."""
    from bench.throughput import DATA, MIXED, build_cases

    kinds = ["po"]
    if MIXED.is_dir():
        kinds.append("mixed")
    if (DATA / "edits" / "cases.jsonl").is_file():
        kinds.append("edit")
    built = build_cases(generator(), kinds=tuple(kinds))
    return built[:3] + [c for c in built if c.kind != "po"]


def cases() -> list[tuple[str, GrammarEngine | None]]:
    """The benchmark's prompts with their engines (and one unconstrained row)."""
    built = _built()
    return [(c.prompt, c.engine) for c in built] + [(built[0].prompt, None)]


def edit_cases() -> list[tuple[str, GrammarEngine | None]]:
    return [(c.prompt, c.engine) for c in _built() if c.kind == "edit"]


def reference_greedy(prompt: str, engine: GrammarEngine | None, max_tokens: int) -> list[int]:
    """Greedy decoding written apart from the loop under test: the model's own cache, no
    attention mask nor positions, every step's logits restricted to the budget-narrowed mask's
    token ids (``Matcher.allowed_token_ids``: what the loop's greedy draw amounts to), the
    argmax taken."""
    import numpy as np
    import torch

    from gramwright.decode.generate import _cache_argument

    lm, vocab = loaded()
    model, tokenizer = lm.model, lm.tokenizer
    cache_arg = _cache_argument(model)
    matcher = engine.matcher(max_tokens) if engine is not None else None
    feed = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).input_ids
    past: Any = None
    out: list[int] = []
    with torch.inference_mode():
        while len(out) < max_tokens:
            step = model(input_ids=feed, use_cache=True, **{cache_arg: past})
            past = getattr(step, cache_arg)
            logits = step.logits[0, -1]
            if matcher is not None:
                allowed = torch.from_numpy(matcher.allowed_token_ids().astype(np.int64))
                token = int(allowed[logits[allowed].argmax()])
                matcher.consume(token)
            else:
                token = int(logits.argmax())
            if token in vocab.eos_ids:
                break
            out.append(token)
            if matcher is not None and matcher.is_terminated():
                break
            feed = torch.tensor([[token]])
    return out


def test_greedy_outputs_equal_a_plain_decode_alone_and_batched_row_by_row() -> None:
    """``generate`` (a batch of one) and rows of a batch that others join and leave both give
    the plain decode's tokens, fast-forward off. The rows: three of bench.throughput's twenty PO
    requests (the other seventeen are the same schema and instructions over other orders; all
    of them cost minutes on two cores), its mixed and edit cases, one unconstrained row."""
    lm, vocab = loaded()
    rows = cases()
    # a few tokens past each grammar's shortest output: the budget closes some rows, as in use
    budgets = [max(40, (engine.shortest_output() or 0) + 4) if engine else 40 for _, engine in rows]
    plain = [
        reference_greedy(prompt, engine, budget)
        for (prompt, engine), budget in zip(rows, budgets, strict=True)
    ]
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
    for i, (tokens, one, batched) in enumerate(zip(plain, single, run.results, strict=True)):
        assert one.token_ids == tokens, f"row {i} alone"
        assert batched.token_ids == tokens, f"row {i} batched"
        assert batched.text == one.text and batched.finish_reason == one.finish_reason, f"row {i}"
        assert batched.closing_offset == one.closing_offset, f"row {i}"
        for r in (one, batched):  # time to first token and the rate after it
            ttft, elapsed = r.metrics["ttft_s"], r.metrics["elapsed_s"]
            assert 0 < ttft < elapsed, f"row {i}"
            assert r.metrics["first_tokens"] == 1, f"row {i}"  # fast-forward off: one token a pass
            rate = (len(r.steps) - 1) / (elapsed - ttft)
            assert r.metrics["decode_tokens_per_s"] == pytest.approx(rate, rel=0.01, abs=0.01), f"row {i}"
    assert any(r.closing_offset is not None for r in single)  # the budget's draw was exercised
    assert run.forward_passes < sum(len(r.steps) for r in single)  # rows shared forward passes


def test_fast_forward_outputs_stay_in_the_grammar_and_the_budget_and_take_fewer_passes() -> None:
    """Fast-forward appended (no speculation: forced tokens go in unverified) and verified (the
    default for greedy rows: forced tokens drafted, the output step-by-step decoding's)."""
    lm, vocab = loaded()
    for prompt, engine in cases()[:3]:
        assert engine is not None
        max_tokens = max(48, (engine.shortest_output() or 0) + 8)
        common = {"engine": engine, "max_tokens": max_tokens, "eos_ids": vocab.eos_ids}
        result = generate(lm.model, lm.tokenizer, prompt, speculate=False, **common)
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
            [BatchRequest(prompt, engine, max_tokens=max_tokens, speculate=False)],
            eos_ids=vocab.eos_ids,
        ).results[0]
        assert batched.token_ids == result.token_ids  # fast-forward batched as single

        stepwise = generate(lm.model, lm.tokenizer, prompt, fast_forward=False, speculate=False, **common)
        verified = generate(lm.model, lm.tokenizer, prompt, **common)
        assert verified.token_ids == stepwise.token_ids and verified.text == stepwise.text
        v = verified.metrics
        assert v["forced_tokens"] == 0 and v["forced_accepted_tokens"] > 0
        assert v["forced_accepted_tokens"] <= v["forced_drafted_tokens"] <= v["drafted_tokens"]
        # every kept draft token (forced or copied) saved a forward pass
        assert v["forward_passes"] == len(verified.steps) - v["accepted_tokens"]
        assert v["forward_passes"] < stepwise.metrics["forward_passes"]


def test_copy_speculation_keeps_greedy_outputs_and_saves_forward_passes() -> None:
    """Speculation (copies, and with fast-forward forced text) against step-by-step decoding:
    the same tokens row by row, alone (the cache cropped) and two rows at a time (the rejected
    columns masked in a shared cache)."""
    lm, vocab = loaded()
    rows = cases()
    picked = edit_cases()
    if not picked:
        pytest.skip("the edit cases (../shared/data/edits) are absent: drafts are made from their files")
    picked += [rows[0], rows[-1]]  # a purchase order, and a row without a grammar
    budgets = [max(48, (engine.shortest_output() or 0) + 8) if engine else 48 for _, engine in picked]
    drafted = accepted = 0
    plain = generate_batch(
        lm.model,
        lm.tokenizer,
        [
            BatchRequest(p, e, max_tokens=b, fast_forward=False, speculate=False)
            for (p, e), b in zip(picked, budgets, strict=True)
        ],
        batch_size=1,
        eos_ids=vocab.eos_ids,
    )
    for fast_forward in (False, True):  # on: forced text drafted too
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
                # a draft riding with the prompt's prefill makes its first tokens more than one
                assert 1 <= b.metrics["first_tokens"] <= len(b.steps), where
            if batch_size == 1:
                firsts = [r.metrics["first_tokens"] for r in spec.results]
                assert fast_forward is False or max(firsts) > 1, firsts
                drafted += spec.drafted
                accepted += spec.accepted
                assert spec.forward_passes <= plain.forward_passes
    assert accepted > 0 and drafted > accepted  # drafts were made, kept and cut


def test_a_forced_run_the_model_spelled_its_own_way_is_drafted_so_the_next_time() -> None:
    """The model writes the edit format's markers otherwise than its tokenizer spells them; once
    seen, the next draft of the same forced text follows the model (``forced.Spellings``): the
    same output in fewer forward passes."""
    from gramwright.decode.forced import spellings

    lm, vocab = loaded()
    picked = edit_cases()
    if not picked:
        pytest.skip("the edit cases (../shared/data/edits) are absent")
    prompt, engine = picked[0]
    assert engine is not None
    memory = spellings(lm.tokenizer)
    memory._known.clear()
    runs = [
        generate_batch(
            lm.model,
            lm.tokenizer,
            [BatchRequest(prompt, engine, max_tokens=96)],
            batch_size=1,
            eos_ids=vocab.eos_ids,
        )
        for _ in range(2)
    ]
    assert len(memory) > 0  # the first run taught it
    first, second = (run.results[0] for run in runs)
    assert second.token_ids == first.token_ids and second.text == first.text
    assert runs[1].forward_passes < runs[0].forward_passes
    assert second.metrics["forced_accepted_tokens"] > first.metrics["forced_accepted_tokens"]


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


class SlowMasker:
    """A masker that allows every token and takes 20 ms to say so (a cold grammar state)."""

    def fill(self, words: Any, row: int) -> None:
        import time

        time.sleep(0.02)
        words[row] = -1

    def consume(self, token: int) -> None:
        pass

    def is_terminated(self) -> bool:
        return False


def test_a_steps_mask_time_counts_the_fill_the_loop_waited_for() -> None:
    lm, vocab = loaded()
    prompt = cases()[0][0]
    request = BatchRequest(prompt, None, max_tokens=3, masker=SlowMasker())
    inline = generate_batch(lm.model, lm.tokenizer, [request], overlap=False, eos_ids=vocab.eos_ids)
    steps = inline.results[0].steps
    assert len(steps) == 3 and all(s.mask_us is not None and s.mask_us >= 20_000 for s in steps)
    # overlapped: each step counts what the loop waited for, never more than the fill took
    side = generate_batch(lm.model, lm.tokenizer, [request], overlap=True, eos_ids=vocab.eos_ids)
    waited_us = sum(s.mask_us or 0.0 for s in side.results[0].steps)
    assert waited_us <= sum(s.mask_us or 0.0 for s in steps) + 20_000
    assert side.mask_wait_s <= side.mask_fill_s + 0.02


def test_a_fully_forced_output_takes_at_most_the_prefill() -> None:
    """Appended (no speculation): no forward pass at all. Verified (the greedy default): the
    prefill's one pass checks the whole forced text, which is the model's own choice here."""
    lm, vocab = loaded()
    engine = GrammarEngine(Grammar({"root": literal('{"answer": "yes"}')}), vocab)
    common = {"engine": engine, "max_tokens": 32, "eos_ids": vocab.eos_ids}
    result = generate(lm.model, lm.tokenizer, "Answer.", speculate=False, **common)
    assert result.text == '{"answer": "yes"}' and result.finish_reason == "stop"
    assert all(s.forced for s in result.steps) and result.metrics["forward_passes"] == 0
    stepwise = generate(lm.model, lm.tokenizer, "Answer.", fast_forward=False, speculate=False, **common)
    assert stepwise.text == result.text and stepwise.metrics["forward_passes"] == len(stepwise.steps)
    verified = generate(lm.model, lm.tokenizer, "Answer.", **common)
    assert verified.token_ids == stepwise.token_ids and verified.finish_reason == "stop"
    assert verified.metrics["forward_passes"] < len(stepwise.steps)


def test_lending_the_free_core_keeps_greedy_outputs(monkeypatch: Any) -> None:
    """The default thread policy on a quiet machine (``models/threads``): every pass takes one
    thread more than the base count. Outputs stay the plain decode's (computed with the base
    count), alone and batched, fast-forward off."""
    import itertools

    import torch

    from gramwright.decode import batch
    from gramwright.models.threads import CoreMonitor, ThreadPolicy, Threads

    lm, vocab = loaded()
    base = torch.get_num_threads()
    seconds = itertools.count(start=0.0, step=1.0)
    quiet = CoreMonitor(
        frozenset({0}), read=lambda: "cpu0 0 0 0 0 0 0 0 0\n", own=lambda: 0.0, clock=lambda: next(seconds)
    )
    quiet.others()
    lent = Threads(ThreadPolicy(base, "default", most=base + 1), quiet)
    monkeypatch.setattr(batch, "current_threads", lambda: lent)
    rows = cases()[:2] + edit_cases()[:1]
    budgets = [max(24, (engine.shortest_output() or 0) + 4) if engine else 24 for _, engine in rows]
    plain = [reference_greedy(p, e, b) for (p, e), b in zip(rows, budgets, strict=True)]
    single = [
        generate(lm.model, lm.tokenizer, p, engine=e, max_tokens=b, fast_forward=False, eos_ids=vocab.eos_ids)
        for (p, e), b in zip(rows, budgets, strict=True)
    ]
    requests = [
        BatchRequest(p, e, max_tokens=b, fast_forward=False) for (p, e), b in zip(rows, budgets, strict=True)
    ]
    run = generate_batch(lm.model, lm.tokenizer, requests, batch_size=2, eos_ids=vocab.eos_ids)
    assert torch.get_num_threads() == base  # back to the base count after a run
    for i, (tokens, one, batched) in enumerate(zip(plain, single, run.results, strict=True)):
        assert one.metrics["passes_by_threads"] == {str(base + 1): one.metrics["forward_passes"]}, f"row {i}"
        assert one.token_ids == tokens, f"row {i} alone"
        assert batched.token_ids == tokens, f"row {i} batched"
    assert run.summary()["passes_by_threads"] == {str(base + 1): run.forward_passes}
