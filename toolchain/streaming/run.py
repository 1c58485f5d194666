"""A streamed run: the decode loop's per-token callback feeds an :class:`EventStream`, and the
stream always ends with one ``end`` event, also when the run is stopped.

* :func:`stream_generation` — one generation (``generate --stream``); the ``end`` event carries
  the :class:`~gramwright.generation.Generation` as ``generate --format json`` prints it.
* :func:`stream_pipeline` — the three layers (``extract --stream``): every attempt streams, and
  the ``end`` event carries the pipeline's :class:`~gramwright.pipeline.StructuredResult`.

A stop is a ``finish_reason``: ``timeout`` when ``timeout_s`` runs out (checked at every token,
so a run overshoots by at most one token), ``cancelled`` when ``cancelled()`` turns true or the
user presses Ctrl-C (``KeyboardInterrupt``: the ``end`` event is emitted, then the interrupt goes
on to the caller). The ``end`` event then lists the members that were final and those still open;
``result`` is None, since no complete run stands behind it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gramwright.recognizer import compile_grammar
from gramwright.streaming.events import Event, EventStream

if TYPE_CHECKING:
    from gramwright.decode.prompt import SchemaRendering
    from gramwright.generation import Generation, Generator, SamplingOptions
    from gramwright.pipeline import Backend, Policy, StructuredResult
    from gramwright.pipeline.backend import AttemptOutput, AttemptRequest
    from gramwright.sources import CompiledSource

__all__ = ["StreamStopped", "StreamingBackend", "stream_generation", "stream_pipeline"]


class StreamStopped(Exception):
    """Raised from the per-token callback to stop a streamed run (``reason``: timeout | cancelled)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _watch(
    events: EventStream, timeout_s: float | None, cancelled: Callable[[], bool] | None
) -> Callable[[Any], None]:
    deadline = None if timeout_s is None else time.monotonic() + timeout_s

    def on_token(step: Any) -> None:
        events.on_step(step)
        if cancelled is not None and cancelled():
            raise StreamStopped("cancelled")
        if deadline is not None and time.monotonic() > deadline:
            raise StreamStopped("timeout")

    return on_token


def stream_generation(
    source: str | CompiledSource,
    prompt: str,
    emit: Callable[[Event], None],
    *,
    generator: Generator | None = None,
    model: str | None = None,
    sampling: SamplingOptions | None = None,
    constrain: bool = True,
    timeout_s: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    schema_prompt: SchemaRendering = "compact",
    fast_forward: bool = True,
) -> Generation | None:
    """Generate under ``source`` (as :meth:`Generator.run`), emitting token and value events as
    they happen and the ``end`` event last. Returns the generation, or None when stopped. Value
    events need the grammar: an unconstrained run (``constrain=False``) streams tokens only.
    ``source``: a schema/GBNF path, a bundled grammar name or a compiled source; ``generator``
    keeps a loaded model between runs (else one is made for ``model``, default the embedded
    SmolLM2). A budget below the grammar's shortest output is refused before a model loads.
    ``fast_forward``: as :meth:`Generator.run` takes it (False: forced text decoded step by
    step, each token its own event after its own forward pass)."""
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import load_for_generation

    source = load_for_generation(source) if isinstance(source, str) else source.for_generation()
    generator = generator or Generator(model)
    if constrain:
        generator.check_budget(source, (sampling or SamplingOptions()).max_tokens)
    compiled = compile_grammar(source.grammar) if constrain else None
    # loading the model and building the engine are not the run's time (nor its timeout)
    generator.load_model()
    if constrain:
        generator.engine_for(source)
    events = EventStream(compiled, emit)
    try:
        result = generator.run(
            source,
            prompt,
            sampling=sampling,
            constrain=constrain,
            on_token=_watch(events, timeout_s, cancelled),
            schema_prompt=schema_prompt,
            fast_forward=fast_forward,
        )
    except StreamStopped as stop:
        events.end(stop.reason, None)
        return None
    except KeyboardInterrupt:
        events.end("cancelled", None)
        raise
    events.end(result.finish_reason, result.to_dict())
    return result


@dataclass(frozen=True)
class _Piece:
    """A step of a backend that hands over whole texts (the shape of ``StepTrace`` read here)."""

    token_id: int | None
    text: bytes


class StreamingBackend:
    """A pipeline backend that streams each attempt of the backend it wraps: an ``attempt``
    event, then the attempt's tokens and values. A model backend streams token by token (its
    ``on_token``); one that hands over whole texts (``ScriptedBackend``) streams each text as
    one piece, so a test without a model sees the same events a client does."""

    def __init__(self, inner: Backend, events: EventStream, on_token: Callable[[Any], None]) -> None:
        self.inner = inner
        self.events = events
        self._on_token = on_token
        self._streamed = 0

    def check_budget(self, source: CompiledSource, max_tokens: int) -> None:
        check = getattr(self.inner, "check_budget", None)
        if check is not None:
            check(source, max_tokens)

    def generate(self, request: AttemptRequest) -> AttemptOutput:
        self.events.begin_attempt(request.attempt + 1)
        before = self.events.tokens
        if hasattr(self.inner, "on_token"):
            self.inner.on_token = self._on_token
        out = self.inner.generate(request)
        if self.events.tokens == before and out.text:
            self._on_token(_Piece(None, out.text.encode("utf-8")))
        return out


def stream_pipeline(
    source: CompiledSource,
    prompt: str,
    emit: Callable[[Event], None],
    *,
    backend: Backend,
    policy: Policy | None = None,
    rules: Any = None,
    timeout_s: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> StructuredResult | None:
    """Run the pipeline for ``prompt`` with every attempt streamed; the ``end`` event carries
    the :class:`StructuredResult` (its ``finish_reason``: the last attempt's). None when stopped."""
    from gramwright.pipeline import run

    compiled = compile_grammar(source.for_generation(policy.open_objects if policy else None).grammar)
    events = EventStream(compiled, emit)
    streaming = StreamingBackend(backend, events, _watch(events, timeout_s, cancelled))
    try:
        result = run(source, prompt, policy=policy, rules=rules, backend=streaming)
    except StreamStopped as stop:
        events.end(stop.reason, None)
        return None
    except KeyboardInterrupt:
        events.end("cancelled", None)
        raise
    finish = result.attempts[-1].finish_reason if result.attempts else "stop"
    events.end(finish, result.to_dict())
    return result
