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
from gramwright.grammar.export.text import lark_literal
from gramwright.grammar.export.vllm_request import vllm_request
from gramwright.grammar.ir import Grammar

__all__ = [
    "REQUEST_TARGETS",
    "SUBSTRING_TARGETS",
    "TARGETS",
    "TEXT_TARGETS",
    "Export",
    "ExportRefused",
    "SourceGrounding",
    "export_grammar",
]

TEXT_TARGETS = ("gbnf", "lark", "llamacpp-lark")
REQUEST_TARGETS = ("vllm-request", "sglang-request", "llamacpp-request")
TARGETS = TEXT_TARGETS + REQUEST_TARGETS
# The targets with a substring constraint both peers load: llguidance's and XGrammar's Lark
# readers take ``%regex {"substring_chunks": [...]}``. XGrammar's EBNF has ``Substring(...)``, but
# the GBNF the other targets write is also read by llama.cpp and llguidance, which do not know it:
# there a grounded string is the source's automaton written out as rules.
SUBSTRING_TARGETS = ("lark", "llamacpp-lark")
# The dialect a text target is written in (what vLLM's detector must conclude).
DIALECTS = {"gbnf": "gbnf", "lark": "lark", "llamacpp-lark": "lark"}


@dataclass(frozen=True)
class Export:
    target: str
    text: str  # the grammar text, or the request body as JSON
    body: dict[str, Any] | None = None  # request targets: the body as data
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SourceGrounding:
    """A source's grounding built into the grammar to export. ``substrings`` (only for
    :data:`SUBSTRING_TARGETS`) maps each placeholder literal of the grammar to the chunks (the
    source's words, JSON-escaped) whose runs the member may take; without it the grounded strings
    are in the grammar as rules (the source's automaton). The pointers say what the export holds
    to the source (``strings``, ``numbers``) and whose length bounds it leaves to validation
    (``bounds``)."""

    substrings: dict[str, tuple[str, ...]]
    strings: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    bounds: tuple[str, ...] = ()


def export_grammar(
    grammar: Grammar,
    target: str,
    *,
    schema: Any = None,
    approximations: Sequence[dict[str, str]] = (),
    model: str = "MODEL",
    grounded: Sequence[str] = (),
    source: SourceGrounding | None = None,
) -> Export:
    """``grounded``: the schema pointers of ``x-grounded`` members. Without ``source`` the grammar
    exported is the schema's own (no source is built in), and a note says so; with it, the
    grounding it carries is in the text and the notes say what is and is not (see
    :func:`grounding_notes`)."""
    if source is not None and source.substrings and target not in SUBSTRING_TARGETS:
        raise ValueError(f"{target} has no substring constraint: export with_source's grammar instead")
    exported = _export(grammar, target, schema, approximations, model)
    if source is not None and source.substrings:
        exported = Export(target, _substituted(exported.text, source, target), None, exported.notes)
    if not grounded:
        return exported
    notes = grounding_notes(target, grounded, source)
    exported.notes.extend(notes)
    if exported.body is None:
        return exported
    # a request body carries its notes: the server's operator reads them there
    body = dict(exported.body, notes=[*exported.body.get("notes", []), *notes])
    text = json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    return Export(target, text, body, exported.notes)


def _substituted(text: str, source: SourceGrounding, target: str) -> str:
    """The Lark text with each placeholder literal written as the substring constraint."""
    for marker, chunks in source.substrings.items():
        spelled = lark_literal(marker)
        if spelled not in text:  # the lexer analysis split or dropped it: never a different language
            raise ExportRefused(target, marker, "the substring placeholder did not survive the export")
        regex = "%regex " + json.dumps({"substring_chunks": list(chunks)}, ensure_ascii=False)
        text = text.replace(spelled, regex)
    return text


def grounding_notes(target: str, grounded: Sequence[str], source: SourceGrounding | None = None) -> list[str]:
    """What an export of a grammar with grounded members must say plainly."""

    def where(pointers: Sequence[str]) -> str:
        return ", ".join(p or "/" for p in pointers)

    if source is None:
        return [
            f"x-grounded members ({where(grounded)}) are exported as ordinary strings/numbers: no "
            "source is built in, so a server can write values that are not in the source text; "
            "check each value against the source after generation, or compile with --source FILE "
            "to build the source's values in"
        ]
    notes = []
    if source.numbers:
        notes.append(f"x-grounded numbers ({where(source.numbers)}) take only the source's numbers")
    if source.strings and source.substrings:
        notes.append(
            f"x-grounded strings ({where(source.strings)}) take only runs of the source's words "
            '(%regex {"substring_chunks": …}: llguidance and XGrammar\'s Lark reader)'
        )
    elif source.strings:
        notes.append(
            f"x-grounded strings ({where(source.strings)}) take only runs of the source's words, "
            "written out as rules (the source's suffix automaton: the text grows with the source; "
            f"{' and '.join(SUBSTRING_TARGETS)} write it as one substring constraint)"
        )
    if source.bounds:
        how = "the substring constraint does not carry them" if source.substrings else "too many to write out"
        notes.append(
            f"the length bounds of x-grounded strings ({where(source.bounds)}) are left to validation ({how})"
        )
    return notes


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
