"""One chat completion from a serving engine, with the grammar in the fields that engine reads.

The grammar fields come from the export targets themselves (``vllm-request``,
``sglang-request``, ``llamacpp-request``: :mod:`gramwright.grammar.export`), so a request sends
exactly what ``gramwright compile --target`` prints:

* vLLM ≥ 0.12: ``structured_outputs: {"grammar": GBNF}`` beside the OpenAI fields;
* SGLang ≥ 0.4: ``ebnf: GBNF``;
* llama.cpp (``llama-server`` and ``llama-cpp-python``'s server): ``grammar: GBNF``.

Which engine answers is read from the server (``GET /v1/models``: vLLM and SGLang write their
names in ``owned_by``, ``llama-server`` writes ``llamacpp``; ``llama-cpp-python`` writes ``me``
and titles its OpenAPI document "llama.cpp"), or given (``dialect``). Connection failures are
retried with exponential backoff and full jitter (a random wait up to the backoff, so that N
clients do not all come back in the same millisecond); a request the server answered with an
error is not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gramwright.errors import ServingError
from gramwright.serving.http import (
    Endpoint,
    ServerRejected,
    ServerUnavailable,
    StreamBroken,
    get_json,
    post_json,
    post_stream,
)

__all__ = [
    "DIALECTS",
    "Completion",
    "RetryPolicy",
    "ServerClient",
    "ServerInfo",
    "chat_body",
    "detect_server",
    "grammar_fields",
]

DIALECTS = ("vllm", "sglang", "llamacpp")
EXPORT_TARGET = {"vllm": "vllm-request", "sglang": "sglang-request", "llamacpp": "llamacpp-request"}
# what each server writes in ``owned_by`` of ``GET /v1/models`` (read in their sources: vLLM
# ``entrypoints/openai/protocol.py``, SGLang ``srt/entrypoints/openai/protocol.py``, llama.cpp
# ``tools/server``); llama-cpp-python writes "me", which is not a name, so its OpenAPI title decides
OWNED_BY = {"vllm": "vllm", "sglang": "sglang", "llamacpp": "llamacpp"}
CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class ServerInfo:
    dialect: str
    model: str  # the model id requests name (the server's first, unless given)
    detected: str  # how the dialect was known: "given", or what the server said
    note: str = ""  # a --dialect that differs from what the server says

    def to_dict(self) -> dict[str, str]:
        out = {"dialect": self.dialect, "model": self.model, "detected": self.detected}
        if self.note:
            out["note"] = self.note
        return out


def detect_server(
    endpoint: Endpoint, dialect: str | None = None, model: str | None = None, *, timeout: float = 10.0
) -> ServerInfo:
    """Ask the server which engine it is and which model it serves (one ``GET /v1/models``)."""
    if dialect is not None and dialect not in DIALECTS:
        raise ServingError(f"unknown dialect {dialect!r}", hint="use vllm, sglang or llamacpp")
    listing = get_json(endpoint, "/v1/models", timeout=timeout)
    cards = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(cards, list) or not cards or not isinstance(cards[0], dict):
        raise ServingError(
            "the server lists no model (GET /v1/models)",
            where=endpoint.base,
            hint="is this an OpenAI-compatible server with a model loaded?",
        )
    owned = str(cards[0].get("owned_by", ""))
    said = next((name for name, owner in OWNED_BY.items() if owner == owned), None)
    how = f"owned_by={owned!r}"
    if said is None and owned == "me" and _is_llama_cpp_python(endpoint, timeout):
        said, how = "llamacpp", "llama-cpp-python (OpenAPI title)"
    chosen = model or str(cards[0].get("id", ""))
    if dialect is None:
        if said is None:
            raise ServingError(
                f"cannot tell which engine serves {endpoint.base} (GET /v1/models says owned_by={owned!r})",
                hint="give --dialect vllm, sglang or llamacpp",
            )
        return ServerInfo(said, chosen, how)
    note = ""
    if said is not None and said != dialect:
        note = f"--dialect {dialect} was given, but the server says it is {said} ({how})"
    return ServerInfo(dialect, chosen, "given", note)


def _is_llama_cpp_python(endpoint: Endpoint, timeout: float) -> bool:
    try:
        spec = get_json(endpoint, "/openapi.json", timeout=timeout)
    except ServingError:
        return False
    title = spec.get("info", {}).get("title", "") if isinstance(spec, dict) else ""
    return "llama.cpp" in str(title)


def grammar_fields(dialect: str, export_body: dict[str, Any]) -> dict[str, Any]:
    """The request fields that carry the grammar, taken from the dialect's export body."""
    if dialect in ("vllm", "sglang"):
        return dict(export_body["extra_body"])
    return {"grammar": export_body["chat_body"]["grammar"]}


def chat_body(
    dialect: str,
    model: str,
    messages: list[dict[str, str]],
    fields: dict[str, Any],
    *,
    max_tokens: int,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int | None = None,
    stream: bool = True,
) -> dict[str, Any]:
    """A chat-completions body: the OpenAI fields, the sampling the local pipeline would use, and
    the grammar fields. llama.cpp's servers apply a repeat penalty and min-p by default; they are
    turned off so that the server samples as gramwright's own decoder does."""
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "top_p": top_p,
        "stream": stream,
    }
    if top_k > 0:
        body["top_k"] = top_k
    if seed is not None:
        body["seed"] = seed
    if stream and dialect in ("vllm", "sglang"):
        body["stream_options"] = {"include_usage": True}
    if dialect == "llamacpp":
        body.update(repeat_penalty=1.0, min_p=0.0)
    body.update(fields)
    return body


@dataclass(frozen=True)
class RetryPolicy:
    """Connection retries: ``tries`` in all, waits drawn from [0, min(cap, base·2^k)]."""

    tries: int = 6
    base_s: float = 0.5
    cap_s: float = 8.0

    def wait(self, k: int, rng: random.Random) -> float:
        return rng.uniform(0.0, min(self.cap_s, self.base_s * 2**k))


@dataclass
class Completion:
    text: str
    finish_reason: str  # "stop" | "length" | "timeout"
    completion_tokens: int
    prompt_tokens: int
    seconds: float  # the request that answered, from sending to its last byte
    tokens_counted: str = "usage"  # "usage" (the server's count) or "chunks" (stream events)
    retries: int = 0  # connection failures survived before it
    waited_s: float = 0.0  # time spent waiting between those tries
    stopped_early: bool = False  # ``on_delta`` ended the stream (the text left the grammar)
    raw_finish: str = ""  # what the server said
    errors: list[str] = field(default_factory=list)  # the failures survived, in order


class ServerClient:
    """Sends chat completions to one server; safe to share between threads (no shared state but
    the random source, which is locked by CPython's implementation)."""

    def __init__(
        self,
        endpoint: Endpoint,
        info: ServerInfo,
        *,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        stream: bool = True,
        rng: random.Random | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.info = info
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.stream = stream
        self.rng = rng or random.Random()

    def complete(
        self,
        body: dict[str, Any],
        *,
        seconds_left: float,
        watch: Callable[[], Callable[[str], bool]] | None = None,
    ) -> Completion:
        """Send ``body`` until the server serves it (``ServerUnavailable`` after ``tries``).
        ``seconds_left`` is the attempt's deadline: an answer still running then ends as
        ``timeout`` with the text so far. ``watch`` makes, for each try afresh, a function that
        sees each streamed piece and may return False to stop reading (the connection is
        closed; the server stops generating)."""
        errors: list[str] = []
        waited = 0.0
        for k in range(self.retry.tries):
            try:
                done = self._once(body, seconds_left, watch() if watch is not None else None)
            except ServerUnavailable as exc:
                errors.append(exc.message)
                if k + 1 >= self.retry.tries:
                    raise ServerUnavailable(
                        f"the server did not answer in {self.retry.tries} tries ({waited:.1f} s of waits): "
                        f"{exc.message}",
                        where=self.endpoint.base,
                        hint="start the server (or wait for it) and run the same command again: "
                        "rows already written are kept and skipped",
                    ) from None
                pause = self.retry.wait(k, self.rng)
                time.sleep(pause)
                waited += pause
                continue
            done.retries, done.waited_s, done.errors = k, round(waited, 3), errors
            return done
        raise AssertionError("unreachable: the loop returns or raises")

    def _once(
        self, body: dict[str, Any], seconds_left: float, on_delta: Callable[[str], bool] | None
    ) -> Completion:
        timeout = max(0.05, min(self.timeout_s, seconds_left))
        started = time.perf_counter()
        if not body.get("stream"):
            try:
                data = post_json(self.endpoint, CHAT_PATH, body, timeout=timeout)
            except ServerUnavailable as exc:
                if time.perf_counter() - started >= seconds_left and "timed out" in exc.message:
                    return Completion("", "timeout", 0, 0, time.perf_counter() - started)
                raise
            return _from_response(data, time.perf_counter() - started, self.endpoint)
        pieces: list[str] = []
        finish, usage, chunks, stopped = "", None, 0, False
        try:
            for event in post_stream(self.endpoint, CHAT_PATH, body, timeout=timeout):
                if time.perf_counter() - started > seconds_left:
                    finish = "timeout"
                    break
                if isinstance(event.get("usage"), dict):
                    usage = event["usage"]
                for choice in event.get("choices") or ():
                    delta = choice.get("delta") or {}
                    piece = delta.get("content") or ""
                    if piece:
                        pieces.append(piece)
                        chunks += 1
                        if on_delta is not None and not on_delta(piece):
                            stopped = True
                    if choice.get("finish_reason"):
                        finish = str(choice["finish_reason"])
                if stopped:
                    break
        except TimeoutError:
            if time.perf_counter() - started < seconds_left:
                raise ServerUnavailable(
                    f"no answer for {self.timeout_s:g} s (--request-timeout)", where=self.endpoint.base
                ) from None
            finish = "timeout"
        except StreamBroken as exc:
            # nothing of a broken answer is used: the whole request is sent again
            raise ServerUnavailable(exc.message, where=self.endpoint.base) from None
        seconds = time.perf_counter() - started
        counted = "usage" if usage and usage.get("completion_tokens") is not None else "chunks"
        tokens = int(usage["completion_tokens"]) if counted == "usage" and usage else chunks
        prompt_tokens = int(usage.get("prompt_tokens") or 0) if usage else 0
        reason = _finish_reason(finish, stopped)
        return Completion(
            "".join(pieces),
            reason,
            tokens,
            prompt_tokens,
            seconds,
            counted,
            stopped_early=stopped,
            raw_finish=finish,
        )


def _finish_reason(raw: str, stopped: bool) -> str:
    if raw == "timeout":
        return "timeout"
    if raw == "length":
        return "length"
    return "stop"  # "stop", "eos", a stop string; a stream we ended ourselves is complete as read


def _from_response(data: Any, seconds: float, endpoint: Endpoint) -> Completion:
    try:
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
        raw = str(choice.get("finish_reason") or "")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ServerRejected(
            "the answer has no choices[0].message", status=200, where=endpoint.base + CHAT_PATH
        ) from None
    usage = data.get("usage") or {}
    tokens = usage.get("completion_tokens")
    return Completion(
        text,
        _finish_reason(raw, False),
        int(tokens) if tokens is not None else 0,
        int(usage.get("prompt_tokens") or 0),
        seconds,
        "usage" if tokens is not None else "none",
        raw_finish=raw,
    )
