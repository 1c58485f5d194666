r"""The ``gbnf`` target: canonical GBNF in the subset llama.cpp, XGrammar and llguidance all read.

The canonical emitter (:func:`gramwright.grammar.gbnf.emit_gbnf`) already writes only what
llama.cpp and XGrammar's EBNF parser read alike (no ``.``, no greedy ``\xHH``). What is left is
said by the readers' own rules, and each is met by a rewrite that keeps the language:

* the start rule is ``root`` (llama.cpp, XGrammar and llguidance's converter all start there);
* names are lower case ``[a-z][a-z0-9-]*``: XGrammar rejects a leading digit and the names
  ``true``/``false``; llguidance's GBNF reader folds ``fooBar`` and ``foo-bar`` alike to
  ``foo_bar`` (two rules, one name: it refuses the grammar) and renames ``root`` to ``start``
  (so no other rule may be called ``start``);
* repetition bounds stay at or below 2000: llama.cpp reads ``{m,n}`` with ``n > 2000`` as
  unbounded and refuses ``m > 2000``; larger bounds are rewritten with nested repetitions;
* llguidance's converter (1.9.1) drops the parentheses of a repetition of a repetition
  (``("a"{1,4})?`` becomes ``"a"{1,4}?``, a Lark syntax error), so the inner one is written
  ``("a"{1,4} "")``; it rewrites ``\uHHHH`` without leading zeros (``\u001F`` → ``\u1F``, which
  its regex engine refuses), does not know ``\-`` or ``\^``, and drops raw control characters
  from strings. So characters are spelled: ``\n \r \t \" \\ \[ \]`` by name, other
  controls and DEL as ``\xHH``, ``-`` and ``^`` in classes as ``\x2D``/``\x5E``, unprintable
  characters from U+1000 to U+FFFF as ``\uHHHH``, everything else as itself (UTF-8);
* llguidance lexes greedily (see :mod:`gramwright.grammar.export.lexemes`): where that would
  change the language, a regular rule is inlined where it is a lexeme and a literal is written
  one character at a time (``"2" "5"``), so its reading is exact as well;
* llguidance's Lark parser refuses text nested more than about 25 levels deep (a schema's
  key-exclusion tries nest one level per character): deep parts move into helper rules
  (:mod:`gramwright.grammar.export.depth`);
* XGrammar reads ``\x`` greedily (``"\x01b"`` is U+001B there), so a ``\xHH`` is never followed
  by a hex digit: a literal is cut there (``"\x01" "b"``) and a class lists its members so that
  the ones ending in ``\xHH`` come where no hex digit follows.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from gramwright.grammar.export.depth import flatten_deep, limit_depth
from gramwright.grammar.export.gbnf_text import emit_portable
from gramwright.grammar.export.lexemes import choose_view
from gramwright.grammar.export.text import export_names
from gramwright.grammar.ir import (
    EMPTY,
    Alt,
    CharClass,
    Expr,
    Grammar,
    Literal,
    Ref,
    Repeat,
    Seq,
    alt,
    refs,
    repeat,
    seq,
    walk,
)

__all__ = [
    "LLAMA_CPP_MAX_REPEAT",
    "bounded_repeat",
    "emit_gbnf_export",
    "gbnf_exactness",
    "portable_base",
    "portable_grammar",
]

LLAMA_CPP_MAX_REPEAT = 2000
_CHUNK = 1000
_RESERVED = {"start", "true", "false"}


def emit_gbnf_export(g: Grammar) -> str:
    return emit_portable(portable_grammar(g))


@lru_cache(maxsize=16)
def portable_base(g: Grammar) -> Grammar:
    """The same language with portable names, bounds and spellings (the root renamed ``root``).
    The Lark targets are written from it too, so one lexer analysis serves every target."""
    names = _portable_names(g)
    rules = {names[n]: _rewrite(body, names) for n, body in g.rules.items()}
    return limit_depth(Grammar(rules, "root"))


@lru_cache(maxsize=16)
def portable_grammar(g: Grammar) -> Grammar:
    """:func:`portable_base`, made lexically exact for llguidance's greedy reading."""
    return _lexically_exact(portable_base(g))


def _lexically_exact(g: Grammar) -> Grammar:
    """Apply the exact lexical view to the GBNF itself.

    llguidance's GBNF reader makes every regular rule a greedy terminal and every literal of
    the other rules a lexeme. Where the lexer analysis demotes a terminal, its body is inlined
    into the rules that use it as a lexeme (llguidance then lexes its pieces); where it splits a
    literal, the literal is written one character at a time. Both keep the language for every
    reader; the rules used inside other terminals stay as they are.
    """
    candidates, view = choose_view(g)
    if view.fallback or (not view.demoted and not view.split):
        # The all-rules view would inline every regular rule (an unbounded text): the GBNF is
        # left as it is, and llguidance's reading of it is not proven (the note says so).
        return g

    def in_rules(expr: Expr) -> Expr:
        if isinstance(expr, Ref):
            return in_rules(g.rules[expr.name]) if expr.name in view.demoted else expr
        if isinstance(expr, Literal):
            if expr.text in view.split:
                return Seq(tuple(Literal(ch) for ch in expr.text))
            return expr
        if isinstance(expr, Seq):
            return Seq(tuple(in_rules(i) for i in expr.items))
        if isinstance(expr, Alt):
            return Alt(tuple(in_rules(i) for i in expr.items))
        if isinstance(expr, Repeat):
            return Repeat(in_rules(expr.item), expr.min, expr.max)
        return expr

    # Inlining brings the depth back that limit_depth took away: flatten what is too deep.
    rules = {n: body if n in candidates else flatten_deep(in_rules(body)) for n, body in g.rules.items()}
    reach = {g.root}
    todo = [g.root]
    while todo:
        for r in refs(rules[todo.pop()]):
            if r not in reach:
                reach.add(r)
                todo.append(r)
    out = Grammar({n: b for n, b in rules.items() if n in reach}, g.root)
    if _size(out) > max(MAX_GROWTH * _size(g), 20_000):
        # Inlining a demoted rule at every use can multiply the text (one schema: 2.7k nodes
        # to 200k, past llguidance's 65k-symbol limit). Then the GBNF is left as it is.
        return g
    return out


MAX_GROWTH = 10


def _size(g: Grammar) -> int:
    return sum(1 for body in g.rules.values() for _ in walk(body))


def gbnf_exactness(g: Grammar) -> str:
    """Empty when llguidance's reading of the gbnf export is proven exact, else why not."""
    base = portable_base(g)
    _, view = choose_view(base)
    if view.fallback:
        return "the lexer analysis ran out of budget on this grammar"
    if (view.demoted or view.split) and portable_grammar(g) is base:
        return f"making it exact would multiply its size by more than {MAX_GROWTH}"
    return ""


def _portable_names(g: Grammar) -> dict[str, str]:
    # '-' and '_' are one character to llguidance's converter; GBNF names have no '_'.
    return export_names(g, "root", "-", _RESERVED)


def _rewrite(expr: Expr, names: dict[str, str]) -> Expr:
    if isinstance(expr, Ref):
        return Ref(names[expr.name])
    if isinstance(expr, CharClass):
        return expr
    if isinstance(expr, Literal):
        return _cut_before_hex(expr)
    if isinstance(expr, Seq):
        return Seq(tuple(_rewrite(i, names) for i in expr.items))
    if isinstance(expr, Alt):
        return Alt(tuple(_rewrite(i, names) for i in expr.items))
    assert isinstance(expr, Repeat)
    item = _rewrite(expr.item, names)
    if isinstance(item, Repeat):
        item = Seq((item, EMPTY))  # keeps its parentheses through llguidance's converter
    return bounded_repeat(item, expr.min, expr.max)


_HEX = frozenset("0123456789abcdefABCDEF")


def _is_x_escaped(ch: str) -> bool:
    return (ord(ch) < 0x20 and ch not in "\n\r\t") or ord(ch) == 0x7F


def _cut_before_hex(lit: Literal) -> Expr:
    r"""``"\x01b"`` as ``"\x01" "b"``: the same string, read alike by XGrammar's greedy ``\x``."""
    text = lit.text
    cuts = [i + 1 for i in range(len(text) - 1) if _is_x_escaped(text[i]) and text[i + 1] in _HEX]
    if not cuts:
        return lit
    bounds = [0, *cuts, len(text)]
    return Seq(tuple(Literal(text[a:b]) for a, b in itertools.pairwise(bounds)))


def bounded_repeat(item: Expr, lo: int, hi: int | None) -> Expr:
    """``item{lo,hi}`` with every bound at most :data:`LLAMA_CPP_MAX_REPEAT`, same language.

    ``x{m,n}`` is ``x{m} x{0,n-m}``; ``x{k}`` is ``(x{1000}){k//1000} x{k%1000}``; and
    ``x{0,n}`` is ``(x{1000}){0,q-1} x{0,999} | (x{1000}){q} x{0,r}`` (``n = 1000q + r``):
    every count has exactly one split, so the rewrite adds no ambiguity.
    """
    limit = LLAMA_CPP_MAX_REPEAT
    if lo <= limit and (hi is None or hi <= limit):
        return repeat(item, lo, hi)
    if lo > 0:
        rest = repeat(item, 0, None) if hi is None else bounded_repeat(item, 0, hi - lo)
        return seq(_exactly(item, lo), rest)
    assert hi is not None
    q, r = divmod(hi, _CHUNK)
    chunk = repeat(item, _CHUNK, _CHUNK)
    below = seq(bounded_repeat(chunk, 0, q - 1), repeat(item, 0, _CHUNK - 1))
    top = seq(bounded_repeat(chunk, q, q), repeat(item, 0, r) if r else EMPTY)
    return alt(below, top)


def _exactly(item: Expr, k: int) -> Expr:
    if k <= LLAMA_CPP_MAX_REPEAT:
        return repeat(item, k, k)
    q, r = divmod(k, _CHUNK)
    return seq(bounded_repeat(repeat(item, _CHUNK, _CHUNK), q, q), repeat(item, r, r) if r else EMPTY)
