"""The ``lark`` target: the grammar as Lark text that llguidance and XGrammar read alike.

``start:`` is the root. Every IR rule becomes a Lark rule (lower case) or, where it is regular
and the lexer analysis proves it exact (:mod:`gramwright.grammar.export.lexemes`), a terminal
(upper case: llguidance compiles it to one regex and lexes it greedily). A regular rule that is
a lexeme in one place and must not be in another is written twice, as ``name`` and ``NAME``.
Literals stay whole unless the analysis splits them; classes are one-character regexes.

XGrammar has no lexer, so for it any of these spellings means the IR's language; llguidance
means it too exactly when the view has no conflict, which :func:`emit_lark` guarantees. The text
never contains ``::=`` (vLLM would read it as GBNF) and never uses a feature only one reader has.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from gramwright.grammar.export.errors import ExportRefused
from gramwright.grammar.export.gbnf import portable_base
from gramwright.grammar.export.lexemes import LexView, choose_view
from gramwright.grammar.export.text import lark_class, lark_literal, lark_names
from gramwright.grammar.ir import EMPTY, Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq, refs

__all__ = ["LarkExport", "emit_lark"]

_TOP, _ALT, _SEQ, _REP = range(4)


@dataclass(frozen=True)
class LarkExport:
    text: str
    terminals: list[str]  # rules (their gbnf-target names) written as terminals (NAME)
    rules: list[str]  # rules written as Lark rules (name), the root first
    split_literals: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # the demotions, said in words


def emit_lark(g: Grammar, *, header: str = "", target: str = "lark") -> LarkExport:
    g = portable_base(g)  # the gbnf target's names and bounds: one lexer analysis for all targets
    candidates, view = choose_view(g)
    if "::=" in header:
        raise ExportRefused(target, g.root, "the header would contain '::=' (vLLM would read GBNF)")
    names = lark_names(g)
    terminals = candidates - view.demoted
    writer = _Writer(g, names, terminals, view, target)
    rule_order, term_order = writer.needed()
    lines = [header] if header else []
    for name in rule_order:
        lines.append(f"{names[name]}: {writer.rule_body(g.rules[name])}")
    for name in term_order:
        lines.append(f"{names[name].upper()}: {writer.term_body(g.rules[name])}")
    text = "\n".join(lines) + "\n"
    if "::=" in text:  # the spellings below cannot produce it; the dialect depends on this
        raise ExportRefused(target, g.root, "the text would contain '::=' (vLLM would read GBNF)")
    notes = [f"rule {n!r} is written as a rule, not a greedy terminal" for n in sorted(view.demoted)]
    notes += [f"literal {t!r} is split into characters" for t in sorted(view.split)]
    return LarkExport(text, term_order, rule_order, sorted(view.split), notes)


class _Writer:
    def __init__(
        self, g: Grammar, names: dict[str, str], terminals: AbstractSet[str], view: LexView, target: str
    ) -> None:
        self.g = g
        self.names = names
        self.terminals = terminals
        self.view = view
        self.target = target

    def needed(self) -> tuple[list[str], list[str]]:
        """Rules reached in rule contexts (root first), then terminals, in the grammar's order."""
        as_rule, as_term = {self.g.root}, set[str]()
        todo = [self.g.root]
        while todo:
            for ref in refs(self.g.rules[todo.pop()]):
                if ref in self.terminals:
                    as_term.add(ref)
                elif ref not in as_rule:
                    as_rule.add(ref)
                    todo.append(ref)
        todo = list(as_term)
        while todo:
            for ref in refs(self.g.rules[todo.pop()]):
                if ref not in as_term:
                    as_term.add(ref)
                    todo.append(ref)
        order = [self.g.root, *(n for n in self.g.rules if n != self.g.root)]
        return [n for n in order if n in as_rule], [n for n in order if n in as_term]

    def rule_body(self, expr: Expr) -> str:
        return self._emit(expr, _TOP, in_term=False)

    def term_body(self, expr: Expr) -> str:
        return self._emit(expr, _TOP, in_term=True)

    def _emit(self, expr: Expr, ctx: int, in_term: bool) -> str:
        if isinstance(expr, Literal):
            if not expr.text:
                return '""'
            if not in_term and expr.text in self.view.split:
                body = " ".join(lark_literal(ch) for ch in expr.text)
                return f"({body})" if ctx == _REP else body
            return lark_literal(expr.text)
        if isinstance(expr, CharClass):
            if not expr.effective_ranges():
                raise ExportRefused(self.target, self.g.root, "an empty character class matches nothing")
            return lark_class(expr)
        if isinstance(expr, Ref):
            name = self.names[expr.name]
            return name.upper() if in_term or expr.name in self.terminals else name
        if isinstance(expr, Seq | Alt) and len(expr.items) <= 1:
            return self._emit(expr.items[0] if expr.items else EMPTY, ctx, in_term)
        if isinstance(expr, Seq):
            body = " ".join(self._emit(i, _SEQ, in_term) for i in expr.items)
            return f"({body})" if ctx in (_SEQ, _REP) else body
        if isinstance(expr, Alt):
            body = " | ".join(self._emit(i, _ALT, in_term) for i in expr.items)
            return f"({body})" if ctx != _TOP else body
        assert isinstance(expr, Repeat)
        body = self._emit(expr.item, _REP, in_term) + _quantifier(expr.min, expr.max)
        return f"({body})" if ctx == _REP else body


def _quantifier(lo: int, hi: int | None) -> str:
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
