"""A request of the generation loop (``batch.py``) and its row while it is in flight.

``BatchRequest`` is what ``generate`` takes for one prompt; ``Row`` is its state in the batch: its
matcher and budget, the tokens chosen, what it feeds the next forward pass, its draft and the
draft's sources (``verify.py``), its timings. Here too: the rows' masks written into one
``(rows, ceil(V/32))`` int32 bitset (``fill_bitmask``; ``masking.blocked_rows`` unpacks it), forced
tokens appended unverified (fast-forward of a sampling row), and a finished row's
``GenerationResult``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from gramwright.decode.forced import ForcedTokens
from gramwright.decode.generate import GenerationResult, StepTrace, _metrics
from gramwright.decode.masking import TensorMasks, tensor_masks
from gramwright.decode.sampling import SamplingParams
from gramwright.decode.speculate import CopyDrafter
from gramwright.engine.batch_fill import fill_batch
from gramwright.engine.matcher import GrammarEngine, Matcher


class RowMasker(Protocol):
    """Another engine's matcher in the loop (the throughput benchmark's llguidance and XGrammar
    rows): it writes its mask into its row of the batch's bitset and consumes the token drawn."""

    def fill(self, words: npt.NDArray[np.int32], row: int) -> None: ...

    def consume(self, token: int) -> None: ...

    def is_terminated(self) -> bool: ...


@dataclass
class BatchRequest:
    """One request of a batch: what ``generate`` takes for one prompt."""

    prompt: str
    engine: GrammarEngine | None = None
    max_tokens: int = 256
    params: SamplingParams = field(default_factory=SamplingParams)
    seed: int | None = None
    on_step: Callable[[StepTrace], None] | None = None
    fast_forward: bool = True
    masker: RowMasker | None = None  # another engine's masks instead of ``engine``'s
    # seconds this request may spend in the batch (joining to leaving); past them it leaves with
    # finish reason ``timeout`` and what it has (the pipeline's time budget, per row)
    time_limit_s: float | None = None
    speculate: bool = True  # draft copies from the prompt and verify them (greedy rows only)


class Row:
    """A request in flight."""

    def __init__(
        self,
        index: int,
        request: BatchRequest,
        matcher: Matcher | None,
        max_tokens: int,
        prompt_ids: Sequence[int] = (),
    ) -> None:
        self.index = index
        self.request = request
        self.matcher = matcher
        self.max_tokens = max_tokens
        engine = request.engine
        self.masks: TensorMasks | None = tensor_masks(engine) if engine is not None else None
        self.forced: ForcedTokens | None = None
        self.generator = torch.Generator().manual_seed(request.seed) if request.seed is not None else None
        self.steps: list[StepTrace] = []
        self.token_ids: list[int] = []
        self.forward_s: list[float] = []
        self.threads: Counter[int] = Counter()  # forward passes per torch thread count (models/threads)
        self.feed: list[int] = []
        self.finish: str | None = None
        self.closing_at: int | None = None
        # the step's fill of this row's mask that the loop waited for (all of it unless the
        # fill ran beside the forward pass): part of the step's ``mask_us``
        self.mask_wait_s = 0.0
        self.started = time.perf_counter()
        # when the prompt's prefill had chosen its tokens, and how many the output then held
        self.first_token_at: float | None = None
        self.tokens_at_first = 0
        self.hits0 = engine.masks.hits if engine else 0
        self.miss0 = engine.masks.misses if engine else 0
        # speculation: greedy rows with our matcher or none (a peer's matcher cannot roll back)
        speculates = request.speculate and request.params.temperature <= 0 and request.masker is None
        self.drafter: CopyDrafter | None = CopyDrafter(prompt_ids) if speculates else None
        self.prompt_tail = list(prompt_ids[-16:])
        self.draft: list[int] = []  # fed after ``feed``, not yet chosen
        self.copied = 0  # … of which the copy drafter's (the rest: forced tokens, ``guide``)
        # a speculating row with fast-forward drafts the forced tokens instead of appending
        # them: verified like a copy, so the output stays step-by-step decoding's
        self.guide: ForcedTokens | None = None
        self.guided = 0  # forced tokens drafted
        self.guided_kept = 0  # … of which the verification kept
        # forced runs drafted: (the tokenizer's tokens, output position, bytes), until the
        # output is past them and the model's spelling is learnt (``verify.learn_spellings``)
        self.spelling: list[tuple[tuple[int, ...], int, int]] = []
        self.tokenizer: Any = None
        self.stop_ids: set[int] = set()

    def trace(self, trace: StepTrace) -> None:
        self.steps.append(trace)
        if self.request.on_step:
            self.request.on_step(trace)


def fill_bitmask(rows: Sequence[Row], words: int) -> npt.NDArray[np.int32]:
    """The rows' current masks (the engines' own, the budget is checked on the token drawn) in
    one ``(rows, words)`` int32 array; all bits for a row without a grammar. The rows on a
    matcher are filled together (``engine.batch_fill``: new states' unions on native threads);
    each is charged an equal share of that fill's time."""
    out = np.empty((len(rows), words), dtype=np.int32)
    batched: list[int] = []
    for r, row in enumerate(rows):
        t0 = time.perf_counter()
        masker = row.request.masker
        if masker is not None:
            out[r] = 0
            masker.fill(out, r)
        elif row.matcher is None:
            out[r] = -1
        else:
            batched.append(r)
            continue
        row.mask_wait_s = time.perf_counter() - t0
    if batched:
        t0 = time.perf_counter()
        matchers = [rows[r].matcher for r in batched]
        if len(batched) == len(rows):
            fill_batch(matchers, out, budget=False)
        else:
            part = np.empty((len(batched), words), dtype=np.int32)
            fill_batch(matchers, part, budget=False)
            out[batched] = part
        share = (time.perf_counter() - t0) / len(batched)
        for r in batched:
            rows[r].mask_wait_s = share
    return out


def timed_fill(rows: Sequence[Row], words: int) -> tuple[npt.NDArray[np.int32], float]:
    """``fill_bitmask`` and the seconds it took (the overlapped fill runs it on the worker)."""
    t0 = time.perf_counter()
    got = fill_bitmask(rows, words)
    return got, time.perf_counter() - t0


def append_forced(row: Row) -> None:
    matcher, forced, engine = row.matcher, row.forced, row.request.engine
    if matcher is None or forced is None or engine is None:
        return
    for token in forced.tokens(matcher.config)[: row.max_tokens - len(row.steps)]:
        if not matcher.try_consume(token):  # never for a sound budget (``forced.py``)
            break
        row.trace(StepTrace(token, engine.vocab.token_bytes[token], None, None, forced=True))
        row.token_ids.append(token)
        row.feed.append(token)


def row_result(row: Row, tokenizer: Any) -> GenerationResult:
    engine = row.request.engine
    elapsed = time.perf_counter() - row.started
    if engine is not None:
        text = b"".join(s.text for s in row.steps).decode("utf-8", "replace")
    else:
        text = str(tokenizer.decode(row.token_ids))  # whole, as ``generate`` does
    metrics = _metrics(row.steps, row.forward_s, elapsed, engine, row.hits0, row.miss0)
    metrics["fast_forward"] = row.forced is not None or row.guide is not None
    drafter = row.drafter
    metrics["speculate"] = drafter is not None
    if drafter is not None:
        metrics["drafts"] = drafter.drafts
        metrics["drafted_tokens"] = drafter.drafted + row.guided
        metrics["accepted_tokens"] = drafter.accepted + row.guided_kept
        metrics["forced_drafted_tokens"] = row.guided
        metrics["forced_accepted_tokens"] = row.guided_kept
    metrics["passes_by_threads"] = {str(n): row.threads[n] for n in sorted(row.threads)}
    metrics["elapsed_s"] = round(elapsed, 4)  # joining the batch to leaving it
    if row.first_token_at is not None:
        # time to the first token the model chose (the prompt's prefill, from joining the batch
        # as ``elapsed_s``; forced text appended before it does not count) and the rate after
        # it: serving benchmarks' TTFT and output tokens/s per user (1 / inter-token latency)
        ttft = row.first_token_at - row.started
        metrics["ttft_s"] = round(ttft, 4)
        metrics["first_tokens"] = row.tokens_at_first  # chosen (and drafted, forced) by then
        after = elapsed - ttft
        later = len(row.steps) - row.tokens_at_first
        metrics["decode_tokens_per_s"] = round(later / after, 2) if after > 0 else 0.0
    if row.max_tokens < row.request.max_tokens:
        metrics["max_tokens_capped_to"] = row.max_tokens
    closing_offset = None
    if row.matcher is not None and row.closing_at is not None:
        closing_offset = len(row.matcher.output[: row.closing_at].decode("utf-8", "replace"))
    assert row.finish is not None
    return GenerationResult(text, row.token_ids, row.finish, row.steps, metrics, closing_offset)
