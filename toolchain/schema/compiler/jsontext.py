"""JSON text pieces: shared rules (any value, strings, numbers), whitespace, string encoding.

String content is specified over *decoded* code points (patterns, formats, lengths, enum words).
Two encodings map content to JSON text:

* free strings (no content constraint beyond length) accept every RFC 8259 escape — ``\\"``,
  ``\\\\``, ``\\/``, ``\\b\\f\\n\\r\\t``, ``\\uXXXX`` in either case, surrogate pairs — through the shared
  ``char`` rule; each ``char`` decodes to exactly one code point, so ``{m,n}`` of them is an exact
  length bound. Lone surrogate escapes are rejected (they are not Unicode text).
* constrained content (pattern, format, enum words, excluded keys) uses the *canonical* encoding,
  the one ``json.dumps(..., ensure_ascii=False)`` writes: only ``"``, ``\\`` and control characters
  are escaped (``\\b\\f\\n\\r\\t``, else ``\\u00xx`` in lower case). The encoding is a prefix-free
  code applied character by character, so the encoded language is exactly the image of the
  content language — and an excluded key cannot sneak in through ``\\u`` escapes.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from gramwright.grammar.ir import (
    MAX_CODE_POINT,
    Alt,
    CharClass,
    Expr,
    Literal,
    Ref,
    Repeat,
    Seq,
    alt,
    char_class,
    literal,
    repeat,
    seq,
)

QUOTE = literal('"')
DIGIT = char_class([(0x30, 0x39)])
DIGIT19 = char_class([(0x31, 0x39)])
_HEX = char_class([(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)])

_SHORT_ESCAPES = {0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
_SURROGATES = (0xD800, 0xDFFF)
# Code points a canonical string writes as themselves.
_RAW = char_class([(0x20, 0x21), (0x23, 0x5B), (0x5D, 0xD7FF), (0xE000, MAX_CODE_POINT)])


def _ci(chars: str) -> CharClass:
    """A class of hex digits in either case."""
    points = {ord(c) for c in chars} | {ord(c.upper()) for c in chars} | {ord(c.lower()) for c in chars}
    return char_class((p, p) for p in points)


@functools.lru_cache(maxsize=4)
def shared_rules(ws: Expr) -> dict[str, Expr]:
    """The rules every schema grammar may use; only the reachable ones are kept in the end.

    Memoised (the IR is immutable): callers must copy the dict before changing it.
    """
    hex4_plain = alt(
        seq(_ci("0123456789abcef"), repeat(_HEX, 3, 3)), seq(_ci("d"), _ci("01234567"), _HEX, _HEX)
    )
    high = seq(_ci("d"), _ci("89ab"), _HEX, _HEX)
    low = seq(_ci("d"), _ci("cdef"), _HEX, _HEX)
    escape = seq(
        literal("\\"),
        alt(
            char_class(
                [
                    (0x22, 0x22),
                    (0x2F, 0x2F),
                    (0x5C, 0x5C),
                    (0x62, 0x62),
                    (0x66, 0x66),
                    (0x6E, 0x6E),
                    (0x72, 0x72),
                    (0x74, 0x74),
                ]
            ),
            seq(literal("u"), alt(hex4_plain, seq(high, literal("\\u"), low))),
        ),
    )
    comma = seq(ws, literal(","), ws)
    member = seq(Ref("string"), ws, literal(":"), ws, Ref("value"))
    return {
        "value": alt(
            Ref("object"),
            Ref("array"),
            Ref("string"),
            Ref("number"),
            literal("true"),
            literal("false"),
            literal("null"),
        ),
        "object": seq(
            literal("{"), ws, repeat(seq(member, repeat(seq(comma, member), 0, None)), 0, 1), ws, literal("}")
        ),
        "array": seq(
            literal("["),
            ws,
            repeat(seq(Ref("value"), repeat(seq(comma, Ref("value")), 0, None)), 0, 1),
            ws,
            literal("]"),
        ),
        "string": seq(QUOTE, repeat(Ref("char"), 0, None), QUOTE),
        "chars": repeat(Ref("char"), 0, None),
        # the canonical escapes: what json.dumps writes for '"', '\\' and control characters
        "esc": seq(
            literal("\\"),
            alt(
                char_class(
                    [
                        (0x22, 0x22),
                        (0x5C, 0x5C),
                        (0x62, 0x62),
                        (0x66, 0x66),
                        (0x6E, 0x6E),
                        (0x72, 0x72),
                        (0x74, 0x74),
                    ]
                ),
                seq(
                    literal("u00"),
                    alt(
                        seq(literal("0"), char_class([(0x30, 0x37), (0x62, 0x62), (0x65, 0x66)])),
                        seq(literal("1"), char_class([(0x30, 0x39), (0x61, 0x66)])),
                    ),
                ),
            ),
        ),
        "char": alt(char_class([(0x22, 0x22), (0x5C, 0x5C), (0x00, 0x1F)], negated=True), escape),
        "number": seq(repeat(literal("-"), 0, 1), int_part(), repeat(FRACTION, 0, 1), repeat(EXPONENT, 0, 1)),
        "integer": seq(repeat(literal("-"), 0, 1), int_part()),
    }


def int_part() -> Expr:
    return alt(literal("0"), seq(DIGIT19, repeat(DIGIT, 0, None)))


FRACTION = seq(literal("."), repeat(DIGIT, 1, None))
EXPONENT = seq(
    char_class([(0x45, 0x45), (0x65, 0x65)]),
    repeat(char_class([(0x2B, 0x2B), (0x2D, 0x2D)]), 0, 1),
    repeat(DIGIT, 1, None),
)


def whitespace_rule(max_blanks: int) -> Expr:
    """Bounded whitespace for the flexible option: at most one newline, then ``max_blanks`` blanks."""
    return seq(repeat(literal("\n"), 0, 1), repeat(char_class([(0x20, 0x20), (0x09, 0x09)]), 0, max_blanks))


def canonical_json(value: Any) -> str:
    """The canonical text of a JSON value (see :mod:`gramwright.schema.canonical`)."""
    from gramwright.schema.canonical import dumps

    return dumps(value)


def string_literal(text: str) -> Literal:
    """A JSON string literal (quotes included) in canonical encoding."""
    return literal(json.dumps(text, ensure_ascii=False))


def is_any_char(cc: CharClass) -> bool:
    """True when the class admits every encodable code point."""
    ranges = cc.effective_ranges()
    covered = [(lo, hi) for lo, hi in ranges]
    want = [(0, _SURROGATES[0] - 1), (_SURROGATES[1] + 1, MAX_CODE_POINT)]
    clipped: list[tuple[int, int]] = []
    for lo, hi in covered:
        for wlo, whi in want:
            a, b = max(lo, wlo), min(hi, whi)
            if a <= b:
                clipped.append((a, b))
    return char_class(clipped).ranges == tuple(want)


class ContentEncoder:
    """Maps content expressions over code points to canonical JSON string text (memoised)."""

    def __init__(self) -> None:
        self._classes: dict[CharClass, Expr] = {}

    def encode(self, expr: Expr) -> Expr:
        if isinstance(expr, Literal):
            return literal(json.dumps(expr.text, ensure_ascii=False)[1:-1])
        if isinstance(expr, CharClass):
            return self.encode_class(expr)
        if isinstance(expr, Seq):
            return seq(*(self.encode(e) for e in expr.items))
        if isinstance(expr, Alt):
            return alt(*(self.encode(e) for e in expr.items))
        if isinstance(expr, Repeat):
            return repeat(self.encode(expr.item), expr.min, expr.max)
        if isinstance(expr, Ref):
            return expr  # rules that already produce encoded text (e.g. the shared "char")
        raise TypeError(f"not a content expression: {expr!r}")

    def encode_class(self, cc: CharClass) -> Expr:
        cached = self._classes.get(cc)
        if cached is not None:
            return cached
        if is_any_char(cc):
            out: Expr = Ref("char")
        else:
            out = self._encode_class(cc)
        self._classes[cc] = out
        return out

    def _encode_class(self, cc: CharClass) -> Expr:
        ranges = cc.effective_ranges()
        raw: list[tuple[int, int]] = []
        for lo, hi in ranges:
            for rlo, rhi in _RAW.ranges:
                a, b = max(lo, rlo), min(hi, rhi)
                if a <= b:
                    raw.append((a, b))
        specials = [
            p for lo, hi in ranges for p in range(lo, min(hi, 0x5C) + 1) if p < 0x20 or p in (0x22, 0x5C)
        ]
        short = sorted({ord(_SHORT_ESCAPES[p][1]) for p in specials if p in _SHORT_ESCAPES})
        uni = sorted(p for p in specials if p not in _SHORT_ESCAPES)
        parts: list[Expr] = []
        if raw:
            parts.append(_readable_class(char_class(raw)))
        escaped: list[Expr] = []
        if short:
            escaped.append(char_class((p, p) for p in short))
        if uni:
            by_high: dict[int, list[int]] = {}
            for p in uni:
                by_high.setdefault(p >> 4, []).append(p & 0xF)
            hexd = "0123456789abcdef"
            escaped.append(
                seq(
                    literal("u00"),
                    alt(
                        *(
                            seq(literal(hexd[h]), char_class((ord(hexd[d]), ord(hexd[d])) for d in ds))
                            for h, ds in by_high.items()
                        )
                    ),
                )
            )
        if escaped:
            parts.append(seq(literal("\\"), alt(*escaped)))
        if not parts:
            return char_class([])
        return alt(*parts)


def _readable_class(cc: CharClass) -> CharClass:
    """Write a class that admits almost everything as a negation (``[^"\\\x00-\x1f]``).

    Surrogates are left out of the negated list: they cannot be encoded, so both forms admit the
    same UTF-8 text.
    """
    if len(cc.ranges) < 2 or not any(lo <= 0x100 and hi >= _SURROGATES[0] - 1 for lo, hi in cc.ranges):
        return cc
    excluded: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in cc.ranges:
        if lo > nxt:
            excluded.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        excluded.append((nxt, MAX_CODE_POINT))
    excluded = [r for r in excluded if r != _SURROGATES]
    if not excluded:
        return cc
    return char_class(excluded, negated=True)
