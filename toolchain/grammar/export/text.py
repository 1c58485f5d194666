"""Spelling shared by the Lark targets: names, string literals and one-character classes.

What both llguidance and XGrammar's Lark reader accept was probed on llguidance 1.9.1 and
xgrammar 0.2.9 (``tests/grammar/export/test_lark.py`` pins it):

* names: rules ``[a-z][a-z0-9_]*``, terminals the same in upper case (llguidance rejects mixed
  case such as ``Ab``); our GBNF names (``[a-zA-Z0-9-]+``) are folded and de-duplicated;
* string literals: ``\\" \\\\ \\n \\r \\t``, ``\\uHHHH`` for other BMP controls and for ``:`` (so
  that no ``::=`` ever appears — vLLM reads a grammar with ``::=`` on any line as GBNF), every
  other character as itself; neither reader takes ``\\xHH`` or ``\\UHHHHHHHH`` in a string;
* classes ``/[...]/``: ASCII letters and digits as themselves, everything else ASCII or
  unprintable as ``\\uHHHH``/``\\UHHHHHHHH`` (Rust's regex and XGrammar's both read those; XGrammar
  warns on ``\\&`` and does not know ``\\x{...}``), printable non-ASCII as itself.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from gramwright.grammar.ir import CharClass, Grammar

__all__ = ["export_names", "lark_class", "lark_literal", "lark_names"]

_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def lark_names(g: Grammar) -> dict[str, str]:
    """IR rule name → a lower-case Lark base name; the root is ``start``."""
    return export_names(g, "start", "_")


def export_names(g: Grammar, root: str, sep: str, reserved: AbstractSet[str] = frozenset()) -> dict[str, str]:
    """IR rule name → a distinct lower-case name of ``[a-z0-9{sep}]`` starting with a letter
    (``r{sep}`` prefixed where it would not), never one of ``reserved``; the root is ``root``."""
    out = {g.root: root}
    used = {root}
    for name in g.rules:
        if name == g.root:
            continue
        base = re.sub(f"[^a-z0-9{sep}]", sep, name.lower())
        if not base[:1].isalpha():
            base = f"r{sep}" + base
        candidate, n = base, 2
        while candidate in used or candidate in reserved:
            candidate, n = f"{base}{sep}{n}", n + 1
        used.add(candidate)
        out[name] = candidate
    return out


def lark_literal(text: str) -> str:
    parts = []
    for i, ch in enumerate(text):
        if ch == ":" and text.startswith("::=", i):
            parts.append("\\u003A")  # vLLM takes any text with ::= in it for GBNF
        elif ch in _NAMED:
            parts.append(_NAMED[ch])
        elif ch.isprintable() or ord(ch) > 0xFFFF:
            parts.append(ch)  # raw: no \U escape exists in either reader's strings
        else:
            parts.append(f"\\u{ord(ch):04X}")
    return '"' + "".join(parts) + '"'


def _class_char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    if not ch.isascii() and ch.isprintable():
        return ch
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"


def lark_class(cls: CharClass) -> str:
    """A one-character regex. Negation is written out as positive ranges, so the two regex
    engines never have to agree on what a negated class contains."""
    parts = []
    for lo, hi in cls.effective_ranges():
        # Surrogates have no UTF-8 form and are no scalar values: Rust's regex rejects them as
        # range ends, so the ends are moved off them (the class means the same bytes).
        lo = 0xE000 if 0xD800 <= lo <= 0xDFFF else lo
        hi = 0xD7FF if 0xD800 <= hi <= 0xDFFF else hi
        if hi < lo:
            continue
        parts.append(_class_char(lo))
        if hi == lo + 1:
            parts.append(_class_char(hi))
        elif hi > lo:
            parts.append("-" + _class_char(hi))
    return "/[" + "".join(parts) + "]/"
