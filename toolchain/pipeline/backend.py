"""What layer 2 calls to get one attempt: a small protocol, the real model behind it by default.

:class:`GeneratorBackend` runs :class:`gramwright.generation.Generator` (layer 1: the mask) and
enforces the wall-time budget at every token (``on_token`` raises past the deadline, so an attempt
overshoots by at most one token's latency). :class:`ScriptedBackend` replays scripted outputs —
deterministic, no model — so the retry and budget logic can be driven exactly (tests, and the
CLI's hidden ``--backend scripted:FILE``). Both obey the request's token limit and deadline the
same way: a longer output is cut and reported as ``length`` / ``timeout``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gramwright.errors import BudgetTooSmall, PipelineError
from gramwright.readlimit import read_limited

if TYPE_CHECKING:
    from gramwright.decode.prompt import SchemaRendering
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.llamacpp_generation import LlamaCppGenerator
    from gramwright.sources import CompiledSource

__all__ = ["AttemptOutput", "AttemptRequest", "Backend", "GeneratorBackend", "ScriptedBackend"]


@dataclass(frozen=True)
class AttemptRequest:
    source: CompiledSource
    prompt: str  # the user turn as sent: request, exit note, error feedback
    request: str  # the caller's original request (scripted backends match on it)
    attempt: int  # 0-based
    max_tokens: int
    seconds_left: float
    constrain: bool = True
    sampling: SamplingOptions | None = None


@dataclass
class AttemptOutput:
    text: str
    finish_reason: str  # "stop" | "length" | "timeout"
    output_tokens: int
    seconds: float
    prompt_tokens: int = 0
    metrics: dict[str, Any] = field(default_factory=dict)
    closed_by_budget: bool = False  # the masks closed the output as the token limit neared
    cut: list[str] = field(default_factory=list)  # JSON Pointers of the values that close cut short
    # a backend that checks its output against the grammar it asked for (a serving engine) says
    # here where the text left it: the attempt then fails with a ``grammar`` error
    grammar_error: str = ""


class Backend(Protocol):
    def generate(self, request: AttemptRequest) -> AttemptOutput: ...


class _Deadline(Exception):
    pass


class GeneratorBackend:
    """The embedded (or given) model under the source's grammar: transformers (:class:`Generator`)
    or llama.cpp in-process (:class:`LlamaCppGenerator`), both under gramwright's masks."""

    def __init__(
        self,
        generator: Generator | LlamaCppGenerator | None = None,
        model: str | None = None,
        *,
        schema_prompt: SchemaRendering = "compact",
        batch_size: int = 1,
    ) -> None:
        if generator is None:
            from gramwright.generation import Generator

            generator = Generator(model)
        self.generator = generator
        self.schema_prompt: SchemaRendering = schema_prompt  # how the schema is shown in the prompt
        # sees every step of every attempt and may raise to stop the run (``extract --stream``)
        self.on_token: Callable[[Any], None] | None = None
        # requests per forward pass in :meth:`generate_many` (``extract --batch``)
        self.batch_size = batch_size

    def check_budget(self, source: CompiledSource, max_tokens: int) -> None:
        """Raise ``BudgetTooSmall`` when ``max_tokens`` cannot hold ``source``'s shortest output
        (reads the tokenizer only: before the model loads)."""
        self.generator.check_budget(source, max_tokens)

    def generate(self, request: AttemptRequest) -> AttemptOutput:
        from gramwright.generation import SamplingOptions

        base = request.sampling or SamplingOptions()
        sampling = SamplingOptions(request.max_tokens, base.temperature, base.top_k, base.top_p, base.seed)
        # model loading and the grammar engine's build are not the attempt's time (nor its budget)
        prompt_tokens = self._prompt_tokens(request)
        if request.constrain:
            self.generator.engine_for(request.source)
        pieces: list[bytes] = []
        masses: list[float] = []
        started = time.perf_counter()
        deadline = started + request.seconds_left

        def watch(step: Any) -> None:
            pieces.append(step.text)
            if self.on_token is not None:
                self.on_token(step)
            if step.clipped_mass is not None:
                masses.append(step.clipped_mass)
            if time.perf_counter() > deadline:
                raise _Deadline

        try:
            gen = self.generator.run(
                request.source,
                request.prompt,
                sampling=sampling,
                constrain=request.constrain,
                on_token=watch,
                schema_prompt=self.schema_prompt,
            )
        except _Deadline:
            text = b"".join(pieces).decode("utf-8", "replace")
            metrics = {"clipped_mass_avg": round(sum(masses) / len(masses), 4)} if masses else {}
            return AttemptOutput(
                text, "timeout", len(pieces), time.perf_counter() - started, prompt_tokens, metrics
            )
        return AttemptOutput(
            gen.text,
            gen.finish_reason,
            gen.tokens,
            time.perf_counter() - started,
            prompt_tokens,
            dict(gen.metrics),
            gen.closed_by_budget,
            list(gen.cut),
        )

    def generate_many(self, requests: Sequence[AttemptRequest]) -> list[AttemptOutput | BudgetTooSmall]:
        """Every request's attempt, ``batch_size`` per forward pass (``Generator.run_batch``);
        each output is what :meth:`generate` gives for that request alone (greedy: the same
        text). An attempt's seconds are its time in the batch, joining to leaving (the forward
        passes it shared count whole, the queue before it joined does not), and it stops at
        its ``seconds_left`` as :meth:`generate` does. A request whose limit cannot hold any
        output gets its ``BudgetTooSmall`` in its place."""
        from gramwright.generation import BatchItem, Generation, Generator, SamplingOptions

        if not isinstance(self.generator, Generator):
            raise PipelineError(
                "batched attempts run on the transformers backend only",
                hint="leave out --backend llama-cpp, or give --batch 1",
            )
        items = []
        for request in requests:
            base = request.sampling or SamplingOptions()
            sampling = SamplingOptions(
                request.max_tokens, base.temperature, base.top_k, base.top_p, base.seed
            )
            items.append(
                BatchItem(
                    request.source,
                    request.prompt,
                    sampling,
                    constrain=request.constrain,
                    time_limit_s=request.seconds_left,
                )
            )
        prompt_tokens = [self._prompt_tokens(request) for request in requests]
        made = self.generator.run_batch(items, batch_size=self.batch_size, schema_prompt=self.schema_prompt)
        outputs: list[AttemptOutput | BudgetTooSmall] = []
        for gen, tokens in zip(made, prompt_tokens, strict=True):
            if not isinstance(gen, Generation):
                outputs.append(gen)
                continue
            metrics = dict(gen.metrics)
            if gen.finish_reason == "timeout":  # what ``generate`` reports for a stopped attempt
                mass = metrics.get("clipped_mass_avg")
                metrics = {"clipped_mass_avg": mass} if mass else {}
            outputs.append(
                AttemptOutput(
                    gen.text,
                    gen.finish_reason,
                    gen.tokens,
                    float(gen.metrics.get("elapsed_s", 0.0)),
                    tokens,
                    metrics,
                    gen.closed_by_budget and gen.finish_reason != "timeout",
                    list(gen.cut) if gen.finish_reason != "timeout" else [],
                )
            )
        return outputs

    def _prompt_tokens(self, request: AttemptRequest) -> int:
        # the same prompt Generator.run builds (system prompt with the schema, chat template)
        _, plan = self.generator.prompt_for(
            request.source, request.prompt, max_tokens=request.max_tokens, schema_prompt=self.schema_prompt
        )
        return plan.prompt_tokens


@dataclass(frozen=True)
class _Script:
    match: str | None
    outputs: tuple[Mapping[str, Any], ...]
    sleep: float


class ScriptedBackend:
    """Replays outputs: the first script whose ``match`` occurs in the request (or none: the
    default script) gives its ``outputs[attempt]`` (the last one once attempts run past the end).

    An output is ``{"text", "finish_reason"?, "tokens"?, "seconds"?, "prompt_tokens"?,
    "clipped_mass"?}``; ``tokens`` defaults to one per 4 characters, ``seconds`` to 1 ms per token.
    ``sleep`` (per script) really sleeps, so a CLI test can kill a batch half-way."""

    def __init__(self, scripts: Sequence[Mapping[str, Any]]) -> None:
        self.scripts = [
            _Script(s.get("match"), tuple(s.get("outputs", ())), float(s.get("sleep", 0.0))) for s in scripts
        ]
        if not all(s.outputs for s in self.scripts):
            raise PipelineError("every script needs at least one output")
        self.requests: list[AttemptRequest] = []  # what the pipeline asked, for tests to inspect

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedBackend:
        try:
            data = json.loads(read_limited(path, "script").decode("utf-8"))
        except (OSError, ValueError) as exc:
            raise PipelineError(f"cannot read the script: {exc}", where=str(path)) from None
        scripts = data.get("scripts") if isinstance(data, dict) else data
        if not isinstance(scripts, list):
            raise PipelineError("a script file is a list of scripts (or {'scripts': [...]})", where=str(path))
        return cls(scripts)

    @classmethod
    def of(cls, *outputs: Mapping[str, Any] | str) -> ScriptedBackend:
        """One default script: these outputs in order (a string is a ``stop`` output)."""
        return cls([{"outputs": [{"text": o} if isinstance(o, str) else o for o in outputs]}])

    def generate(self, request: AttemptRequest) -> AttemptOutput:
        self.requests.append(request)
        script = next((s for s in self.scripts if s.match and s.match in request.request), None)
        script = script or next((s for s in self.scripts if not s.match), None)
        if script is None:
            raise PipelineError(f"no script matches the request {request.request[:40]!r}")
        if script.sleep:
            time.sleep(script.sleep)
        out = script.outputs[min(request.attempt, len(script.outputs) - 1)]
        text = str(out.get("text", ""))
        tokens = int(out.get("tokens", max(1, math.ceil(len(text) / 4))))
        seconds = float(out.get("seconds", 0.001 * tokens))
        finish = str(out.get("finish_reason", "stop"))
        if tokens > request.max_tokens:  # what a real model does at its token limit
            text, seconds = (
                text[: len(text) * request.max_tokens // tokens],
                seconds * request.max_tokens / tokens,
            )
            tokens, finish = request.max_tokens, "length"
        if seconds > request.seconds_left:  # stopped at the deadline, mid-output
            share = request.seconds_left / seconds
            text, tokens, seconds = text[: int(len(text) * share)], int(tokens * share), request.seconds_left
            finish = "timeout"
        metrics = {"clipped_mass_avg": float(out["clipped_mass"])} if "clipped_mass" in out else {}
        return AttemptOutput(text, finish, tokens, seconds, int(out.get("prompt_tokens", 0)), metrics)
