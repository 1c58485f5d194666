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

Copy speculation (``speculate=True``, greedy rows only; ``speculate.py``): a row whose last output
tokens occur in its prompt or earlier in its output appends the tokens that follow them there (a
draft, cut where its grammar refuses it) to its feed; where its grammar forces text, the forced
tokens are drafted (verified fast-forward: a greedy row with ``fast_forward`` drafts forced text
instead of appending it). The forward pass returns logits for the draft's positions too; each
position is then chosen as without a draft — its grammar's mask, the budget, the greedy argmax —
and the draft is kept while it agrees. The first disagreeing choice is the row's next token; the
draft's later positions are forgotten (``KVRows.reject``). Outputs are those of step-by-step
decoding. A joining row's first draft rides with its prompt's prefill.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from gramwright.decode.forced import ForcedTokens, forced_tokens
from gramwright.decode.generate import (
    GenerationResult,
    StepTrace,
    _cache_argument,
    _close,
    _draw,
    _metrics,
    _room,
    _token_bytes,
)
from gramwright.decode.masking import TensorMasks, tensor_masks
from gramwright.decode.sampling import MASK_VALUE, SamplingParams, sample
from gramwright.decode.speculate import CopyDrafter
from gramwright.engine import bitset
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
        }


class _Row:
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
        self.feed: list[int] = []
        self.finish: str | None = None
        self.closing_at: int | None = None
        # the step's fill of this row's mask that the loop waited for (all of it unless the
        # fill ran beside the forward pass): part of the step's ``mask_us``
        self.mask_wait_s = 0.0
        self.started = time.perf_counter()
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
        self.tokenizer: Any = None
        self.stop_ids: set[int] = set()

    def trace(self, trace: StepTrace) -> None:
        self.steps.append(trace)
        if self.request.on_step:
            self.request.on_step(trace)


def fill_bitmask(rows: Sequence[_Row], words: int) -> npt.NDArray[np.int32]:
    """The rows' current masks (the engines' own, the budget is checked on the token drawn) in
    one ``(rows, words)`` int32 array; all bits for a row without a grammar."""
    out = np.empty((len(rows), words), dtype=np.int32)
    for r, row in enumerate(rows):
        t0 = time.perf_counter()
        masker = row.request.masker
        if masker is not None:
            out[r] = 0
            masker.fill(out, r)
        elif row.matcher is None:
            out[r] = -1
        else:
            got = row.matcher.bitmask(budget=False)
            out[r, : got.size] = got
            out[r, got.size :] = 0
        row.mask_wait_s = time.perf_counter() - t0
    return out


def blocked_rows(words: npt.NDArray[np.int32], width: int, device: torch.device) -> torch.Tensor:
    """The ``(rows, width)`` bool tensor, True where a row's bitset has no bit (and past its end),
    unpacked in one operation on ``device``."""
    rows, count = words.shape
    covered = min(width, count * 32)
    if device.type == "cpu":
        allowed = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")[:, :covered]
        blocked = torch.from_numpy(allowed == 0)
    else:
        packed = torch.from_numpy(words).to(device, non_blocking=True)
        shifts = torch.arange(32, dtype=torch.int32, device=device)
        blocked = (((packed.unsqueeze(-1) >> shifts) & 1) == 0).reshape(rows, count * 32)[:, :covered]
    if covered < width:
        blocked = torch.cat(
            [blocked, torch.ones(rows, width - covered, dtype=torch.bool, device=device)], dim=1
        )
    return blocked


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
    request joins."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    cache_arg = _cache_argument(model)
    keeps_logits = _keeps_logits(model)
    on_cpu = next(model.parameters()).device.type == "cpu"
    words = _logits_words(model)
    pad_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)
    waiting = deque(enumerate(requests))
    results: list[GenerationResult | None] = [None] * len(requests)
    run = BatchRun([], batch_size=min(batch_size, len(requests)))
    active: list[_Row] = []
    kv = _new_rows()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gramwright-masks") if overlap else None
    started = time.perf_counter()
    try:
        while active or waiting:
            while waiting and len(active) < batch_size:
                index, request = waiting.popleft()
                row, logits = _join(model, tokenizer, index, request, kv, cache_arg, eos_ids, keeps_logits)
                if logits is None:  # forced text completed the output: no forward pass, no row
                    results[index] = _result(row, tokenizer)
                    continue
                run.forward_passes += 1
                active.append(row)
                drops = _choose(run, [row], logits, fill_bitmask([row], words))
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
                row.draft = _draft(row, longest - len(feed) if shared else None) if feed == row.feed else []
            inputs = kv.chunk([feed + row.draft for row, feed in zip(active, fed, strict=True)], pad_id)
            # logits for the last fed position of each row and for its draft's positions
            positions = 1 + max(len(row.draft) for row in active)
            if keeps_logits:
                inputs["logits_to_keep"] = positions
            pending: Future[tuple[npt.NDArray[np.int32], float]] | None = None
            t0 = time.perf_counter()
            if pool is not None:
                pending = pool.submit(_timed_fill, active, words)
            out = model(**inputs, use_cache=True, **{cache_arg: kv.cache})
            logits = out.logits[:, -positions:]
            forward = time.perf_counter() - t0
            run.forward_s += forward
            run.forward_passes += 1
            kv.cache = getattr(out, cache_arg)
            for row in active:
                row.forward_s.append(forward)
            t1 = time.perf_counter()
            if pending is not None:
                bits, fill_s = pending.result()
                waited = time.perf_counter() - t1
                run.mask_wait_s += waited
                share = min(1.0, waited / fill_s) if fill_s > 0 else 0.0
                for row in active:  # each row's mask_us counts its part of the wait
                    row.mask_wait_s *= share
            else:
                bits, fill_s = _timed_fill(active, words)
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
        if pool is not None:
            pool.shutdown(wait=True)
    run.elapsed_s = time.perf_counter() - started
    run.results = [r for r in results if r is not None]
    return run


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


def _timed_fill(rows: Sequence[_Row], words: int) -> tuple[npt.NDArray[np.int32], float]:
    t0 = time.perf_counter()
    got = fill_bitmask(rows, words)
    return got, time.perf_counter() - t0


def _join(
    model: Any,
    tokenizer: Any,
    index: int,
    request: BatchRequest,
    kv: Any,
    cache_arg: str,
    eos_ids: frozenset[int],
    keeps_logits: bool,
) -> tuple[_Row, torch.Tensor | None]:
    """Prefill the request's prompt (and the text its grammar forces first: appended, or as the
    row's first draft) on its own and add its row to the shared cache; returns the row and its
    logits (1, 1 + draft, V), the draft's positions ending at the last, or None (and no forward
    pass) when appended forced text completed the output or left no room."""
    device = next(model.parameters()).device
    input_ids = tokenizer(request.prompt, return_tensors="pt", add_special_tokens=False).input_ids
    max_tokens = _room(model, int(input_ids.shape[-1]), request.max_tokens)
    engine = request.engine
    matcher = engine.matcher(max_tokens) if engine is not None else None
    row = _Row(index, request, matcher, max_tokens, input_ids[0].tolist())
    row.tokenizer = tokenizer
    row.stop_ids = set(engine.vocab.eos_ids if engine else eos_ids) or {tokenizer.eos_token_id}
    if engine is not None and request.fast_forward:
        if row.drafter is not None:
            # greedy: forced text is fed as a draft and verified (the output stays step-by-step
            # decoding's, in about as few forward passes)
            row.guide = forced_tokens(engine, tokenizer)
        else:
            row.forced = forced_tokens(engine, tokenizer)
            _append_forced(row)
    if matcher is not None and matcher.is_terminated():
        row.finish = "stop"
    elif len(row.steps) >= max_tokens:
        row.finish = "length"
    if row.finish is not None:
        return row, None
    # the prefill is a chunk anyway: a draft (forced text first of all) rides along
    row.draft = _draft(row) if keeps_logits else []
    fed = row.feed + row.draft
    ids = torch.cat([input_ids, torch.tensor([fed], dtype=input_ids.dtype)], dim=-1).to(device)
    positions = 1 + len(row.draft)
    t0 = time.perf_counter()
    extra = {"logits_to_keep": positions} if keeps_logits else {}
    out = model(input_ids=ids, use_cache=True, **extra)
    row.forward_s.append(time.perf_counter() - t0)
    kv.join(getattr(out, cache_arg), int(ids.shape[-1]), device)
    row.feed = []
    return row, out.logits[:, -positions:]


def _append_forced(row: _Row) -> None:
    matcher, forced, engine = row.matcher, row.forced, row.request.engine
    if matcher is None or forced is None or engine is None:
        return
    for token in forced.tokens(matcher.config)[: row.max_tokens - len(row.steps)]:
        if not matcher.try_consume(token):  # never for a sound budget (``forced.py``)
            break
        row.trace(StepTrace(token, engine.vocab.token_bytes[token], None, None, forced=True))
        row.token_ids.append(token)
        row.feed.append(token)


def _draft(row: _Row, spare: int | None = None) -> list[int]:
    """The row's draft for the next forward pass (``speculate.py``): the continuation of its last
    tokens in its prompt or output, cut where its grammar refuses a token, where the output would
    end, and where the token budget leaves no room for the token chosen after it. Where the
    grammar forces text, its tokens (as fast-forward would append them) are drafted, alone or
    after the copy: verified fast-forward. ``spare``: positions the pass has for it at no extra
    cost (padding), the most it may take; None: the drafter's own rule. Sets ``row.copied``."""
    drafter = row.drafter
    row.copied = 0
    if drafter is None or row.finish is not None or spare == 0:
        return []
    room = row.max_tokens - len(row.steps) - 1
    if spare is not None:
        room = min(room, spare)
    if room < 1:
        return []
    matcher, engine, guide = row.matcher, row.request.engine, row.guide
    if matcher is not None and guide is not None and guide.tokens(matcher.config):
        # the grammar forces the next bytes: the likeliest draft there is, whatever the cost
        forced = _consume_forced(row, room)
        matcher.rollback(len(forced))
        return forced
    drafter.extend(row.token_ids)
    tail = row.token_ids[-drafter.context :]
    if len(tail) < drafter.context:
        tail = row.prompt_tail[len(tail) - drafter.context :] + tail
    proposed = drafter.propose(tail, room, cheap=spare is not None)
    if not proposed:
        return []
    if matcher is None or engine is None:
        cut = next((i for i, t in enumerate(proposed) if t in row.stop_ids), len(proposed))
        row.copied = cut
        return proposed[:cut]
    taken: list[int] = []
    copied: int | None = None
    for token in proposed:
        if not matcher.try_consume(token):
            break
        taken.append(token)
        if matcher.is_terminated():
            break
        if guide is not None and guide.tokens(matcher.config):
            copied = len(taken)
            taken += _consume_forced(row, room - len(taken))
            break
    row.copied = len(taken) if copied is None else copied
    matcher.rollback(len(taken))
    return taken


def _consume_forced(row: _Row, room: int) -> list[int]:
    """The forced tokens from the matcher's configuration, consumed (the caller rolls back)."""
    matcher, guide = row.matcher, row.guide
    assert matcher is not None and guide is not None
    taken: list[int] = []
    for token in guide.tokens(matcher.config)[:room]:
        if not matcher.try_consume(token):
            break
        taken.append(token)
    return taken


def _choose(
    run: BatchRun,
    rows: Sequence[_Row],
    logits: torch.Tensor,
    words: npt.NDArray[np.int32],
) -> list[int]:
    """Mask, sample and consume one token per row, and verify each row's draft; set each row's
    next feed or its finish. ``logits``: (rows, positions, V), a row's draft ending at the last
    position. Returns the draft tokens per row to forget from the cache."""
    t0 = time.perf_counter()
    width = int(logits.shape[-1])
    last = int(logits.shape[1]) - 1
    firsts = [last - len(row.draft) for row in rows]
    first = logits[torch.arange(len(rows), device=logits.device), torch.tensor(firsts, device=logits.device)]
    blocked = blocked_rows(words, width, logits.device)
    # a step's mask_us is what bench.e2e compares with the peers' fill and unpack: the row's
    # fill the loop waited for, its share of this unpack, and the budget's checks (not the
    # clipped mass, masked_fill nor the draw)
    unpack_us = (time.perf_counter() - t0) * 1e6 / max(len(rows), 1)
    constrained = [row.matcher is not None or row.request.masker is not None for row in rows]
    masses: list[float | None] = [None] * len(rows)
    if any(constrained):
        probs = torch.softmax(first.float(), dim=-1)
        mass_all = (probs * blocked).sum(dim=-1).tolist()
        masses = [m if c else None for m, c in zip(mass_all, constrained, strict=True)]
    masked = first.masked_fill(blocked, MASK_VALUE)
    greedy = all(row.request.params.temperature <= 0 for row in rows)
    drawn = masked.argmax(dim=-1).tolist() if greedy else None
    drops: list[int] = []
    for r, row in enumerate(rows):
        token, mass, closing, budget_us = _pick(
            row, first[r], blocked[r], masked[r], masses[r], drawn[r] if drawn else None
        )
        mask_us = unpack_us + budget_us + row.mask_wait_s * 1e6 if constrained[r] else None
        draft, kept = row.draft, 0
        while True:
            confirmed, go_on = _take(row, token, mass, mask_us, closing, draft[kept : kept + 1])
            kept += confirmed
            if not go_on:
                break
            # the token chosen is the draft's: its keys are in the cache, and the forward pass
            # has computed the next position's logits already
            t1 = time.perf_counter()
            at = logits[r, firsts[r] + kept]
            one = fill_bitmask([row], int(words.shape[1]))
            row_blocked = blocked_rows(one, width, logits.device)[0]
            row_mass = None
            if constrained[r]:
                row_mass = float((torch.softmax(at.float(), dim=-1) * row_blocked).sum())
            row_masked = at.masked_fill(row_blocked, MASK_VALUE)
            unpack = (time.perf_counter() - t1) * 1e6
            token, mass, closing, budget_us = _pick(row, at, row_blocked, row_masked, row_mass, None)
            mask_us = unpack + budget_us if constrained[r] else None
        if row.drafter is not None and row.copied:
            row.drafter.verified(row.copied, min(kept, row.copied))
        row.guided += len(draft) - row.copied
        row.guided_kept += max(0, kept - row.copied)
        drops.append(len(draft) - kept)
        row.draft, row.copied = [], 0
    run.mask_apply_s += time.perf_counter() - t0
    return drops


def _pick(
    row: _Row,
    logits: torch.Tensor,
    blocked: torch.Tensor,
    masked: torch.Tensor,
    mass: float | None,
    drawn: int | None,
) -> tuple[int, float | None, bool, float]:
    """One row's token from one position's logits (``drawn``: its masked argmax when computed for
    the batch), consumed by the row's matcher: the token, its step's clipped mass, whether the
    budget changed the draw, and the microseconds the budget's checks took."""
    params = row.request.params
    matcher, closing, budget_us = row.matcher, False, 0.0
    if matcher is not None and row.masks is not None and mass is not None:
        if params.truncates and not matcher.every_token_fits():
            # top-k/top-p rank the tokens that fit, not the plain mask's: drawn as
            # ``generate._draw`` draws, the one definition of a budget-aware draw
            token, mass, closing, budget_us = _draw(
                matcher, row.masks, logits, blocked, mass, params, row.generator
            )
        else:
            token = int(drawn) if drawn is not None else sample(masked, params, row.generator)
            t1 = time.perf_counter()
            if not matcher.fits(token):
                token, mass = _close(matcher, row.masks, logits, masked, token, mass, params, row.generator)
                closing = True
            budget_us = (time.perf_counter() - t1) * 1e6
        if closing and row.closing_at is None:
            row.closing_at = len(b"".join(s.text for s in row.steps))
        matcher.consume(token)
    else:
        token = int(drawn) if drawn is not None else sample(masked, params, row.generator)
    return token, mass, closing, budget_us


def _take(
    row: _Row,
    token: int,
    mass: float | None,
    mask_us: float | None,
    closing: bool,
    drafted: list[int],
) -> tuple[bool, bool]:
    """Record the row's chosen token and set its next feed or its finish. ``drafted``: the draft
    token at this position (empty past the draft). Returns whether the token is the draft's (its
    keys are cached then, not fed again) and whether the next draft position decides the row's
    next token (the draft's, nothing forced after it, the row goes on)."""
    masker, engine = row.request.masker, row.request.engine
    if masker is not None:
        masker.consume(token)
    raw = b"" if token in row.stop_ids else _token_bytes(engine, row.tokenizer, token)
    row.trace(StepTrace(token, raw, mass, mask_us, closing))
    row.feed = []
    if token in row.stop_ids:
        row.finish = "stop"
        return False, False
    row.token_ids.append(token)
    matcher = row.matcher
    if (matcher is not None and matcher.is_terminated()) or (masker is not None and masker.is_terminated()):
        row.finish = "stop"
        return False, False
    confirmed = drafted == [token]
    if not confirmed:
        row.feed = [token]
    _append_forced(row)
    if matcher is not None and matcher.is_terminated():
        row.finish = "stop"  # forced text completed the document
    elif len(row.steps) >= row.max_tokens:
        row.finish = "length"
    limit = row.request.time_limit_s
    if row.finish is None and limit is not None and time.perf_counter() - row.started > limit:
        row.finish = "timeout"
    return confirmed, confirmed and not row.feed and row.finish is None


def _retire(active: list[_Row], kv: Any, results: list[GenerationResult | None], tokenizer: Any) -> None:
    """Finished rows leave the batch (and the cache); their results are written."""
    keep = [i for i, row in enumerate(active) if row.finish is None]
    if len(keep) == len(active):
        return
    for row in active:
        if row.finish is not None:
            results[row.index] = _result(row, tokenizer)
    kv.leave(keep)
    active[:] = [active[i] for i in keep]


def _result(row: _Row, tokenizer: Any) -> GenerationResult:
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
    metrics["elapsed_s"] = round(elapsed, 4)  # joining the batch to leaving it
    if row.max_tokens < row.request.max_tokens:
        metrics["max_tokens_capped_to"] = row.max_tokens
    closing_offset = None
    if row.matcher is not None and row.closing_at is not None:
        closing_offset = len(row.matcher.output[: row.closing_at].decode("utf-8", "replace"))
    assert row.finish is not None
    return GenerationResult(text, row.token_ids, row.finish, row.steps, metrics, closing_offset)
