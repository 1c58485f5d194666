"""The generation loop: many requests (different prompts and grammars) share each forward pass.

The only loop: ``generate.generate`` runs one request as a batch of one through
``generate_batch`` (overlap off), so a request alone and a row of a batch take the same steps.

Continuous batching: up to ``batch_size`` requests are in the batch at once; a request that ends
leaves at once and the next waiting one joins (``kv_rows.py``: its prompt is prefilled on its own
and its keys copied into the shared cache). Each row has its own matcher, budget, sampling
parameters, seed, fast-forward and step callback; the result per request is a
``GenerationResult`` (finish reason, budget close, clipped mass, metrics).

Masks, per step: every row's bitset is written into one ``(rows, ceil(V/32))`` int32 array (the
engines cache each state's bitset; a row without a grammar gets all bits), which is unpacked once
on the logits' device and applied with one ``masked_fill``; the clipped mass of every row is one
softmax. Only the 6 KB bitset per row crosses to a GPU, never a vocabulary-wide row.

Overlap (``overlap=True``): the next step's masks depend only on tokens already chosen, so a
worker thread fills the bitset while the forward pass runs (torch releases the GIL inside its
kernels; on a GPU the forward is asynchronous anyway). ``BatchRun`` reports how long the masks
took and how much of it the forward pass hid. A step's ``mask_us`` counts the row's fill that
the loop waited for (all of it without overlap), its share of the unpacking, and the budget's
checks.

Greedy outputs equal a plain decode's row by row, alone or batched
(``tests/decode/test_batch_model.py``), as long as the model's numbers do: padded columns are
masked, positions are per row.

Where the parts are: a request and its row in flight, the bitset fill and a row's result in
``rows.py``; the drafts (copies, forced text) and the choice of each row's tokens from a pass's
logits, verifying the draft, in ``verify.py``; the shared KV cache in ``kv_rows.py``. Here: the
loop (join, draft, forward, choose, retire) and what the run cost (``BatchRun``). A joining row's
first draft rides with its prompt's prefill.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from gramwright.decode import verify
from gramwright.decode.forced import forced_tokens
from gramwright.decode.generate import GenerationResult, _cache_argument, _room
from gramwright.decode.kv_rows import growing_cache
from gramwright.decode.rows import (
    BatchRequest,
    Row,
    RowMasker,
    append_forced,
    fill_bitmask,
    row_result,
    timed_fill,
)
from gramwright.engine import bitset
from gramwright.models.fast_paths import fast_paths
from gramwright.models.threads import current as current_threads

__all__ = ["BatchRequest", "BatchRun", "RowMasker", "generate_batch"]


@dataclass
class BatchRun:
    """The results in request order, and what the batch as a whole cost."""

    results: list[GenerationResult]
    forward_passes: int = 0
    elapsed_s: float = 0.0
    forward_s: float = 0.0
    mask_fill_s: float = 0.0  # writing the rows' bitsets (the engines' masks, cold or cached)
    mask_wait_s: float = 0.0  # … of which the loop waited for after the forward pass
    mask_apply_s: float = 0.0  # unpacking the bitset, clipped mass, masked_fill, sampling
    # per decode step (prefills of joining rows excluded): rows in the batch, tokens the step
    # added (sampled and forced), seconds from the forward pass to the tokens chosen
    decode_steps: list[tuple[int, int, float]] = field(default_factory=list)
    batch_size: int = 0
    # forward passes per torch thread count (``models/threads``: the core otherwise kept free
    # is lent to torch while other processes leave it free)
    threads: Counter[int] = field(default_factory=Counter)
    # why the model decodes as transformers does (one request at a time, no drafts; empty: the
    # loop's shortcuts, ``models/fast_paths``)
    transformers_path: str = ""

    @property
    def tokens(self) -> int:
        return sum(len(r.steps) for r in self.results)

    def full_batch_tokens_per_s(self) -> float:
        """Tokens per second over the decode steps that ran with the batch full: what the masks
        cost per step at a given occupancy. The whole run's tokens/s also depends on how long the
        outputs are (a short output pays its prompt's prefill over fewer tokens, and a batch
        drains as its last rows finish), which differs between constrained and free text."""
        full = [(made, s) for rows, made, s in self.decode_steps if rows == self.batch_size]
        seconds = sum(s for _made, s in full)
        return round(sum(made for made, _s in full) / seconds, 2) if seconds else 0.0

    @property
    def drafted(self) -> int:
        return sum(int(r.metrics.get("drafted_tokens", 0)) for r in self.results)

    @property
    def accepted(self) -> int:
        return sum(int(r.metrics.get("accepted_tokens", 0)) for r in self.results)

    def summary(self) -> dict[str, Any]:
        fill = self.mask_fill_s
        return {
            "requests": len(self.results),
            "tokens": self.tokens,
            "tokens_per_s": round(self.tokens / self.elapsed_s, 2) if self.elapsed_s else 0.0,
            "forward_passes": self.forward_passes,
            "forward_passes_per_token": round(self.forward_passes / self.tokens, 3) if self.tokens else 0.0,
            "drafted_tokens": self.drafted,
            "accepted_tokens": self.accepted,
            "acceptance": round(self.accepted / self.drafted, 3) if self.drafted else 0.0,
            "forward_s": round(self.forward_s, 3),
            "passes_by_threads": {str(n): self.threads[n] for n in sorted(self.threads)},
            "mask_fill_s": round(fill, 3),
            "mask_wait_s": round(self.mask_wait_s, 3),
            # the part of the mask work the forward pass hid; a wait longer than the work (the
            # worker's hand-off on a loaded machine) hides nothing, and shows in mask_wait_s
            "mask_overlapped": round(max(0.0, fill - self.mask_wait_s) / fill, 3) if fill else 0.0,
            "mask_apply_s": round(self.mask_apply_s, 3),
            "full_batch_steps": sum(1 for rows, _m, _s in self.decode_steps if rows == self.batch_size),
            "full_batch_tokens_per_s": self.full_batch_tokens_per_s(),
            "mask_share_of_step": round((self.mask_wait_s + self.mask_apply_s) / self.elapsed_s, 4)
            if self.elapsed_s
            else 0.0,
            "transformers_path": self.transformers_path,
        }


@torch.inference_mode()
def generate_batch(
    model: Any,
    tokenizer: Any,
    requests: Sequence[BatchRequest],
    *,
    batch_size: int = 8,
    overlap: bool = True,
    eos_ids: frozenset[int] = frozenset(),
) -> BatchRun:
    """Generate for every request, at most ``batch_size`` at a time (continuous batching), one
    forward pass per step for the whole batch. Each request behaves as ``generate`` with the same
    arguments; budgets below a grammar's shortest output raise ``BudgetTooSmall`` when that
    request joins. A model outside the loop's shortcuts (``models/fast_paths``) takes one request
    at a time, without drafts, through the cache transformers builds."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    paths = fast_paths(model)
    if not paths.cache:
        batch_size = 1
    cache_arg = _cache_argument(model)
    keeps_logits = _keeps_logits(model)
    on_cpu = next(model.parameters()).device.type == "cpu"
    words = _logits_words(model)
    pad_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)
    waiting = deque(enumerate(requests))
    results: list[GenerationResult | None] = [None] * len(requests)
    run = BatchRun([], batch_size=min(batch_size, len(requests)), transformers_path=paths.reason)
    active: list[Row] = []
    kv = _new_rows()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gramwright-masks") if overlap else None
    threads = current_threads()
    started = time.perf_counter()
    try:
        while active or waiting:
            while waiting and len(active) < batch_size:
                index, request = waiting.popleft()
                count = threads.use()
                row, logits = _join(
                    model, tokenizer, index, request, kv, cache_arg, eos_ids, keeps_logits, paths.cache
                )
                if logits is None:  # forced text completed the output: no forward pass, no row
                    results[index] = row_result(row, tokenizer)
                    continue
                run.forward_passes += 1
                run.threads[count] += 1
                row.threads[count] += 1
                active.append(row)
                drops = _choose(run, [row], logits, fill_bitmask([row], words))
                row.first_token_at, row.tokens_at_first = time.perf_counter(), len(row.steps)
                kv.reject([0] * (len(active) - 1) + drops)
            _retire(active, kv, results, tokenizer)
            if not active:
                continue
            # a CPU's forward pass costs about rows × positions: with several rows, one row's chunk
            # (forced text, a draft) would widen every row's pass. There each row reads one token
            # per pass; a row with forced tokens still to read reads the next one and draws
            # nothing (its output is already decided up to there), and drafts are made only into
            # positions the longest feed pads anyway. Alone, or on a GPU (where a few more
            # positions cost almost nothing), forced text goes in one pass and the drafter's own
            # rule decides.
            shared = len(active) > 1 and on_cpu
            fed = [row.feed[:1] if shared else row.feed for row in active]
            longest = max(len(f) for f in fed)
            for row, feed in zip(active, fed, strict=True):
                row.draft = (
                    verify.draft(row, longest - len(feed) if shared else None) if feed == row.feed else []
                )
            inputs = kv.chunk([feed + row.draft for row, feed in zip(active, fed, strict=True)], pad_id)
            # logits for the last fed position of each row and for its draft's positions
            positions = 1 + max(len(row.draft) for row in active)
            if keeps_logits:
                inputs["logits_to_keep"] = positions
            pending: Future[tuple[npt.NDArray[np.int32], float]] | None = None
            t0 = time.perf_counter()
            count = threads.use()
            if pool is not None:
                pending = pool.submit(timed_fill, active, words)
            out = model(**inputs, use_cache=True, **{cache_arg: kv.cache})
            logits = out.logits[:, -positions:]
            forward = time.perf_counter() - t0
            run.forward_s += forward
            run.forward_passes += 1
            run.threads[count] += 1
            kv.cache = getattr(out, cache_arg)
            for row in active:
                row.forward_s.append(forward)
                row.threads[count] += 1
            t1 = time.perf_counter()
            if pending is not None:
                bits, fill_s = pending.result()
                waited = time.perf_counter() - t1
                run.mask_wait_s += waited
                share = min(1.0, waited / fill_s) if fill_s > 0 else 0.0
                for row in active:  # each row's mask_us counts its part of the wait
                    row.mask_wait_s *= share
            else:
                bits, fill_s = timed_fill(active, words)
                run.mask_wait_s += fill_s
            run.mask_fill_s += fill_s
            before = sum(len(row.steps) for row in active)
            reading = {i for i, (row, feed) in enumerate(zip(active, fed, strict=True)) if feed != row.feed}
            for i in reading:  # forced tokens still to read: the next pass reads the next one
                active[i].feed = active[i].feed[len(fed[i]) :]
            if reading:
                drawing = [i for i in range(len(active)) if i not in reading]
                drops = [0] * len(active)
                if drawing:
                    at = torch.tensor(drawing, device=logits.device)
                    chosen = _choose(run, [active[i] for i in drawing], logits[at], bits[drawing])
                    for i, drop in zip(drawing, chosen, strict=True):
                        drops[i] = drop
                kv.reject(drops)
            else:
                kv.reject(_choose(run, active, logits, bits))
            made = sum(len(row.steps) for row in active) - before
            run.decode_steps.append((len(active), made, time.perf_counter() - t0))
            _retire(active, kv, results, tokenizer)
    finally:
        threads.rest()
        if pool is not None:
            pool.shutdown(wait=True)
    run.elapsed_s = time.perf_counter() - started
    run.results = [r for r in results if r is not None]
    return run


def _choose(
    run: BatchRun, rows: Sequence[Row], logits: torch.Tensor, words: npt.NDArray[np.int32]
) -> list[int]:
    """``verify.choose``, its time counted as the masks' applying (``BatchRun.mask_apply_s``)."""
    t0 = time.perf_counter()
    drops = verify.choose(rows, logits, words)
    run.mask_apply_s += time.perf_counter() - t0
    return drops


def _new_rows() -> Any:
    from gramwright.decode.kv_rows import KVRows

    return KVRows()


def _keeps_logits(model: Any) -> bool:
    """Whether the model computes logits only for the last positions it is asked for (a chunk of
    forced and drafted tokens needs a few, never the whole chunk's)."""
    import inspect

    return "logits_to_keep" in inspect.signature(model.forward).parameters


def _logits_words(model: Any) -> int:
    """Words of a bitset as wide as the model's logits (a head may be wider than the vocabulary)."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    weight = getattr(head, "weight", None)
    width = int(weight.shape[0]) if weight is not None else int(model.config.vocab_size)
    return bitset.num_words(width)


def _join(
    model: Any,
    tokenizer: Any,
    index: int,
    request: BatchRequest,
    kv: Any,
    cache_arg: str,
    eos_ids: frozenset[int],
    keeps_logits: bool,
    shortcuts: bool = True,
) -> tuple[Row, torch.Tensor | None]:
    """Prefill the request's prompt (and the text its grammar forces first: appended, or as the
    row's first draft) on its own and add its row to the shared cache; returns the row and its
    logits (1, 1 + draft, V), the draft's positions ending at the last, or None (and no forward
    pass) when appended forced text completed the output or left no room. Without ``shortcuts``
    (``models/fast_paths``) the row drafts nothing and its cache is the one transformers makes."""
    device = next(model.parameters()).device
    input_ids = tokenizer(request.prompt, return_tensors="pt", add_special_tokens=False).input_ids
    max_tokens = _room(model, int(input_ids.shape[-1]), request.max_tokens)
    engine = request.engine
    matcher = engine.matcher(max_tokens) if engine is not None else None
    row = Row(index, request, matcher, max_tokens, input_ids[0].tolist())
    if not shortcuts:
        row.drafter = None  # a rejected draft is forgotten by slicing the cache: not this one's
    row.tokenizer = tokenizer
    row.stop_ids = set(engine.vocab.eos_ids if engine else eos_ids) or {tokenizer.eos_token_id}
    if engine is not None and request.fast_forward:
        if row.drafter is not None:
            # greedy: forced text is fed as a draft and verified (the output stays step-by-step
            # decoding's, in about as few forward passes)
            row.guide = forced_tokens(engine, tokenizer)
        else:
            row.forced = forced_tokens(engine, tokenizer)
            append_forced(row)
    if matcher is not None and matcher.is_terminated():
        row.finish = "stop"
    elif len(row.steps) >= max_tokens:
        row.finish = "length"
    if row.finish is not None:
        return row, None
    # the prefill is a chunk anyway: a draft (forced text first of all) rides along
    row.draft = verify.draft(row) if keeps_logits else []
    fed = row.feed + row.draft
    ids = torch.cat([input_ids, torch.tensor([fed], dtype=input_ids.dtype)], dim=-1).to(device)
    positions = 1 + len(row.draft)
    t0 = time.perf_counter()
    extra: dict[str, Any] = {"logits_to_keep": positions} if keeps_logits else {}
    if shortcuts:
        # a cache that appends in place, not by copying itself at every pass (``kv_rows.GrowingLayer``)
        extra[cache_arg] = growing_cache(model.config)
    out = model(input_ids=ids, use_cache=True, **extra)
    row.forward_s.append(time.perf_counter() - t0)
    kv.join(getattr(out, cache_arg), int(ids.shape[-1]), device)
    row.feed = []
    return row, out.logits[:, -positions:]


def _retire(active: list[Row], kv: Any, results: list[GenerationResult | None], tokenizer: Any) -> None:
    """Finished rows leave the batch (and the cache); their results are written."""
    keep = [i for i, row in enumerate(active) if row.finish is None]
    if len(keep) == len(active):
        return
    for row in active:
        if row.finish is not None:
            verify.learn_spellings(row)
            results[row.index] = row_result(row, tokenizer)
    kv.leave(keep)
    active[:] = [active[i] for i in keep]
