"""Drafts and their verification: what a greedy row feeds beside its next token, and how a
forward pass's logits become each row's tokens (``batch.py`` runs the loop).

Copy speculation (``speculate=True``, greedy rows only; ``speculate.py``): a row whose last output
tokens occur in its prompt or earlier in its output appends the tokens that follow them there (a
draft, cut where its grammar refuses it) to its feed; where its grammar forces text, the forced
tokens are drafted (verified fast-forward: a greedy row with ``fast_forward`` drafts forced text
instead of appending it). The forward pass returns logits for the draft's positions too; each
position is then chosen as without a draft — its grammar's mask, the budget, the greedy argmax —
and the draft is kept while it agrees. The first disagreeing choice is the row's next token; the
draft's later positions are forgotten (``KVRows.reject``). Outputs are those of step-by-step
decoding, as long as the model's numbers do not depend on how many positions a pass holds
(float32 on a CPU: none of the benchmark's outputs differed; ``docs/throughput.md``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import torch

from gramwright.decode.generate import StepTrace, _close, _draw, _token_bytes
from gramwright.decode.masking import blocked_rows
from gramwright.decode.rows import Row, append_forced, fill_bitmask
from gramwright.decode.sampling import MASK_VALUE, sample


def draft(row: Row, spare: int | None = None) -> list[int]:
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
    learn_spellings(row)
    if matcher is not None and guide is not None and guide.tokens(matcher.config):
        # the grammar forces the next bytes: the likeliest draft there is, whatever the cost
        forced = _consume_forced(row, room, len(row.token_ids))
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
            taken += _consume_forced(row, room - len(taken), len(row.token_ids) + len(taken))
            break
    row.copied = len(taken) if copied is None else copied
    matcher.rollback(len(taken))
    return taken


def _consume_forced(row: Row, room: int, at: int) -> list[int]:
    """The forced tokens from the matcher's configuration, in the model's own spelling where it
    wrote them before (``forced.Spellings``), consumed (the caller rolls back). ``at``: the output
    position the run starts at; how the model writes it is learnt once the output is past it."""
    matcher, guide, engine = row.matcher, row.guide, row.request.engine
    assert matcher is not None and guide is not None and engine is not None
    tokens = guide.tokens(matcher.config)
    size = sum(len(engine.vocab.token_bytes[t]) for t in tokens)
    row.spelling.append((tokens, at, size))
    taken: list[int] = []
    for token in guide.spellings.spelled(tokens)[:room]:
        if not matcher.try_consume(token):
            break
        taken.append(token)
    return taken


def learn_spellings(row: Row) -> None:
    """Tell the tokenizer's ``Spellings`` how the model wrote the forced runs the row drafted,
    those its output has got past: the tokens from the run's start whose bytes are the run's
    (none when a token reaches across its end)."""
    guide, engine = row.guide, row.request.engine
    if guide is None or engine is None or not row.spelling:
        return
    pending = []
    for tokens, at, size in row.spelling:
        got, spelled = 0, []
        for token in row.token_ids[at:]:
            if got >= size:
                break
            got += len(engine.vocab.token_bytes[token])
            spelled.append(token)
        if got == size:
            guide.spellings.learn(tokens, tuple(spelled))
        elif got < size and row.finish is None:
            pending.append((tokens, at, size))
    row.spelling = pending[-8:]


def choose(
    rows: Sequence[Row],
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
    return drops


def _pick(
    row: Row,
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
    row: Row,
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
    append_forced(row)
    if matcher is not None and matcher.is_terminated():
        row.finish = "stop"  # forced text completed the document
    elif len(row.steps) >= row.max_tokens:
        row.finish = "length"
    limit = row.request.time_limit_s
    if row.finish is None and limit is not None and time.perf_counter() - row.started > limit:
        row.finish = "timeout"
    return confirmed, confirmed and not row.feed and row.finish is None
