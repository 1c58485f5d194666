"""GBNF text in the spelling llama.cpp, XGrammar and llguidance's GBNF converter read alike.

The structure (one ``name ::= body`` line per rule, root first, the parentheses the tree needs)
is the canonical emitter's; only characters are spelled differently, for the reasons listed in
:mod:`gramwright.grammar.export.gbnf`. ``parse_gbnf`` reads the text back to the same grammar.
"""

from __future__ import annotations

from gramwright.grammar.gbnf import emit_rules
from gramwright.grammar.ir import CharClass, Grammar

__all__ = ["emit_portable"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HEX = frozenset("0123456789abcdefABCDEF")


def emit_portable(g: Grammar) -> str:
    return emit_rules(g, _char, _class)


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
