"""Tool-turn and reasoning exports loaded in the engines that read them, judged against ours.

* a ``structural_tag`` (the ``vllm-request``/``sglang-request`` bodies) through XGrammar's
  structural-tag compiler (``Grammar.from_structural_tag``), as vLLM and SGLang compile it;
* a llama.cpp ``grammar`` through the GBNF readers (XGrammar's EBNF, llguidance's
  ``grammar_from``) with llama-server's lazy semantics: text before the first trigger word is
  free, the grammar applies from the trigger to the end.

Verdicts are about the language (a tokenizer of the 256 single bytes, as in
:mod:`gramwright.serving.engines`); :class:`TurnExports` judges one document by every loaded
export and by our recognizer over :func:`gramwright.tools.export.turn_grammar`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gramwright.grammar.ir import Grammar
from gramwright.reasoning import Reasoning
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.serving.differential import Case, Pair
from gramwright.serving.engines import EngineGrammar, EngineLoadError, _import, load_in_engine
from gramwright.tools.export import TOOL_TARGETS, export_turn, turn_grammar
from gramwright.tools.grammar import ToolGrammar

__all__ = ["StructuralTagGrammar", "TurnExports", "load_turn_exports"]


class StructuralTagGrammar:
    """A ``structural_tag`` response format compiled by XGrammar's structural-tag compiler."""

    def __init__(self, tag: dict[str, Any]) -> None:
        xg = _import("xgrammar")
        try:
            grammar = xg.Grammar.from_structural_tag(json.dumps(tag))
            compiler = xg.GrammarCompiler(xg.TokenizerInfo([]), cache_enabled=False)
            self._compiled = compiler.compile_grammar(grammar)
        except (RuntimeError, ValueError, TypeError) as exc:
            raise EngineLoadError(f"xgrammar did not load the structural tag: {exc}") from exc
        self._xg = xg

    def accepts(self, data: bytes) -> bool:
        matcher = self._xg.GrammarMatcher(self._compiled, terminate_without_stop_token=True)
        return bool(matcher.accept_string(data)) and bool(matcher.is_terminated())


class LazyGrammar:
    """A llama.cpp body's ``grammar`` in one GBNF reader, lazy when the body says so."""

    def __init__(self, body: dict[str, Any], engine: str) -> None:
        self.grammar: EngineGrammar = load_in_engine(engine, "gbnf", body["grammar"])
        self.lazy = bool(body.get("grammar_lazy"))
        self.triggers = [t["value"].encode() for t in body.get("grammar_triggers", [])]

    def accepts(self, data: bytes) -> bool:
        if self.lazy:
            found = [data.find(t) for t in self.triggers if t in data]
            if not found:
                return True  # never triggered: llama-server leaves the text free
            data = data[min(found) :]
        return self.grammar.check(data).accepted


@dataclass
class TurnExports:
    grammar: Grammar  # ours: the whole turn
    bodies: dict[str, dict[str, Any]]
    loaded: dict[Pair, StructuralTagGrammar | LazyGrammar] = field(default_factory=dict)
    load_errors: dict[Pair, str] = field(default_factory=dict)
    _rec: Recognizer | None = field(default=None, repr=False)

    def judge(self, document: bytes) -> Case:
        if self._rec is None:
            self._rec = Recognizer(compile_grammar(self.grammar))
        rec = self._rec
        rec.reset()
        ours = rec.try_feed(document) and rec.is_accepting()
        rec.reset()
        return Case(document, ours, {pair: g.accepts(document) for pair, g in self.loaded.items()})


def load_turn_exports(
    tools: ToolGrammar | None = None, reasoning: Reasoning | None = None, output: Grammar | None = None
) -> TurnExports:
    """Every target's body for the turn, each loaded in the engines that read it (failures kept)."""
    bodies = {t: export_turn(t, tools=tools, reasoning=reasoning, output=output).body for t in TOOL_TARGETS}
    out = TurnExports(turn_grammar(tools, reasoning, output), bodies)
    for target in ("vllm-request", "sglang-request"):
        pair = (target, "xgrammar")
        try:
            out.loaded[pair] = StructuralTagGrammar(bodies[target]["response_format"])
        except EngineLoadError as exc:
            out.load_errors[pair] = exc.one_line()
    for engine in ("xgrammar", "llguidance"):
        pair = ("llamacpp-request", engine)
        try:
            out.loaded[pair] = LazyGrammar(bodies["llamacpp-request"]["body"], engine)
        except EngineLoadError as exc:
            out.load_errors[pair] = exc.one_line()
    return out
