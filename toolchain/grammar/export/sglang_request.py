"""The ``sglang-request`` target: SGLang's ``ebnf`` constraint, native and OpenAI-compatible.

Targets SGLang >= 0.4 (``sampling_params.ebnf`` on ``/generate``; ``ebnf`` as an extra body
field on ``/v1/chat/completions``). The default XGrammar backend compiles it with
``compile_grammar`` (GBNF only: a Lark text fails there), ``--grammar-backend llguidance`` with
``grammar_from("ebnf")`` (GBNF converted to Lark, regular rules lexed greedily). So the body
carries the ``gbnf`` export, which is lexically exact for that reading by construction.
"""

from __future__ import annotations

from typing import Any

from gramwright.grammar.export.requests import CHECKED_READERS, RequestInput, gbnf_notes, gbnf_text

__all__ = ["SGLANG_VERSION", "sglang_request"]

SGLANG_VERSION = "SGLang >= 0.4 (sampling_params.ebnf)"


def sglang_request(request: RequestInput, model: str = "MODEL") -> dict[str, Any]:
    gbnf = gbnf_text(request.grammar)
    return {
        "target": "sglang-request",
        "engine_version": SGLANG_VERSION,
        "checked_readers": CHECKED_READERS,
        "dialect": "gbnf",
        "native": {"endpoint": "POST /generate", "body": {"text": "...", "sampling_params": {"ebnf": gbnf}}},
        "extra_body": {"ebnf": gbnf},
        "example": {"model": model, "messages": [{"role": "user", "content": "..."}], "ebnf": gbnf},
        "notes": gbnf_notes(request.grammar),
    }
