"""A real HTTP server on localhost (stdlib ``http.server``, one thread per request) that answers
with recorded shapes: for tests of the serving client where no vLLM or SGLang runs, and for a
server that ignores the grammar it is sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDED = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures/serving/recorded.json").read_text(encoding="utf-8")
)


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON
    events: list[Any] | None = None  # an SSE stream: JSON events, then [DONE] unless ``cut``
    cut: bool = False  # the stream stops without [DONE] (a server that died)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


Route = Callable[[Seen], Reply]


@dataclass
class FakeServer:
    routes: dict[str, Route]
    seen: list[Seen] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def chats(self) -> list[Seen]:
        return [s for s in self.seen if s.path == "/v1/chat/completions"]

    def __enter__(self) -> FakeServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                seen = Seen(method, self.path, dict(self.headers), json.loads(raw) if raw else None)
                owner.seen.append(seen)
                route = owner.routes.get(self.path)
                reply = route(seen) if route else Reply(404, {"detail": "Not Found"})
                if reply.events is None:
                    data = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for event in reply.events:
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    if not reply.cut:
                        self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client stopped reading: as a real server sees it
                self.close_connection = True

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


def chat_reply(dialect: str, text: str, *, finish: str = "stop", stream: bool) -> Reply:
    """The recorded answer of ``dialect`` with ``text`` as its content (streamed: one event per
    four characters, as a server sends about one token per event)."""
    rec = RECORDED[dialect]
    if not stream:
        body = json.loads(json.dumps(rec["chat"]))
        body["choices"][0]["message"]["content"] = text
        body["choices"][0]["finish_reason"] = finish
        return Reply(body=body)
    events = [rec["stream_first"]]
    for i in range(0, len(text), 4):
        piece = json.loads(json.dumps(rec["stream_piece"]))
        piece["choices"][0]["delta"]["content"] = text[i : i + 4]
        events.append(piece)
    last = json.loads(json.dumps(rec["stream_last"]))
    last["choices"][0]["finish_reason"] = finish
    events += [last, rec["stream_usage"]]
    return Reply(events=events)


def recorded_server(dialect: str, answer: Callable[[Seen], str] | str, **kw: Any) -> FakeServer:
    """A server of ``dialect`` (its model listing) whose chat completions answer ``answer``."""

    def chat(seen: Seen) -> Reply:
        text = answer(seen) if callable(answer) else answer
        return chat_reply(dialect, text, stream=bool(seen.body and seen.body.get("stream")), **kw)

    return FakeServer(
        {"/v1/models": lambda _: Reply(body=RECORDED[dialect]["models"]), "/v1/chat/completions": chat}
    )
