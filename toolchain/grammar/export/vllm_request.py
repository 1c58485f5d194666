"""The ``vllm-request`` target: the ``extra_body`` of a request to vLLM's OpenAI-compatible server.

Targets vLLM >= 0.12: the grammar goes in ``structured_outputs.grammar`` (the older
``guided_grammar`` field was removed in 0.12.0). vLLM chooses the dialect by looking: a grammar
with ``::=`` on some line is GBNF, anything else Lark — for XGrammar (``compile_grammar`` or
``compile_lark``) and for llguidance (``grammar_from``, which converts GBNF to Lark and lexes
regular rules greedily). The body carries the ``gbnf`` export: every ``::=`` line makes both
backends read it as GBNF, and it is lexically exact for llguidance by construction, so both
read the same language. For a JSON Schema source there is also the plain ``response_format``
form, where the server compiles the schema itself: the keywords gramwright could only
approximate are listed, because the server's compiler may treat them differently, and
validation must catch what no grammar enforced.
"""

from __future__ import annotations

from typing import Any

from gramwright.grammar.export.requests import CHECKED_READERS, RequestInput, gbnf_notes, gbnf_text

__all__ = ["VLLM_VERSION", "vllm_request"]

VLLM_VERSION = "vLLM >= 0.12 (structured_outputs; guided_grammar was removed in 0.12.0)"


def vllm_request(request: RequestInput, model: str = "MODEL") -> dict[str, Any]:
    grammar = gbnf_text(request.grammar)
    body: dict[str, Any] = {
        "target": "vllm-request",
        "engine_version": VLLM_VERSION,
        "checked_readers": CHECKED_READERS,
        "endpoint": "POST /v1/chat/completions (or /v1/completions)",
        "dialect": "gbnf",
        "extra_body": {"structured_outputs": {"grammar": grammar}},
        "example": {
            "model": model,
            "messages": [{"role": "user", "content": "..."}],
            "structured_outputs": {"grammar": grammar},
        },
        "notes": gbnf_notes(request.grammar),
    }
    if request.schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": request.schema, "strict": True},
        }
        body["approximations"] = list(request.approximations)
        body["notes"].append(
            "response_format lets the server compile the schema itself: its language can differ "
            "from the grammar's; the approximations listed are what validation must check"
        )
    return body
