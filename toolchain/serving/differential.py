"""Differential acceptance: our recognizer against each engine loading each export of a grammar.

A *case* is one document (bytes, as our grammar writes it) judged by the recognizer and by every
(export, engine) pair that serving uses: ``gbnf`` in XGrammar and llguidance, ``lark`` in
llguidance and XGrammar, ``llamacpp-lark`` in llguidance. A disagreement carries its cause when
one is known: llguidance's GBNF reader makes every regular rule a greedy terminal, and
:func:`gramwright.grammar.export.requests.llguidance_reads_gbnf_exactly` names the lexemes where
that may change the language. Anything else is reported as unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gramwright.grammar.export import DIALECTS, export_grammar
from gramwright.grammar.export.requests import llguidance_reads_gbnf_exactly
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import Recognizer
from gramwright.serving.engines import EngineGrammar, EngineLoadError, load_in_engine

__all__ = ["PAIRS", "Case", "LoadedExports", "load_exports"]

Pair = tuple[str, str]  # (export target, engine)
PAIRS: tuple[Pair, ...] = (
    ("gbnf", "xgrammar"),
    ("gbnf", "llguidance"),
    ("lark", "xgrammar"),
    ("lark", "llguidance"),
    ("llamacpp-lark", "llguidance"),
)


@dataclass
class Case:
    document: bytes
    ours: bool
    theirs: dict[Pair, bool]

    def disagreeing(self) -> list[Pair]:
        return [pair for pair, verdict in self.theirs.items() if verdict != self.ours]


@dataclass
class LoadedExports:
    grammar: Grammar
    texts: dict[str, str]
    engines: dict[Pair, EngineGrammar] = field(default_factory=dict)
    load_errors: dict[Pair, str] = field(default_factory=dict)

    def judge(self, rec: Recognizer, document: bytes) -> Case:
        rec.reset()
        ours = rec.try_feed(document) and rec.is_accepting()
        rec.reset()
        theirs = {pair: eng.check(document).accepted for pair, eng in self.engines.items()}
        return Case(document, ours, theirs)

    def cause(self, pair: Pair, case: Case) -> str:
        if pair[1] == "llguidance":
            # the lexer analysis again, on what llguidance reads (asked only on a disagreement)
            conflicts = llguidance_reads_gbnf_exactly(self.grammar) if pair[0] == "gbnf" else []
            if conflicts:
                return "llguidance lexes regular rules greedily: " + "; ".join(conflicts)
        side = "rejects" if case.ours else "accepts"
        return f"unexplained: {pair[1]} {side} what the recognizer {'accepts' if case.ours else 'rejects'}"


def load_exports(g: Grammar, pairs: tuple[Pair, ...] = PAIRS) -> LoadedExports:
    """Every text export of ``g`` loaded in every engine of ``pairs`` (failures recorded)."""
    targets = dict.fromkeys(t for t, _ in pairs)
    texts = {t: export_grammar(g, t).text for t in targets}
    out = LoadedExports(g, texts)
    for target, engine in pairs:
        try:
            out.engines[(target, engine)] = load_in_engine(engine, DIALECTS[target], texts[target])
        except EngineLoadError as exc:
            out.load_errors[(target, engine)] = exc.one_line()
    return out
