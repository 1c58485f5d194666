"""String grammars: length bounds, ``pattern``, ``format``, excluded words.

Content is built over decoded code points and encoded as JSON text by :mod:`.jsontext`. Exact
combinations: length bounds alone (free string, all escapes); one pattern or one format alone;
words excluded by ``not`` alone. When several content constraints meet (pattern + format, pattern
+ lengths, two patterns) the first pattern (else format) is kept and the others are reported as
approximated — a superset, validation checks the rest.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gramwright.grammar.ir import (
    EMPTY,
    Alt,
    CharClass,
    Expr,
    Literal,
    Ref,
    Seq,
    alt,
    char_class,
    literal,
    repeat,
    seq,
)
from gramwright.schema.compiler.collector import Collector
from gramwright.schema.compiler.jsontext import QUOTE

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler


@functools.lru_cache(maxsize=4096)
def _translate(pattern: str, max_repeat: int) -> tuple[Expr | None, bool, str]:
    """(content, exact, note) of a pattern; memoised: schemas repeat their patterns a lot."""
    from gramwright.regex import RegexUnsupported, regex_to_expr

    try:
        res = regex_to_expr(pattern, search=True, max_repeat=max_repeat, widen_lookaround=True)
    except RegexUnsupported as exc:
        return None, False, f"regex not expressible: {exc}"
    except RecursionError:
        return None, False, "regex too deeply nested"
    return res.expr, res.exact, "; ".join(res.notes) or "regex widened"


def _content_of_pattern(c: Compiler, pattern: str, ptr: str) -> Expr | None:
    """The pattern's content expression (None when it could not be used: reported)."""
    expr, exact, note = _translate(pattern, c.options.max_repeat)
    if expr is None:
        c.note(ptr, "discarded", note)
    elif not exact:
        c.note(ptr, "approximated", note)
    return expr


@functools.lru_cache(maxsize=256)
def _format(name: str) -> tuple[Expr | None, bool, str]:
    from gramwright.schema.formats import format_expr

    res = format_expr(name)
    if res is None:
        return None, False, f"unknown format {name!r}"
    return res.expr, res.exact, res.reason or f"format {name!r} widened"


def _content_of_format(c: Compiler, name: str, ptr: str) -> Expr | None:
    expr, exact, note = _format(name)
    if expr is None:
        c.note(ptr, "discarded", note)
    elif not exact:
        c.note(ptr, "approximated", note)
    return expr


def _is_nothing(expr: Expr) -> bool:
    return isinstance(expr, CharClass) and not expr.ranges and not expr.negated


def string_expr(c: Compiler, col: Collector) -> Expr | None:
    lo, hi = col.min_length, col.max_length
    if hi is not None and lo > hi:
        return None
    contents: list[tuple[Expr, str]] = []
    for pattern, ptr in col.patterns:
        expr = _content_of_pattern(c, pattern, ptr)
        if expr is not None:
            if _is_nothing(expr):
                return None
            contents.append((expr, ptr))
    for name, ptr in col.formats:
        expr = _content_of_format(c, name, ptr)
        if expr is not None:
            contents.append((expr, ptr))
    if contents:
        for _, ptr in contents[1:]:
            c.note(ptr, "approximated", "only one pattern/format per string is enforced")
        if lo > 0 or hi is not None:
            for ptr in col.length_ptrs:
                c.note(ptr, "approximated", "length bounds are not combined with a pattern/format")
        for ptr in col.excluded_string_ptrs:
            c.note(ptr, "approximated", "excluded strings are not combined with a pattern/format")
        return seq(QUOTE, c.encoder.encode(contents[0][0]), QUOTE)
    if col.excluded_strings:
        if lo == 0 and hi is None:
            return seq(QUOTE, _all_but(c, col.excluded_strings), QUOTE)
        for ptr in col.excluded_string_ptrs:
            c.note(ptr, "approximated", "excluded strings are not combined with length bounds")
    return seq(QUOTE, bounded_chars(c, lo, hi, col.length_ptrs), QUOTE)


def bounded_chars(c: Compiler, lo: int, hi: int | None, ptrs: list[str]) -> Expr:
    """``lo..hi`` free string characters, widened past ``max_repeat`` (reported)."""
    cap = c.options.max_repeat
    if lo > cap or (hi is not None and hi > cap):
        for ptr in ptrs:
            c.note(ptr, "approximated", f"length bounds above {cap} are not enforced")
        if hi is not None and hi > cap:
            hi = None
        lo = min(lo, cap)
    return repeat(Ref("char"), lo, hi)


def _all_but(c: Compiler, words: list[str]) -> Expr:
    """Canonical string content that is none of ``words`` (the complement of a trie).

    Past the point where the text leaves the trie anything may follow (``chars``, all escapes):
    the decoded string already differs from every word. The character that leaves the trie is
    written canonically, so an escape cannot spell a word's next character.
    """
    trie: dict[str, object] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})  # type: ignore[assignment]
        node[""] = True
    return _node(c, trie)


_SPECIAL = frozenset(chr(i) for i in range(0x20)) | {'"', "\\"}


def _node(c: Compiler, node: dict[str, object]) -> Expr:
    # Built with the node constructors directly: the options are distinct by construction, and
    # the smart constructors would re-hash the whole subtree at every level.
    kids = sorted(k for k in node if k)
    options: list[Expr] = []
    if "" not in node:
        options.append(EMPTY)
    for ch in kids:
        child = node[ch]
        assert isinstance(child, dict)
        text = Literal(ch) if ch not in _SPECIAL else c.encoder.encode(literal(ch))
        options.append(Seq((text, _node(c, child))))
    options.append(_leave(c, tuple(kids)))
    return Alt(tuple(options)) if len(options) > 1 else options[0]


def _leave(c: Compiler, kids: tuple[str, ...]) -> Expr:
    """A character other than ``kids``, then anything: one shared rule per set of kids (a big
    trie repeats the same few sets, and a near-complete class is many UTF-8 byte ranges)."""
    key = ("leave", *kids)
    rule = c.key_rules.get(key)
    if rule is None:
        if _SPECIAL.isdisjoint(kids) and all(ord(ch) < 0x80 for ch in kids):
            # the ASCII characters left, any wider character or an escape. The wider ones are one
            # shared rule: a key leaving a name there has the same masks in every schema (the
            # engine's store keeps them), where a class per set of names made every first UTF-8
            # byte a walk of its own
            first: Expr = Ref("char")
            if kids:
                left = sorted(set(range(0x20, 0x80)) - {0x22, 0x5C} - {ord(ch) for ch in kids})
                first = alt(char_class((b, b) for b in left), _wide(c), Ref("esc"))
        elif _SPECIAL.isdisjoint(kids):
            excluded = [(0, 0x1F), (0x22, 0x22), (0x5C, 0x5C), *((ord(ch), ord(ch)) for ch in kids)]
            first = alt(char_class(excluded, negated=True), Ref("esc"))
        else:
            first = c.encoder.encode_class(char_class(((ord(ch), ord(ch)) for ch in kids), negated=True))
        rule = c.key_rules[key] = c.helper_rule(seq(first, Ref("chars")), "/other-than")
    return rule


def _wide(c: Compiler) -> Ref:
    """Any character past ASCII: one rule per grammar, shared by every key's ``other-than``."""
    rule = c.key_rules.get(("wide",))
    if rule is None:
        rule = c.key_rules[("wide",)] = c.helper_rule(char_class([(0, 0x7F)], negated=True), "/wide-char")
    return rule
