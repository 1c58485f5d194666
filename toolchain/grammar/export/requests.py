"""What every request body says beside the grammar: the readers it was checked against, and
how the server's backends will take the text (the facts the three body modules share)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gramwright.grammar.export.gbnf import emit_gbnf_export, gbnf_exactness, portable_grammar
from gramwright.grammar.export.lexemes import (
    AnalysisBudgetExceeded,
    LexView,
    conflicts,
    regular_rules,
)
from gramwright.grammar.ir import Grammar

__all__ = ["CHECKED_READERS", "RequestInput", "gbnf_notes", "gbnf_text", "llguidance_reads_gbnf_exactly"]

# The grammar readers the exports are tested against (tests/test_export_*.py, bench/export.py).
CHECKED_READERS = {"xgrammar": "0.2.9", "llguidance": "1.9.1"}


@dataclass(frozen=True)
class RequestInput:
    grammar: Grammar
    schema: Any = None  # the JSON Schema, when the source was one
    approximations: Sequence[dict[str, str]] = field(default_factory=tuple)  # report, inexact only


@lru_cache(maxsize=16)
def _gbnf_conflicts(g: Grammar) -> tuple[str, ...]:
    why = gbnf_exactness(g)
    if why:
        return (f"not proven: {why}",)
    portable = portable_grammar(g)
    try:
        found = conflicts(portable, regular_rules(portable) - {portable.root}, LexView())
    except AnalysisBudgetExceeded:
        return ("not proven: the lexer analysis ran out of budget on this grammar",)
    return tuple(c.describe() for c in found)


def llguidance_reads_gbnf_exactly(g: Grammar) -> list[str]:
    """Why llguidance's GBNF reader (``grammar_from``, every regular rule a greedy terminal)
    might read the gbnf export differently; empty when the lexer analysis proves it exact —
    always, by construction: the tests and ``bench/export.py`` verify that it stays so."""
    return list(_gbnf_conflicts(g))


def gbnf_notes(g: Grammar) -> list[str]:
    """What a user of the gbnf export should know (cheap: only the cached view is asked)."""
    why = gbnf_exactness(g)
    if why:
        return [
            f"llguidance's GBNF reader is not proven to read this grammar exactly ({why}): "
            "for llguidance backends, send the lark export"
        ]
    return []


def gbnf_text(g: Grammar) -> str:
    """What every body carries: the gbnf export, which each server backend reads as GBNF and,
    being lexically exact by construction, as the same language (``lark`` is the alternative)."""
    return emit_gbnf_export(g)
