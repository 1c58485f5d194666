"""HTTP to an OpenAI-compatible server with the standard library only: JSON requests, server-sent
event streams, and errors sorted into the ones worth retrying and the ones that are not.

A refused or reset connection, a timeout before the first byte, and the statuses a server answers
while it starts or is overloaded (429, 502, 503, 504) are :class:`ServerUnavailable`: the request
was not served, so sending it again cannot duplicate anything. Any other non-2xx answer is
:class:`ServerRejected` with the server's own message (a grammar it cannot parse, an unknown
field): sending it again would fail the same way. The API key goes in the ``Authorization``
header and nowhere else — never into a message, a report or a log line.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gramwright.errors import ServingError

__all__ = ["Endpoint", "ServerRejected", "ServerUnavailable", "get_json", "post_json", "post_stream"]

RETRY_STATUSES = frozenset({429, 502, 503, 504})


class ServerUnavailable(ServingError):
    """The server did not serve the request (down, restarting, overloaded): safe to send again."""


class ServerRejected(ServingError):
    """The server answered the request with an error; sending it again would fail the same way."""

    def __init__(self, message: str, *, status: int, where: str | None = None, hint: str | None = None):
        self.status = status
        super().__init__(message, where=where, hint=hint)


@dataclass(frozen=True)
class Endpoint:
    """A server's base URL (``http://host:port``, any ``/v1`` suffix removed) and its API key."""

    base: str
    api_key: str | None = None

    @classmethod
    def parse(cls, url: str, api_key: str | None = None) -> Endpoint:
        base = url.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ServingError(
                f"not an http(s) URL: {url!r}", hint="give the server's base URL, e.g. http://localhost:8000"
            )
        base = base.removesuffix("/v1")
        return cls(base, api_key or None)

    def url(self, path: str) -> str:
        return self.base + path

    def headers(self, *, stream: bool = False) -> dict[str, str]:
        out = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if stream else "application/json",
        }
        if self.api_key:
            out["Authorization"] = f"Bearer {self.api_key}"
        return out

    def __repr__(self) -> str:  # the key is never shown, not even by a debugger's repr
        return f"Endpoint({self.base!r}, api_key={'<set>' if self.api_key else None})"


def _server_message(raw: bytes) -> str:
    """The error text an OpenAI-compatible server put in its body (vLLM/SGLang: ``message`` at
    the top or under ``error``; FastAPI: ``detail``), else the first bytes of the body."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:300].decode("utf-8", "replace").strip()
    if isinstance(data, dict):
        inner = data.get("error", data)
        if isinstance(inner, dict):
            for key in ("message", "detail"):
                if inner.get(key):
                    return str(inner[key])[:500]
        if isinstance(inner, str):
            return inner[:500]
        if data.get("detail"):
            return str(data["detail"])[:500]
    return raw[:300].decode("utf-8", "replace").strip()


def _open(endpoint: Endpoint, path: str, body: Any, timeout: float, stream: bool) -> Any:
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        endpoint.url(path),
        data=data,
        headers=endpoint.headers(stream=stream),
        method="GET" if body is None else "POST",
    )
    where = endpoint.url(path)
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raw = exc.read() if exc.fp is not None else b""
        message = _server_message(raw) or exc.reason
        if exc.code in RETRY_STATUSES:
            raise ServerUnavailable(f"HTTP {exc.code}: {message}", where=where) from None
        hint = None
        if exc.code in (401, 403):
            hint = "set the server's key in the environment variable --api-key-env names (GRAMWRIGHT_API_KEY)"
        raise ServerRejected(f"HTTP {exc.code}: {message}", status=exc.code, where=where, hint=hint) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServerUnavailable(f"no answer: {reason}", where=where) from None


def get_json(endpoint: Endpoint, path: str, *, timeout: float = 10.0) -> Any:
    with _open(endpoint, path, None, timeout, False) as response:
        raw = response.read()
    return _json_body(raw, endpoint.url(path))


def post_json(endpoint: Endpoint, path: str, body: Mapping[str, Any], *, timeout: float) -> Any:
    with _open(endpoint, path, body, timeout, False) as response:
        try:
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise ServerUnavailable(f"the answer broke off: {exc}", where=endpoint.url(path)) from None
    return _json_body(raw, endpoint.url(path))


def _json_body(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        excerpt = raw[:120].decode("utf-8", "replace")
        raise ServerRejected(
            f"the answer is not JSON: {excerpt!r}",
            status=200,
            where=where,
            hint="is this an OpenAI-compatible server?",
        ) from None


class StreamBroken(ServingError):
    """A stream that ended without its end marker (the server died, the connection dropped)."""


def post_stream(endpoint: Endpoint, path: str, body: Mapping[str, Any], *, timeout: float) -> Iterator[Any]:
    """The ``data:`` events of a server-sent event stream, parsed as JSON, until ``[DONE]``.

    Raises :class:`ServerUnavailable` before the first event (nothing was served), and
    :class:`StreamBroken` or ``TimeoutError`` (``socket.timeout``) once events have come: the
    caller decides what a half-served answer is."""
    response = _open(endpoint, path, body, timeout, True)
    where = endpoint.url(path)
    try:
        while True:
            try:
                line = response.readline()
            except TimeoutError:
                raise
            except (OSError, http.client.HTTPException) as exc:
                raise StreamBroken(f"the stream broke off: {exc}", where=where) from None
            if not line:
                raise StreamBroken("the stream ended without [DONE]", where=where)
            text = line.decode("utf-8", "replace").strip()
            if not text.startswith("data:"):
                continue  # event names, comments (pings), blank separators
            payload = text[5:].strip()
            if payload == "[DONE]":
                return
            try:
                event = json.loads(payload)
            except ValueError:
                raise ServerRejected(
                    f"a stream event is not JSON: {payload[:120]!r}", status=200, where=where
                ) from None
            if isinstance(event, dict) and "error" in event and "choices" not in event:
                raise ServerRejected(_server_message(payload.encode()), status=200, where=where)
            yield event
    finally:
        response.close()
