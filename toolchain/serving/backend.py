"""The pipeline's backend for a serving engine: each attempt is one chat completion with the
grammar exported in the server's dialect; layers 2–3 then run exactly as for the local model.

What the server cannot carry is said before any request (:meth:`ServerBackend.prepare` →
:class:`ServingPlan`) and again in every attempt's metrics — never silently weaker:

* **budget-aware closing**: gramwright's masks close an output before the token limit; a server
  cuts it at ``max_tokens`` (``finish_reason=length``), and the pipeline raises the limit once,
  then salvages, flagged — as for any cut output;
* **clipped mass**: a server does not report the probability its grammar removed, so the
  confidence has no such factor;
* the prompt is not fitted to the server's context (no tokenizer here): an overlong prompt is the
  server's error, reported as such.

Every completion is read back through gramwright's recognizer of the grammar *as sent* (the
exported GBNF parsed again): a text the grammar does not accept is a server that did not enforce
it, recorded as a ``grammar`` error on that attempt (so it is retried, never ``ok``), and a
streamed answer is abandoned at the first byte the grammar refuses.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gramwright.errors import ServingError
from gramwright.serving.client import (
    EXPORT_TARGET,
    Completion,
    RetryPolicy,
    ServerClient,
    ServerInfo,
    chat_body,
    detect_server,
    grammar_fields,
)
from gramwright.serving.http import Endpoint

if TYPE_CHECKING:
    from gramwright.decode.prompt import SchemaRendering
    from gramwright.pipeline.backend import AttemptOutput, AttemptRequest
    from gramwright.recognizer.compiled import CompiledGrammar
    from gramwright.sources import CompiledSource

__all__ = ["NOT_CARRIED", "ServerBackend", "ServingPlan", "grammar_check"]

# What no serving dialect carries today, as (code, what happens instead).
NOT_CARRIED = {
    "budget_close": "the server cuts an output at max_tokens instead of closing it in time; a cut "
    "output is retried once with twice the room, then salvaged and flagged",
    "clipped_mass": "the server does not report the probability its grammar removed; confidence "
    "has no clipped-mass factor",
    "prompt_fit": "the prompt is not fitted to the server's context; an overlong prompt is refused "
    "by the server and reported",
}
_PREPARED_KEPT = 16  # exports kept (a grounded batch makes one grammar per row's source text)


@dataclass
class ServingPlan:
    """What one source runs with on one server, decided before any request."""

    server: str
    dialect: str
    model: str
    detected: str
    target: str  # the export target whose fields carry the grammar
    grammar_bytes: int
    not_carried: dict[str, str]  # code → what happens instead
    notes: list[str] = field(default_factory=list)  # the export's own notes, a dialect mismatch

    def to_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "dialect": self.dialect,
            "model": self.model,
            "detected": self.detected,
            "target": self.target,
            "grammar_bytes": self.grammar_bytes,
            "not_carried": dict(self.not_carried),
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """The plan in words, one line each (what the CLI prints before the first request)."""
        head = f"server {self.server}: {self.dialect} ({self.detected}), model {self.model!r}"
        out = [head, f"grammar: the {self.target} export ({self.grammar_bytes:,} bytes of GBNF)"]
        out += [f"not carried by {self.dialect}: {code}: {why}" for code, why in self.not_carried.items()]
        out += [f"note: {n}" for n in self.notes]
        return out


@dataclass
class _Prepared:
    plan: ServingPlan
    fields: dict[str, Any]
    compiled: CompiledGrammar  # the recognizer's grammar of the GBNF as sent
    grammar: Any  # the source grammar it was made from (kept alive: its id is the cache key)


def grammar_check(compiled: CompiledGrammar, text: str, *, complete: bool) -> str:
    """``accepted`` (a sentence of the grammar), ``prefix`` (a cut output the grammar can still
    finish) or ``rejected at byte N: …``."""
    from gramwright.recognizer import Recognizer
    from gramwright.recognizer.recognizer import InputRejected, describe_bytes

    rec = Recognizer(compiled)
    data = text.encode("utf-8")
    try:
        rec.feed(data)
    except InputRejected as exc:
        shown = repr(chr(exc.byte)) if exc.byte < 0x80 else f"{exc.byte:#04x}"
        return (
            f"rejected at byte {exc.position}: {shown} not allowed (allowed: {describe_bytes(exc.allowed)})"
        )
    if rec.is_accepting():
        return "accepted"
    if complete:
        return f"rejected at byte {len(data)}: the output ends before the grammar does"
    return "prefix"


class ServerBackend:
    """Attempts on a serving engine (vLLM, SGLang, llama.cpp) through its OpenAI-compatible API.

    ``url`` is the server's base URL; ``dialect`` ``vllm``/``sglang``/``llamacpp`` or None
    (asked from the server); ``api_key`` goes into the Authorization header only. Thread-safe:
    ``extract --concurrency N`` shares one backend between N workers."""

    def __init__(
        self,
        url: str,
        *,
        dialect: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        schema_prompt: SchemaRendering = "compact",
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        stream: bool = True,
    ) -> None:
        self.endpoint = Endpoint.parse(url, api_key)
        self.schema_prompt: SchemaRendering = schema_prompt
        self._dialect, self._model = dialect, model
        self._timeout_s, self._retry, self._stream = timeout_s, retry, stream
        self._client: ServerClient | None = None
        self._prepared: dict[int, _Prepared] = {}
        self._lock = threading.Lock()

    @property
    def info(self) -> ServerInfo:
        return self.client.info

    @property
    def client(self) -> ServerClient:
        with self._lock:
            if self._client is None:
                info = detect_server(self.endpoint, self._dialect, self._model)
                self._client = ServerClient(
                    self.endpoint, info, timeout_s=self._timeout_s, retry=self._retry, stream=self._stream
                )
            return self._client

    def prepare(self, source: CompiledSource) -> ServingPlan:
        """Export ``source``'s grammar in the server's dialect and say what it cannot carry —
        before any request (the CLI prints it; each attempt's metrics repeat the codes)."""
        return self._prepare(source).plan

    def _prepare(self, source: CompiledSource) -> _Prepared:
        key = id(source.grammar)
        found = self._prepared.get(key)
        if found is not None and found.grammar is source.grammar:
            return found
        from gramwright.grammar.export import export_grammar
        from gramwright.grammar.gbnf import parse_gbnf
        from gramwright.recognizer import compile_grammar

        info = self.client.info
        target = EXPORT_TARGET[info.dialect]
        approximations = [item.to_dict() for item in source.report if item.status != "exact"]
        exported = export_grammar(
            source.grammar,
            target,
            schema=source.schema if source.is_schema else None,
            approximations=approximations,
            model=info.model,
        )
        assert exported.body is not None, "request targets give a body"
        fields = grammar_fields(info.dialect, exported.body)
        gbnf = _grammar_text(fields)
        sent = parse_gbnf(gbnf, f"<{target}>")
        not_carried = dict(NOT_CARRIED)
        notes = [n for n in exported.notes if "response_format" not in n]
        if info.note:
            notes.append(info.note)
        plan = ServingPlan(
            self.endpoint.base,
            info.dialect,
            info.model,
            info.detected,
            target,
            len(gbnf.encode("utf-8")),
            not_carried,
            notes,
        )
        prepared = _Prepared(plan, fields, compile_grammar(sent), source.grammar)
        with self._lock:
            self._prepared[key] = prepared
            while len(self._prepared) > _PREPARED_KEPT:  # grounded rows: one grammar per source text
                self._prepared.pop(next(iter(self._prepared)))
        return prepared

    def messages(self, source: CompiledSource, prompt: str) -> list[dict[str, str]]:
        """The chat messages of an attempt: the system prompt the local model gets (the schema
        shown as ``schema_prompt``, or the GBNF text for a grammar source) and the user turn."""
        from gramwright.decode.prompt import system_prompt
        from gramwright.grammar.gbnf import emit_gbnf

        if source.is_schema:
            system = system_prompt(source.schema, rendering=self.schema_prompt)
        else:
            system = system_prompt(grammar_text=emit_gbnf(source.grammar))
        out = [{"role": "system", "content": system}] if system else []
        return [*out, {"role": "user", "content": prompt}]

    def generate(self, request: AttemptRequest) -> AttemptOutput:
        from gramwright.generation import SamplingOptions
        from gramwright.pipeline.backend import AttemptOutput

        prepared = self._prepare(request.source)
        client = self.client
        base = request.sampling or SamplingOptions()
        body = chat_body(
            client.info.dialect,
            client.info.model,
            self.messages(request.source, request.prompt),
            prepared.fields if request.constrain else {},
            max_tokens=request.max_tokens,
            temperature=base.temperature,
            top_k=base.top_k,
            top_p=base.top_p,
            seed=base.seed,
            stream=client.stream,
        )
        started = time.perf_counter()
        done = client.complete(
            body,
            seconds_left=request.seconds_left,
            watch=(lambda: _Watch(prepared.compiled).feed) if request.constrain else None,
        )
        check = ""
        if request.constrain:
            check = grammar_check(prepared.compiled, done.text, complete=done.finish_reason == "stop")
        tokens = min(done.completion_tokens, request.max_tokens)
        metrics = _metrics(prepared.plan, done, check, time.perf_counter() - started)
        out = AttemptOutput(done.text, done.finish_reason, tokens, done.seconds, done.prompt_tokens, metrics)
        if check.startswith("rejected"):
            out.grammar_error = (
                f"the server's output left the grammar sent ({check}): "
                f"{client.info.dialect} did not enforce it"
            )
        return out


class _Watch:
    """Feeds streamed text to a recognizer; False at the first byte the grammar refuses, so the
    stream is abandoned there instead of paying for the rest of a wrong answer."""

    def __init__(self, compiled: CompiledGrammar) -> None:
        from gramwright.recognizer import Recognizer

        self.rec = Recognizer(compiled)

    def feed(self, piece: str) -> bool:
        return self.rec.try_feed(piece.encode("utf-8"))


def _metrics(plan: ServingPlan, done: Completion, check: str, wall: float) -> dict[str, Any]:
    out: dict[str, Any] = {
        "server": {"dialect": plan.dialect, "model": plan.model, "not_carried": sorted(plan.not_carried)},
        "server_grammar_check": check or "not constrained",
        "server_finish_reason": done.raw_finish,
        "server_tokens_counted": done.tokens_counted,
        "server_retries": done.retries,
        "server_wait_s": done.waited_s,
        "server_wall_s": round(wall, 4),
    }
    if done.stopped_early:
        out["server_stream_abandoned"] = True
    return out


def _grammar_text(fields: dict[str, Any]) -> str:
    for value in (
        fields.get("grammar"),
        fields.get("ebnf"),
        (fields.get("structured_outputs") or {}).get("grammar"),
    ):
        if isinstance(value, str):
            return value
    raise ServingError("the export body carries no grammar text")
