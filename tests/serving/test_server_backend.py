"""The pipeline against a serving engine's API, exercised on real localhost HTTP servers that
answer with vLLM's and SGLang's recorded shapes (tests/fixtures/serving/recorded.json): the grammar
goes in the fields each server reads, answers are parsed streamed and whole, connection failures
are retried and answered errors are not, the API key is sent and never shown, and a server that
ignores the grammar is caught by gramwright's recognizer of the grammar it was sent."""

from __future__ import annotations

import json
import random
import socket
from pathlib import Path
from typing import Any

import pytest

from gramwright.errors import ServingError
from gramwright.grammar.export import export_grammar
from gramwright.pipeline import run
from gramwright.serving import ServerBackend, ServerRejected, ServerUnavailable
from gramwright.serving.client import RetryPolicy
from gramwright.sources import load_source
from tests.support.fake_server import RECORDED, FakeServer, Reply, Seen, chat_reply, recorded_server

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = str(ROOT / "docs/examples/purchase_order.json")
RULES = str(ROOT / "docs/examples/purchase_order.rules.json")
GOOD = '{"supplier":"联想","total_amount":11998,"items":[{"name":"笔记本","qty":2,"unit_price":5999}]}'
FAST = RetryPolicy(tries=4, base_s=0.01, cap_s=0.05)


def _backend(url: str, **kw: Any) -> ServerBackend:
    return ServerBackend(url, retry=FAST, **kw)


@pytest.mark.parametrize("stream", [True, False])
def test_vllm_gets_the_grammar_in_structured_outputs_and_its_answer_is_validated(stream: bool) -> None:
    with recorded_server("vllm", GOOD) as server:
        backend = _backend(server.url + "/v1", stream=stream)  # a /v1 suffix is accepted
        result = run(SCHEMA, "Two laptops from Lenovo at 5999", rules=RULES, backend=backend)
    assert result.status == "ok", result.errors
    assert result.value["total_amount"] == 11998
    (chat,) = server.chats()
    body = chat.body
    source = load_source(SCHEMA).for_generation()
    sent = export_grammar(source.grammar, "vllm-request").body
    assert sent is not None
    assert body["structured_outputs"] == sent["extra_body"]["structured_outputs"]
    assert "::=" in body["structured_outputs"]["grammar"]
    assert body["model"] == "Qwen/Qwen2.5-7B-Instruct" and body["stream"] is stream
    assert body["max_tokens"] >= 1 and body["temperature"] == 0.0
    assert ("stream_options" in body) is stream
    assert body["messages"][0]["role"] == "system" and "supplier" in body["messages"][0]["content"]
    assert body["messages"][-1] == {"role": "user", "content": body["messages"][-1]["content"]}
    assert "Two laptops" in body["messages"][-1]["content"]
    m = result.metrics
    assert m["server"]["dialect"] == "vllm" and "budget_close" in m["server"]["not_carried"]
    assert m["server_grammar_checks"] == ["accepted"]
    assert result.attempts[0].output_tokens == 32  # the server's usage count, streamed or not
    assert result.attempts[0].prompt_tokens == 143


@pytest.mark.parametrize("stream", [True, False])
def test_sglang_gets_the_grammar_as_ebnf(stream: bool) -> None:
    with recorded_server("sglang", GOOD) as server:
        result = run(SCHEMA, "Two laptops", backend=_backend(server.url, stream=stream))
    assert result.status == "ok", result.errors
    body = server.chats()[0].body
    assert set(body) >= {"ebnf", "messages", "model", "max_tokens"}
    assert "structured_outputs" not in body and "grammar" not in body
    assert body["ebnf"].startswith("root ::=")
    assert result.metrics["server"]["dialect"] == "sglang"


def test_the_dialect_is_said_by_the_server_or_given() -> None:
    odd = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "someone"}]}
    with FakeServer({"/v1/models": lambda _: Reply(body=odd)}) as server:
        with pytest.raises(ServingError, match="cannot tell which engine") as exc:
            _backend(server.url).prepare(load_source(SCHEMA))
        assert "--dialect" in exc.value.hint
        plan = _backend(server.url, dialect="llamacpp").prepare(load_source(SCHEMA))
        assert plan.dialect == "llamacpp" and plan.detected == "given" and plan.target == "llamacpp-request"
    with recorded_server("sglang", GOOD) as server:
        plan = _backend(server.url, dialect="vllm").prepare(load_source(SCHEMA))
    assert plan.dialect == "vllm"
    assert any("server says it is sglang" in n for n in plan.notes)


def test_the_plan_says_what_the_dialect_cannot_carry_before_any_request() -> None:
    with recorded_server("vllm", GOOD) as server:
        plan = _backend(server.url).prepare(load_source(SCHEMA))
        assert server.chats() == []  # said before any request
    assert set(plan.not_carried) == {"budget_close", "clipped_mass", "prompt_fit"}
    lines = "\n".join(plan.lines())
    assert "not carried by vllm: budget_close" in lines and "vllm-request export" in lines


def test_a_server_that_ignores_the_grammar_is_caught_by_the_recognizer() -> None:
    # valid JSON, valid against the schema, passes the rules — but pretty-printed, which the
    # compact grammar sent does not allow: only the recognizer can tell the grammar was ignored
    pretty = json.dumps(json.loads(GOOD), ensure_ascii=False, indent=2)
    prose = "Sure! Here is the order you asked for:\n" + GOOD
    for text in (pretty, prose):
        with recorded_server("vllm", text) as server:
            result = run(SCHEMA, "Two laptops", rules=RULES, backend=_backend(server.url), max_attempts=2)
        assert result.status != "ok"
        assert len(server.chats()) == 2  # retried with feedback, both refused
        first = result.attempts[0]
        assert first.errors[0].keyword == "grammar"
        assert "did not enforce it" in first.errors[0].message
        checks = result.metrics["server_grammar_checks"]
        assert len(checks) == 2 and all(c.startswith("rejected at byte") for c in checks)
    # streamed, the prose answer was abandoned at its first byte ("S" where "{" must come)
    assert result.attempts[0].text == "Sure"
    assert checks[0].startswith("rejected at byte 0")


def test_connection_failures_are_retried_with_jitter_and_answered_errors_are_not() -> None:
    calls = {"n": 0}

    def flaky(seen: Seen) -> Reply:
        calls["n"] += 1
        if calls["n"] <= 2:
            return Reply(503, {"error": {"message": "overloaded", "type": "ServiceUnavailable", "code": 503}})
        return chat_reply("vllm", GOOD, stream=True)

    routes = {"/v1/models": lambda _: Reply(body=RECORDED["vllm"]["models"]), "/v1/chat/completions": flaky}
    with FakeServer(routes) as server:
        result = run(SCHEMA, "Two laptops", backend=_backend(server.url))
    assert result.status == "ok"
    assert result.metrics["server_retries"] == 2 and calls["n"] == 3

    rejected = {
        "/v1/models": lambda _: Reply(body=RECORDED["vllm"]["models"]),
        "/v1/chat/completions": lambda _: Reply(400, RECORDED["vllm"]["error"]),
    }
    with FakeServer(rejected) as server, pytest.raises(ServerRejected, match="Grammar error: Unexpected"):
        run(SCHEMA, "Two laptops", backend=_backend(server.url))
    assert len(server.chats()) == 1  # not sent again
    sglang_error = {
        "/v1/models": lambda _: Reply(body=RECORDED["sglang"]["models"]),
        "/v1/chat/completions": lambda _: Reply(400, RECORDED["sglang"]["error"]),
    }
    with FakeServer(sglang_error) as server, pytest.raises(ServerRejected, match="failed to parse EBNF"):
        run(SCHEMA, "Two laptops", backend=_backend(server.url))


def test_a_stream_that_breaks_off_is_sent_again_whole() -> None:
    calls = {"n": 0}

    def dying(seen: Seen) -> Reply:
        calls["n"] += 1
        reply = chat_reply("vllm", GOOD, stream=True)
        if calls["n"] == 1:
            assert reply.events is not None
            return Reply(events=reply.events[:5], cut=True)  # the server died mid-answer
        return reply

    routes = {"/v1/models": lambda _: Reply(body=RECORDED["vllm"]["models"]), "/v1/chat/completions": dying}
    with FakeServer(routes) as server:
        result = run(SCHEMA, "Two laptops", backend=_backend(server.url))
    assert result.status == "ok" and result.attempts[0].text == GOOD
    assert result.metrics["server_retries"] == 1


def test_a_server_that_is_gone_raises_unavailable_after_its_tries() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    backend = ServerBackend(f"http://127.0.0.1:{port}", dialect="vllm", model="m", retry=FAST)
    with pytest.raises(ServerUnavailable) as exc:
        backend.prepare(load_source(SCHEMA))
    assert "no answer" in exc.value.message


def test_retry_waits_are_full_jitter_below_a_growing_cap() -> None:
    policy = RetryPolicy(tries=6, base_s=0.5, cap_s=8.0)
    rng = random.Random(7)
    waits = [[policy.wait(k, rng) for _ in range(200)] for k in range(6)]
    for k, drawn in enumerate(waits):
        cap = min(8.0, 0.5 * 2**k)
        assert all(0.0 <= w <= cap for w in drawn)
        assert max(drawn) > 0.8 * cap and min(drawn) < 0.2 * cap  # spread over the whole range


def test_the_api_key_is_sent_as_a_bearer_token_and_never_shown() -> None:
    secret = "sk-test-4b1d2c3e"

    def guarded(seen: Seen) -> Reply:
        if seen.headers.get("Authorization") != f"Bearer {secret}":
            return Reply(401, {"error": {"message": "Invalid API key", "type": "Unauthorized", "code": 401}})
        return Reply(body=RECORDED["vllm"]["models"])

    with FakeServer({"/v1/models": guarded}) as server:
        assert _backend(server.url, api_key=secret).prepare(load_source(SCHEMA)).dialect == "vllm"
        with pytest.raises(ServerRejected) as exc:
            _backend(server.url, api_key="sk-wrong-key").prepare(load_source(SCHEMA))
    shown = exc.value.one_line() + repr(_backend(server.url, api_key=secret).endpoint)
    assert "401" in shown and "GRAMWRIGHT_API_KEY" in shown
    assert secret not in shown and "sk-wrong-key" not in shown
