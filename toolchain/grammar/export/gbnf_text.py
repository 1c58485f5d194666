"""GBNF text in the spelling llama.cpp, XGrammar and llguidance's GBNF converter read alike.

The structure (one ``name ::= body`` line per rule, root first, the parentheses the tree needs)
is the canonical emitter's; only characters are spelled differently, for the reasons listed in
:mod:`gramwright.grammar.export.gbnf`. ``parse_gbnf`` reads the text back to the same grammar.
"""

from __future__ import annotations

from gramwright.grammar.gbnf import is_rule_name
from gramwright.grammar.ir import EMPTY, Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq

__all__ = ["emit_portable"]

_TOP, _ALT, _SEQ, _REP = range(4)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HEX = frozenset("0123456789abcdefABCDEF")


def emit_portable(g: Grammar) -> str:
    order = [g.root, *(n for n in g.rules if n != g.root)]
    for name in order:
        if not is_rule_name(name):
            raise ValueError(f"{name!r} is not a GBNF rule name")
    return "".join(f"{name} ::= {_emit(g.rules[name], _TOP)}\n" for name in order)


def _emit(expr: Expr, ctx: int) -> str:
    if isinstance(expr, Literal):
        text = '"' + "".join(_char(ch, '"\\') for ch in expr.text) + '"'
        return f"({text})" if ctx == _REP and not expr.text else text
    if isinstance(expr, CharClass):
        return _class(expr)
    if isinstance(expr, Ref):
        return expr.name
    if isinstance(expr, Seq | Alt) and len(expr.items) <= 1:
        return _emit(expr.items[0] if expr.items else EMPTY, ctx)
    if isinstance(expr, Seq):
        body = " ".join(_emit(i, _SEQ) for i in expr.items)
        return f"({body})" if ctx in (_SEQ, _REP) else body
    if isinstance(expr, Alt):
        body = " | ".join(_emit(i, _ALT) for i in expr.items)
        return f"({body})" if ctx != _TOP else body
    assert isinstance(expr, Repeat)
    body = _emit(expr.item, _REP) + _quantifier(expr.min, expr.max)
    return f"({body})" if ctx == _REP else body


def _quantifier(lo: int, hi: int | None) -> str:
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


def _char(ch: str, specials: str) -> str:
    cp = ord(ch)
    if ch in specials:
        return "\\" + ch
    if ch in _NAMED:
        return _NAMED[ch]
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02X}"
    if not ch.isprintable() and 0x1000 <= cp <= 0xFFFF:
        return f"\\u{cp:04X}"
    return ch  # printable, or unprintable where no escape survives every reader: raw UTF-8


def _class_member(cp: int) -> str:
    if cp == 0x2D:
        return "\\x2D"
    if cp == 0x5E:
        return "\\x5E"
    return _char(chr(cp), "[]\\")


def _class(cls: CharClass) -> str:
    if not cls.ranges:
        raise ValueError("an empty character class has no GBNF form")
    items = []
    for lo, hi in cls.ranges:
        text = _class_member(lo)
        if hi == lo + 1:
            text += _class_member(hi)
        elif hi > lo:
            text += "-" + _class_member(hi)
        items.append(text)

    # No \xHH may be followed by a hex digit (XGrammar reads it into the escape): members that
    # start with a hex digit go first, the (at most one) of them ending in \xHH last among them.
    def x_end(t: str) -> bool:
        return len(t) >= 4 and t[-4:-2] == "\\x"

    first = [t for t in items if t[0] in _HEX and not x_end(t)]
    middle = [t for t in items if t[0] in _HEX and x_end(t)]
    rest = [t for t in items if t[0] not in _HEX]
    return "[" + ("^" if cls.negated else "") + "".join(first + middle + rest) + "]"
