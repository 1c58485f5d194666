"""Export a prepared grammar to the texts and request bodies that serving engines read.

One module per target; pure text and data, importing only the grammar package. A target that
cannot express the grammar raises :class:`ExportRefused` (rule and reason) — never a text with a
different language. Loading an export in the real engines is :mod:`gramwright.serving`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gramwright.grammar.export.errors import ExportRefused
from gramwright.grammar.export.gbnf import emit_gbnf_export
from gramwright.grammar.export.lark import emit_lark
from gramwright.grammar.export.llamacpp_lark import emit_llamacpp_lark
from gramwright.grammar.export.llamacpp_request import llamacpp_request
from gramwright.grammar.export.requests import RequestInput, gbnf_notes
from gramwright.grammar.export.sglang_request import sglang_request
from gramwright.grammar.export.vllm_request import vllm_request
from gramwright.grammar.ir import Grammar

__all__ = ["REQUEST_TARGETS", "TARGETS", "TEXT_TARGETS", "Export", "ExportRefused", "export_grammar"]

TEXT_TARGETS = ("gbnf", "lark", "llamacpp-lark")
REQUEST_TARGETS = ("vllm-request", "sglang-request", "llamacpp-request")
TARGETS = TEXT_TARGETS + REQUEST_TARGETS
# The dialect a text target is written in (what vLLM's detector must conclude).
DIALECTS = {"gbnf": "gbnf", "lark": "lark", "llamacpp-lark": "lark"}


@dataclass(frozen=True)
class Export:
    target: str
    text: str  # the grammar text, or the request body as JSON
    body: dict[str, Any] | None = None  # request targets: the body as data
    notes: list[str] = field(default_factory=list)


def export_grammar(
    grammar: Grammar,
    target: str,
    *,
    schema: Any = None,
    approximations: Sequence[dict[str, str]] = (),
    model: str = "MODEL",
    grounded: Sequence[str] = (),
) -> Export:
    """``grounded``: the schema pointers of ``x-grounded`` members. The grammar exported is the
    schema's own (no source is built in), and a note says so: see :func:`grounding_note`."""
    exported = _export(grammar, target, schema, approximations, model)
    if not grounded:
        return exported
    note = grounding_note(target, grounded)
    exported.notes.append(note)
    if exported.body is None:
        return exported
    # a request body carries its notes: the server's operator reads them there
    body = dict(exported.body, notes=[*exported.body.get("notes", []), note])
    text = json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    return Export(target, text, body, exported.notes)


def grounding_note(target: str, grounded: Sequence[str]) -> str:
    """What an export of a grammar with grounded members must say plainly."""
    where = ", ".join(p or "/" for p in grounded)
    return (
        f"x-grounded members ({where}) are exported as ordinary strings/numbers: {target} has no "
        "substring constraint, so a server can write values that are not in the source text; "
        "check each value against the source after generation (XGrammar's structural tags can "
        "express substrings where the server loads them)"
    )


def _export(
    grammar: Grammar, target: str, schema: Any, approximations: Sequence[dict[str, str]], model: str
) -> Export:
    if target == "gbnf":
        return Export(target, emit_gbnf_export(grammar), notes=gbnf_notes(grammar))
    if target in ("lark", "llamacpp-lark"):
        lark = emit_lark(grammar) if target == "lark" else emit_llamacpp_lark(grammar)
        return Export(target, lark.text, notes=list(lark.notes))
    request = RequestInput(grammar, schema, tuple(approximations))
    if target == "vllm-request":
        body = vllm_request(request, model)
    elif target == "sglang-request":
        body = sglang_request(request, model)
    elif target == "llamacpp-request":
        body = llamacpp_request(request, model)
    else:
        raise ValueError(f"unknown export target {target!r}; targets: {', '.join(TARGETS)}")
    text = json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    return Export(target, text, body, list(body["notes"]))
