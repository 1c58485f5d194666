"""The ``llamacpp-request`` target: the body of a llama.cpp server request with its ``grammar``.

Targets llama.cpp's ``llama-server`` (``/completion`` and ``/v1/chat/completions`` both take a
``grammar`` field): the ``gbnf`` export, read by llama.cpp's own grammar sampler, whose parser
:mod:`gramwright.grammar.gbnf` follows rule for rule. A server built with ``LLAMA_LLGUIDANCE=ON``
also takes the ``llamacpp-lark`` export in the same field (the ``%llguidance`` header selects it).
"""

from __future__ import annotations

from typing import Any

from gramwright.grammar.export.requests import CHECKED_READERS, RequestInput, gbnf_notes, gbnf_text

__all__ = ["LLAMACPP_VERSION", "llamacpp_request"]

LLAMACPP_VERSION = "llama.cpp llama-server (grammar field: GBNF; %llguidance text with LLAMA_LLGUIDANCE=ON)"


def llamacpp_request(request: RequestInput, model: str = "MODEL") -> dict[str, Any]:
    gbnf = gbnf_text(request.grammar)
    return {
        "target": "llamacpp-request",
        "engine_version": LLAMACPP_VERSION,
        "checked_readers": CHECKED_READERS,
        "dialect": "gbnf",
        "endpoint": "POST /completion",
        "body": {"prompt": "...", "n_predict": 512, "grammar": gbnf},
        "chat_body": {"model": model, "messages": [{"role": "user", "content": "..."}], "grammar": gbnf},
        "notes": gbnf_notes(request.grammar),
    }
