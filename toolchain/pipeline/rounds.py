"""The pipeline for many rows at once: every row's attempts in batched rounds.

Each row runs the same attempt loop as :func:`gramwright.pipeline.run` (``retry.attempts``: the
same budgets, retry prompts and salvage); only who generates changes. A round collects the
pending attempt of every row in flight — first attempts of new rows and retries of rows whose
last attempt failed, together — and hands them to the backend in one call
(:meth:`GeneratorBackend.generate_many`: continuous batching, ``batch_size`` per forward pass).
Each output goes back to its row's loop, which either finishes the row or asks for its next
attempt in the next round. Greedy decoding gives every row the result the one-row pipeline gives.

``window`` bounds the rows in flight: a file of a million rows holds ``window`` loops, finished
rows are reported (``on_result``) at the end of the round they finish in, and new rows take
their places — so results reach the output file round by round, not at the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gramwright.errors import BudgetTooSmall
from gramwright.pipeline.backend import AttemptOutput, AttemptRequest, Backend
from gramwright.pipeline.policy import Policy
from gramwright.pipeline.result import StructuredResult
from gramwright.pipeline.retry import (
    Attempts,
    RulesArg,
    attempts,
    check_budget,
    ground_in_prompt,
    prepare,
    resolve_rules,
)
from gramwright.sources import CompiledSource

if TYPE_CHECKING:
    from gramwright.generation import SamplingOptions

__all__ = ["BatchBackend", "Rounds", "Row", "generate_round", "run_rows"]


class BatchBackend(Protocol):
    def generate_many(self, requests: Sequence[AttemptRequest]) -> list[AttemptOutput | BudgetTooSmall]: ...


@dataclass(frozen=True)
class Row:
    """One row: its key (the caller's id), its request, and the text its ``x-grounded`` values
    come from (None: the schema's grammar as it is)."""

    key: str
    prompt: str
    source_text: str | None = None


@dataclass
class Rounds:
    """The rows' results in row order, and how the rounds went (``attempts_per_round[i]``: the
    attempts round ``i`` generated together)."""

    results: list[StructuredResult]
    attempts_per_round: list[int] = field(default_factory=list)

    @property
    def rounds(self) -> int:
        return len(self.attempts_per_round)


def generate_round(backend: Backend | BatchBackend, requests: Sequence[AttemptRequest]) -> list[Any]:
    """One round's outputs, in request order: one ``generate_many`` call where the backend
    batches, else one ``generate`` call per request (a serving engine, the scripted backend)."""
    many = getattr(backend, "generate_many", None)
    if many is not None:
        got: list[Any] = many(requests)
        return got
    outputs: list[Any] = []
    for request in requests:
        try:
            outputs.append(backend.generate(request))  # type: ignore[union-attr]
        except BudgetTooSmall as exc:
            outputs.append(exc)
    return outputs


def run_rows(
    source: str | CompiledSource,
    rows: Sequence[Row],
    *,
    backend: Backend | BatchBackend,
    policy: Policy | None = None,
    rules: RulesArg = None,
    sampling: SamplingOptions | None = None,
    window: int = 32,
    on_result: Callable[[Row, StructuredResult], None] | None = None,
    **overrides: Any,
) -> Rounds:
    """Run the three layers for every row, at most ``window`` rows in flight, each round's
    attempts generated together. ``policy``, ``rules``, ``sampling`` and ``overrides`` mean what
    they mean for :func:`gramwright.pipeline.run` and hold per row (each row has its own token
    and time budget); ``on_result`` sees each row as it finishes. An exception (from the
    backend, or ``on_result``) stops the run there: rows reported before it stay reported."""
    if window < 1:
        raise ValueError("window must be at least 1")
    compiled, policy = prepare(source, policy, **overrides)
    ruleset = resolve_rules(rules, compiled.schema)
    waiting = deque(enumerate(rows))
    results: list[StructuredResult | None] = [None] * len(rows)
    live: list[tuple[int, Attempts, AttemptRequest]] = []
    done = Rounds([])

    def finish(index: int, result: StructuredResult) -> None:
        results[index] = result
        if on_result is not None:
            on_result(rows[index], result)

    def advance(index: int, steps: Attempts, sent: AttemptOutput | BudgetTooSmall | None) -> None:
        try:
            request = next(steps) if sent is None else steps.send(sent)
        except StopIteration as stop:
            finish(index, stop.value)
            return
        live.append((index, steps, request))

    while waiting or live:
        while waiting and len(live) < window:
            index, row = waiting.popleft()
            grounded = (
                compiled.with_source(row.source_text)
                if row.source_text is not None
                else ground_in_prompt(compiled, row.prompt)
            )
            check_budget(backend, grounded, policy)  # as ``run`` refuses it, before any model loads
            advance(
                index, attempts(grounded, row.prompt, policy=policy, rules=ruleset, sampling=sampling), None
            )
        if not live:
            continue
        round_, live[:] = list(live), []
        outputs = generate_round(backend, [request for _, _, request in round_])
        done.attempts_per_round.append(len(round_))
        for (index, steps, _), out in zip(round_, outputs, strict=True):
            advance(index, steps, out)
    done.results = [r for r in results if r is not None]
    return done
