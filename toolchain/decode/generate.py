"""The generation loop's single-request entry point and the pieces every loop step shares.

There is one generation loop, ``decode/batch.py``'s: ``generate`` runs a request as a batch of
one through it, so a single request and a batched one take the same steps (mask, budget, draw,
fast-forward, finish). Here: the result types (``StepTrace``, ``GenerationResult``), the context
cap (``_room``), the budget-aware draw (``_draw``, ``_close``), the metrics, and
``GrammarLogitsProcessor``, which offers the same masks to users of ``transformers``' own
``generate``. The engine's bitsets become tensors in ``masking.py``.

Our own loop rather than ``model.generate`` so that every step can report its mask time and the
clipped probability mass, EOS is decided by the grammar, and truncation is explicit
(``finish_reason = "length"``). A step's ``mask_us`` is the mask work the loop waited for:
filling the row's bitset (all of it when not overlapped with the forward pass), its share of
unpacking the batch's bitsets to the blocked-token tensor, and the budget's checks; not the
clipped mass, the ``masked_fill`` nor the draw (``bench/e2e_fresh.py`` times the peers so).

Fast-forward (``fast_forward=True``, the default under a grammar): where the grammar forces the
next bytes, their tokens (``forced.py``) go to the model in one forward pass instead of one pass
each. A greedy request with ``speculate`` (the default) drafts them and keeps those the model's
own step-by-step choice agrees with, so its output is step-by-step decoding's token for token
(``batch.py``, ``speculate.py``). Otherwise (sampling, ``speculate=False``) they are appended
without sampling and fed as a prefill chunk behind the sampled token before them: each appears
as a step of its own (``StepTrace.forced``; ``on_step`` sees it), counts against ``max_tokens``
and the budget, and has no clipped mass (no distribution was computed for it); the output's form
is the grammar's, but its tokens, and so what the model writes after them, may differ from
step-by-step decoding where the forced text is tokenised otherwise.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from gramwright.decode.sampling import (
    MASK_VALUE,
    SamplingParams,
    apply_mask,
    clipped_mass,
    sample,
    sample_fitting,
)
from gramwright.engine.matcher import GrammarEngine, Matcher
from gramwright.errors import ModelError


@dataclass
class StepTrace:
    token_id: int
    text: bytes
    clipped_mass: float | None
    mask_us: float | None
    closing: bool = False  # the budget narrowed this step's mask
    forced: bool = False  # appended by fast-forward: the grammar forced it, nothing was sampled


@dataclass
class GenerationResult:
    text: str
    token_ids: list[int]
    finish_reason: str  # "stop" | "length" (only without an engine: a budgeted matcher always ends)
    steps: list[StepTrace] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    # the budget narrowed the masks from this byte of the output on (None: it never did)
    closing_offset: int | None = None

    @property
    def closed_by_budget(self) -> bool:
        return self.closing_offset is not None


def context_length(model: Any) -> int | None:
    """The most tokens the model reads (prompt and output together), from its config; None when
    the config does not say."""
    config = getattr(model, "config", None)
    for attr in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _room(model: Any, prompt_tokens: int, max_tokens: int) -> int:
    """``max_tokens``, or what the context leaves after the prompt; a prompt that does not fit
    is refused before any forward pass (on a CPU a 60k-token prompt was minutes of work whose
    output means nothing past the model's positions)."""
    limit = context_length(model)
    # the last token sampled is never fed back: ``m`` tokens need ``prompt + m - 1`` positions
    if limit is None or prompt_tokens + max_tokens - 1 <= limit:
        return max_tokens
    if prompt_tokens > limit:
        raise ModelError(
            f"the prompt is {prompt_tokens:,} tokens: the model reads at most {limit:,}",
            hint="shorten it (for `edit`: fewer or smaller files) or use a model with a longer context",
        )
    return limit - prompt_tokens + 1


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def generate(
    model: Any,
    tokenizer: Any,
    prompt: str,
    *,
    engine: GrammarEngine | None,
    max_tokens: int = 256,
    params: SamplingParams | None = None,
    seed: int | None = None,
    on_step: Callable[[StepTrace], None] | None = None,
    eos_ids: frozenset[int] = frozenset(),
    fast_forward: bool = True,
    speculate: bool | None = None,
) -> GenerationResult:
    """Generate up to ``max_tokens`` tokens; constrained when ``engine`` is given, and then
    complete within ``max_tokens`` (EOS counted): the masks close the output as the budget runs
    out (``engine/budget.py``), so ``finish_reason`` is always ``stop``. A budget below the
    grammar's shortest output raises ``BudgetTooSmall`` before the first forward pass.
    ``fast_forward``: feed the tokens of forced text in one forward pass (module docstring);
    False decodes every token step by step. ``speculate``: greedy decoding drafts copies of the
    prompt and the output, and forced text, and verifies them in one forward pass
    (``decode/speculate.py``); the output is the one step-by-step decoding gives. None (the
    default): as ``fast_forward``, so that ``--no-fast-forward`` means one forward pass per token.

    A batch of one through ``decode/batch.py``'s loop, the mask filled after the forward pass:
    with one row there is no other row's work to hide, and a worker thread's hand-off costs
    more than a cached mask."""
    from gramwright.decode.batch import BatchRequest, generate_batch

    request = BatchRequest(
        prompt,
        engine,
        max_tokens=max_tokens,
        params=params or SamplingParams(),
        seed=seed,
        on_step=on_step,
        fast_forward=fast_forward,
        speculate=fast_forward if speculate is None else speculate,
    )
    run = generate_batch(model, tokenizer, [request], batch_size=1, overlap=False, eos_ids=eos_ids)
    return run.results[0]


def _draw(
    matcher: Matcher,
    masks: Any,
    logits: torch.Tensor,
    blocked: torch.Tensor,
    mass: float,
    params: SamplingParams,
    generator: Any,
) -> tuple[int, float, bool, float]:
    """The step's token, drawn as if from the budget-narrowed mask (``sample_fitting``) while the
    engine's own mask (``blocked``) is the only one built unless the budget refuses what the draw
    needs; the step's clipped mass (the plain mask's plus the probability of the tokens found not
    to fit, or the narrowed mask's when built); whether the budget changed the draw (a token
    refused, or a narrowed mask that differs); and the µs spent on the budget.

    Greedy: only the token drawn is tested, usually the model's next choice already closes (a
    string's quote). Sampling with top-k/top-p: the ranked candidates are tested, so that they
    are those of the fitting tokens, as with the narrowed mask."""
    masked = apply_mask(logits, blocked)
    if matcher.every_token_fits():  # no walk at all: the budget cannot refuse any token here
        return sample(masked, params, generator), mass, False, 0.0
    # the greedy or temperature draw is the step's own work, not the budget's: timed after it
    drawn = None if params.truncates else sample(masked, params, generator)
    t0 = time.perf_counter()
    narrowed = lambda: masks.blocked(matcher, logits.shape[-1], logits.device)  # noqa: E731
    fitted = sample_fitting(masked, params, generator, matcher.fits, narrowed, drawn)
    if fitted.narrowed is not None:
        mass = clipped_mass(logits, fitted.narrowed)
        closing = bool(fitted.refused) or fitted.narrowed is not blocked
    else:
        probs = torch.softmax(logits.float(), dim=-1)
        mass += float(probs[fitted.refused].sum()) if fitted.refused else 0.0
        closing = bool(fitted.refused)
    return fitted.token, mass, closing, (time.perf_counter() - t0) * 1e6


def _close(
    matcher: Matcher,
    masks: Any,
    logits: torch.Tensor,
    masked: torch.Tensor,
    token: int,
    mass: float,
    params: SamplingParams,
    generator: Any,
) -> tuple[int, float]:
    """The batched loop's step (``decode/batch.py``): ``token``, drawn from ``masked``, does not
    fit; draw again as ``sample_fitting`` does, and the step's clipped mass."""
    narrowed = lambda: masks.blocked(matcher, logits.shape[-1], logits.device)  # noqa: E731
    fitted = sample_fitting(masked, params, generator, matcher.fits, narrowed, token)
    if fitted.narrowed is not None:
        return fitted.token, clipped_mass(logits, fitted.narrowed)
    refused = fitted.refused or [token]
    return fitted.token, mass + float(torch.softmax(logits.float(), dim=-1)[refused].sum())


def _cache_argument(model: Any) -> str:
    """transformers 5 renamed ``past_key_values`` to ``cache``; accept either generation."""
    import inspect

    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _token_bytes(engine: GrammarEngine | None, tokenizer: Any, token: int) -> bytes:
    if engine is not None and token < engine.vocab.size:
        return engine.vocab.token_bytes[token]
    return str(tokenizer.decode([token])).encode()


def _metrics(
    steps: list[StepTrace],
    forward_s: list[float],
    elapsed: float,
    engine: GrammarEngine | None,
    hits0: int,
    miss0: int,
) -> dict[str, Any]:
    masks = [s.mask_us for s in steps if s.mask_us is not None]
    closing = [s.mask_us for s in steps if s.mask_us is not None and s.closing]
    ample = [s.mask_us for s in steps if s.mask_us is not None and not s.closing]
    masses = [s.clipped_mass for s in steps if s.clipped_mass is not None]
    metrics: dict[str, Any] = {
        "tokens": len(steps),
        "tokens_per_s": round(len(steps) / elapsed, 2) if elapsed else 0.0,
        "ms_per_token": round(1000 * elapsed / max(len(steps), 1), 2),
        "forward_ms_median": round(1000 * statistics.median(forward_s), 2) if forward_s else 0.0,
        "forward_passes": len(forward_s),
        "forced_tokens": sum(1 for s in steps if s.forced),
        "forward_passes_per_token": round(len(forward_s) / len(steps), 3) if steps else 0.0,
    }
    if engine is not None:
        hits = engine.masks.hits - hits0
        misses = engine.masks.misses - miss0
        metrics.update(
            {
                "compile_ms": round(engine.compiled.compile_ms, 2),
                "mask_us_p50": round(_percentile(masks, 50), 1),
                "mask_us_p99": round(_percentile(masks, 99), 1),
                "mask_us_mean": round(sum(masks) / len(masks), 1) if masks else 0.0,
                # the closing zone's masks (the budget narrowed them) apart from the others
                "closing_steps": len(closing),
                "mask_us_ample_p50": round(_percentile(ample, 50), 1),
                "mask_us_ample_p99": round(_percentile(ample, 99), 1),
                "mask_us_closing_p50": round(_percentile(closing, 50), 1),
                "mask_us_closing_p99": round(_percentile(closing, 99), 1),
                # the masker's share of the whole token time (forward, mask, sampling, bookkeeping)
                "mask_share_of_token": round(sum(masks) / 1e6 / elapsed, 4) if elapsed else 0.0,
                "mask_cache_hit_rate": round(hits / (hits + misses), 3) if hits + misses else 0.0,
                "clipped_mass_avg": round(sum(masses) / len(masses), 4) if masses else 0.0,
                "clipped_mass_max": round(max(masses), 4) if masses else 0.0,
            }
        )
    return metrics


class GrammarLogitsProcessor:
    """A ``transformers`` LogitsProcessor over one Matcher per row of the batch.

    On each call it consumes, per row, the tokens sampled since the previous call, then masks the
    scores of every row at once: the rows' bitsets in one ``(batch, ceil(V/32))`` array, unpacked
    and applied in one operation (``decode/batch.py``). Rows are matched from ``prompt_length``
    on (``generate`` pads a batch's prompts to one length); a row that has ended (EOS) is
    left alone while ``generate`` pads it. ``max_new_tokens``: the budget ``generate`` is given
    (EOS counted, as transformers counts it): the masks then close each output in time, so it
    always ends accepted; a budget below the grammar's shortest output raises
    ``BudgetTooSmall`` here, before generation. None: no budget (an output may be cut at the limit).
    """

    def __init__(self, engine: GrammarEngine, prompt_length: int, max_new_tokens: int | None = None) -> None:
        self.engine = engine
        self.max_new_tokens = max_new_tokens
        engine.matcher(max_new_tokens)  # refuses a budget below the shortest output now
        self.matchers: list[Matcher] = []
        self.prompt_length = prompt_length

    @property
    def matcher(self) -> Matcher:
        """The first row's matcher (a batch of one)."""
        if not self.matchers:
            self.matchers.append(self.engine.matcher(self.max_new_tokens))
        return self.matchers[0]

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        from gramwright.decode.masking import blocked_rows
        from gramwright.engine import bitset
        from gramwright.engine.batch_fill import fill_batch

        rows = int(input_ids.shape[0])
        while len(self.matchers) < rows:
            self.matchers.append(self.engine.matcher(self.max_new_tokens))
        generated = input_ids.shape[-1] - self.prompt_length
        words = np.empty((rows, bitset.num_words(self.engine.vocab.size)), dtype=np.int32)
        for r, matcher in enumerate(self.matchers[:rows]):
            consumed = matcher.consumed
            if not matcher.stopped:
                new = input_ids[r, self.prompt_length + consumed :].tolist()[: generated - consumed]
                for token in new:
                    matcher.consume(int(token))
                    if matcher.stopped:
                        break
        # every row's mask at once: new states' unions on native threads (engine/batch_fill)
        fill_batch(self.matchers[:rows], words)
        blocked = blocked_rows(words, int(scores.shape[-1]), scores.device)
        return scores.masked_fill(blocked, MASK_VALUE)
