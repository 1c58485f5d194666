"""Numbers and integers as exact digit grammars.

Canonical numbers (see :mod:`gramwright.schema.canonical`): integers and integral floats are written
as plain integers (``-?(0|[1-9][0-9]*)``); other floats as Python's shortest ``repr``, which uses a
decimal fraction for ``1e-4 <= |x| < 1e16`` and an exponent (``1.5e-07``) for smaller magnitudes —
larger floats are always integral, so they are written as integers. The bounded grammars below accept
exactly the canonical texts of the numbers within the bounds (plus non-canonical trailing zeros in
fractions, which do not change the value); the unbounded ``number`` rule accepts all of RFC 8259.

Integer bounds are exact digit-range grammars; for non-integer numbers integer bounds
(``minimum: 0``, ``exclusiveMinimum: 0``, ``maximum: 100``) are exact the same way, and non-integer
bounds (``0.1 <= v < 2.75``) by digit automata over the decimal expansion
(:mod:`gramwright.schema.compiler.decimals`) — except the exponent forms below 1e-4 when a bound
falls among them, and bounds whose expansion is longer than 40 digits (widened to the enclosing
integers); both reported. ``multipleOf`` is exact for integers when the value range is
small (enumerated) or the divisor divides a power of ten (last digits), and for non-integers when it
is ``10^-m`` (at most m fraction digits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from gramwright.grammar.ir import Expr, Ref, alt, char_class, literal, repeat, seq
from gramwright.schema.compiler.jsontext import DIGIT, DIGIT19

MAX_ENUMERATED = 256
_TINY_EXP = alt(seq(literal("0"), char_class([(0x35, 0x39)])), seq(DIGIT19, repeat(DIGIT, 1, None)))


def _digit_class(lo: int, hi: int) -> Expr:
    return char_class([(0x30 + lo, 0x30 + hi)])


def _same_length(x: str, y: str) -> Expr:
    """Digit strings of len(x) between x and y inclusive (x <= y, same length)."""
    if x == y:
        return literal(x)
    n = len(x)
    if n == 1:
        return _digit_class(int(x), int(y))
    if x[0] == y[0]:
        return seq(literal(x[0]), _same_length(x[1:], y[1:]))
    parts: list[Expr] = []
    start, end = int(x[0]), int(y[0])
    if x[1:] != "0" * (n - 1):
        parts.append(seq(literal(x[0]), _same_length(x[1:], "9" * (n - 1))))
        start += 1
    mid_end = end if y[1:] == "9" * (n - 1) else end - 1
    if start <= mid_end:
        parts.append(seq(_digit_class(start, mid_end), repeat(DIGIT, n - 1, n - 1)))
    if y[1:] != "9" * (n - 1):
        parts.append(seq(literal(y[0]), _same_length("0" * (n - 1), y[1:])))
    return alt(*parts)


def nat_range(a: int, b: int | None) -> Expr:
    """Canonical decimal texts (no leading zeros) of the naturals in [a, b] (b None: unbounded)."""
    la = len(str(a))
    parts: list[Expr] = []
    if b is None:
        parts.append(_same_length(str(a), "9" * la))
        parts.append(seq(DIGIT19, repeat(DIGIT, la, None)))
        return alt(*parts)
    lb = len(str(b))
    if la == lb:
        return _same_length(str(a), str(b))
    parts.append(_same_length(str(a), "9" * la))
    if lb - la >= 2:
        parts.append(seq(DIGIT19, repeat(DIGIT, la, lb - 2)))
    parts.append(_same_length("1" + "0" * (lb - 1), str(b)))
    return alt(*parts)


def int_range(lo: int | None, hi: int | None) -> Expr | None:
    """Canonical integer texts in [lo, hi]; None when the range is empty."""
    if lo is not None and hi is not None and lo > hi:
        return None
    parts: list[Expr] = []
    if lo is None or lo < 0:  # negative part: -[max(1,-hi), -lo]
        neg_hi = None if lo is None else -lo
        neg_lo = 1 if hi is None or hi >= 0 else -hi
        parts.append(seq(literal("-"), nat_range(neg_lo, neg_hi)))
    if hi is None or hi >= 0:
        parts.append(nat_range(max(lo or 0, 0), hi))
    return alt(*parts)


def _pos_fraction(max_digits: int | None) -> Expr:
    """``.`` then fraction digits that are not all zero (at most ``max_digits``)."""
    if max_digits is None:
        return seq(literal("."), repeat(literal("0"), 0, None), DIGIT19, repeat(DIGIT, 0, None))
    return seq(
        literal("."),
        alt(
            *(
                seq(repeat(literal("0"), j, j), DIGIT19, repeat(DIGIT, 0, max_digits - j - 1))
                for j in range(max_digits)
            )
        ),
    )


# A piece of one sign half: integer part in [lo, hi] (hi None: unbounded) and whether the
# fraction is zero (an integer text), non-zero, or either.
ZERO, POS, ANY = "zero", "pos", "any"


@dataclass(frozen=True)
class _Piece:
    lo: int
    hi: int | None
    frac: str


def _intersect(a: _Piece, b: _Piece) -> _Piece | None:
    lo = max(a.lo, b.lo)
    hi = a.hi if b.hi is None else (b.hi if a.hi is None else min(a.hi, b.hi))
    if hi is not None and lo > hi:
        return None
    if a.frac == ANY:
        frac = b.frac
    elif b.frac == ANY or b.frac == a.frac:
        frac = a.frac
    else:
        return None
    return _Piece(lo, hi, frac)


def _lower_pieces(bound: int, exclusive: bool, negative: bool) -> list[_Piece]:
    """Pieces of one sign half satisfying ``v >= bound`` (``v > bound`` when exclusive)."""
    if not negative:
        if bound < 0 or (bound == 0 and not exclusive):
            return [_Piece(0, None, ANY)]
        if exclusive:
            return [_Piece(bound + 1, None, ANY), _Piece(bound, bound, POS)]
        return [_Piece(bound, None, ANY)]
    if bound > 0 or (bound == 0 and exclusive):
        return []
    if bound == 0:
        return [_Piece(0, 0, ZERO)]  # only zero itself (this is also the mirror of v <= 0)
    m = -bound  # v = -(I + f) >= -m  <=>  I + f <= m
    if exclusive:
        return [_Piece(0, m - 1, ANY)]
    return [_Piece(0, m - 1, ANY), _Piece(m, m, ZERO)]


def _upper_pieces(bound: int, exclusive: bool, negative: bool) -> list[_Piece]:
    """Pieces of one sign half satisfying ``v <= bound`` (``v < bound`` when exclusive)."""
    # v <= b  <=>  -v >= -b: the mirror of the lower bound on the other half.
    return _lower_pieces(-bound, exclusive, not negative)


@dataclass
class NumberSpec:
    """Numeric constraints of one compiled subschema (after merging all its parts)."""

    allow_int: bool = True
    allow_frac: bool = True
    lower: tuple[Fraction, bool] | None = None  # (bound, exclusive)
    upper: tuple[Fraction, bool] | None = None
    multiples: list[Fraction] = field(default_factory=list)
    excluded: list[Fraction] = field(default_factory=list)
    # draft-04: an integral float (1.0) is a number but not an integer; it is written "1.0".
    float_integrals: bool = False

    def add_lower(self, bound: Fraction, exclusive: bool) -> None:
        if self.lower is None or bound > self.lower[0] or (bound == self.lower[0] and exclusive):
            self.lower = (bound, exclusive)

    def add_upper(self, bound: Fraction, exclusive: bool) -> None:
        if self.upper is None or bound < self.upper[0] or (bound == self.upper[0] and exclusive):
            self.upper = (bound, exclusive)


@dataclass
class NumberResult:
    expr: Expr | None  # None: no number satisfies the constraints
    approximated: dict[str, str] = field(default_factory=dict)  # "bounds" | "multipleOf" | "not" → reason


def int_bounds(spec: NumberSpec) -> tuple[int | None, int | None]:
    lo = hi = None
    if spec.lower is not None:
        b, ex = spec.lower
        lo = math.floor(b) + 1 if (ex and b.denominator == 1) else math.ceil(b)
    if spec.upper is not None:
        b, ex = spec.upper
        hi = math.ceil(b) - 1 if (ex and b.denominator == 1) else math.floor(b)
    return lo, hi


def integer_multiple(spec: NumberSpec) -> tuple[int, bool]:
    """The integer k such that the multipleOf constraints on integers mean 'divisible by k'.

    A rational multipleOf p/q (lowest terms) admits the integer n iff p divides n. Returns
    (k, exact) where exact is False when the constraints are not all of that form.
    """
    k = 1
    for m in spec.multiples:
        if m <= 0:
            return k, False
        p = m.numerator
        k = k * p // math.gcd(k, p)
    return k, True


def integer_expr(spec: NumberSpec) -> NumberResult:
    lo, hi = int_bounds(spec)
    res = NumberResult(None)
    k, _ = integer_multiple(spec)
    excluded = sorted({int(v) for v in spec.excluded if v.denominator == 1})
    if lo is not None and hi is not None and lo > hi:
        return res
    if lo is not None and hi is not None and hi - lo < MAX_ENUMERATED * max(k, 1) and (k > 1 or excluded):
        values = [v for v in range(lo + (-lo) % k, hi + 1, k) if v not in excluded]
        if len(values) <= MAX_ENUMERATED:
            res.expr = alt(*(literal(str(v)) for v in values)) if values else None
            return res
    if excluded:
        # Split the range around excluded values (they are few).
        pieces: list[Expr] = []
        cur = lo
        for v in excluded:
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                continue
            piece = int_range(cur, v - 1)
            if piece is not None:
                pieces.append(piece)
            cur = v + 1
        last = int_range(cur, hi)
        if last is not None:
            pieces.append(last)
        base: Expr | None = alt(*pieces) if pieces else None
    elif lo is None and hi is None:
        base = Ref("integer")
    else:
        base = int_range(lo, hi)
    if k > 1:
        suffix = _last_digits_multiple(k) if (lo is None and hi is None and not excluded) else None
        if suffix is not None:
            base = suffix
        else:
            res.approximated["multipleOf"] = f"divisibility by {k} over a large range is not expressed"
    res.expr = base
    return res


def _last_digits_multiple(k: int) -> Expr | None:
    """Integers divisible by k when k divides 10^m (m <= 3): decided by the last m digits."""
    for m in range(1, 4):
        if (10**m) % k == 0:
            break
    else:
        return None
    short = [literal(str(v)) for v in range(0, 10**m, k)]  # values with at most m digits
    suffixes = sorted({str(v).zfill(m) for v in range(0, 10**m, k)})
    long = seq(DIGIT19, repeat(DIGIT, 0, None), alt(*(literal(s) for s in suffixes)))
    body = alt(*short, long)
    return seq(repeat(literal("-"), 0, 1), body)


def number_expr(spec: NumberSpec) -> NumberResult:
    """Grammar for numbers under ``spec`` (integers and/or non-integers)."""
    if not spec.allow_frac:
        return integer_expr(spec)
    res = NumberResult(None)
    max_frac: int | None = None
    for m in spec.multiples:
        if m.denominator == 1 and m.numerator >= 1 and not spec.float_integrals:
            # Every multiple of an integer is an integer: canonical text has no fraction.
            sub = NumberSpec(spec.allow_int, False, spec.lower, spec.upper, spec.multiples, spec.excluded)
            return integer_expr(sub)
        exp10 = _power_of_ten_exponent(m)
        if exp10 is not None and exp10 < 0:
            max_frac = -exp10 if max_frac is None else min(max_frac, -exp10)
        else:
            res.approximated["multipleOf"] = f"multipleOf {m} for non-integers is not expressed"
    if spec.excluded:
        res.approximated["not"] = "excluded number values are not expressed"
    lower = spec.lower
    upper = spec.upper
    fractional = any(b is not None and b[0].denominator != 1 for b in (lower, upper))
    if fractional and _fractional_bounds(spec, max_frac, res):
        return res
    if lower is not None and lower[0].denominator != 1:
        res.approximated["bounds"] = "non-integer bound widened to the enclosing integer"
        lower = (Fraction(math.floor(lower[0])), False)
    if upper is not None and upper[0].denominator != 1:
        res.approximated["bounds"] = "non-integer bound widened to the enclosing integer"
        upper = (Fraction(math.ceil(upper[0])), False)
    if lower is None and upper is None and max_frac is None and spec.allow_int and not spec.multiples:
        res.expr = Ref("number")
        return res
    parts: list[Expr] = []
    for negative in (True, False):
        pieces = [_Piece(0, None, ANY)]
        if lower is not None:
            lp = _lower_pieces(int(lower[0]), lower[1], negative)
            pieces = [p for a in pieces for b in lp if (p := _intersect(a, b)) is not None]
        if upper is not None:
            up = _upper_pieces(int(upper[0]), upper[1], negative)
            pieces = [p for a in pieces for b in up if (p := _intersect(a, b)) is not None]
        sign = literal("-") if negative else literal("")
        tiny = False
        for p in pieces:
            if p.frac in (ZERO, ANY) and spec.allow_int:
                lo = max(p.lo, 1) if negative else p.lo
                if p.hi is None or lo <= p.hi:
                    parts.append(seq(sign, nat_range(lo, p.hi)))
            if p.frac in (ZERO, ANY) and spec.float_integrals:
                lo = max(p.lo, 1) if negative else p.lo
                if p.hi is None or lo <= p.hi:
                    parts.append(seq(sign, nat_range(lo, p.hi), literal(".0")))
            if p.frac in (POS, ANY):
                parts.append(seq(sign, nat_range(p.lo, p.hi), _pos_fraction(max_frac)))
                if p.lo == 0:
                    tiny = True
        if tiny and (max_frac is None or max_frac >= 5):
            if max_frac is not None:
                res.approximated["multipleOf"] = "exponent forms of tiny multiples are not restricted"
            mantissa = seq(DIGIT19, repeat(seq(literal("."), repeat(DIGIT, 0, None), DIGIT19), 0, 1))
            parts.append(seq(sign, mantissa, literal("e-"), _TINY_EXP))
    res.expr = alt(*parts) if parts else None
    return res


def _tiny(sign: Expr) -> Expr:
    """Exponent forms of magnitudes below 1e-4 (``1e-05``, ``1.5e-07``), with ``sign``."""
    mantissa = seq(DIGIT19, repeat(seq(literal("."), repeat(DIGIT, 0, None), DIGIT19), 0, 1))
    return seq(sign, mantissa, literal("e-"), _TINY_EXP)


def _fractional_bounds(spec: NumberSpec, max_frac: int | None, res: NumberResult) -> bool:
    """Numbers between bounds of which one is not an integer, exactly (decimal-expansion automata);
    False when a bound's expansion is too long (the caller widens it, reported)."""
    from gramwright.schema.compiler.decimals import Interval, magnitudes

    zero = Fraction(0)
    lo, lo_strict = spec.lower if spec.lower is not None else (None, False)
    hi, hi_strict = spec.upper if spec.upper is not None else (None, False)
    halves: list[tuple[bool, Interval]] = []  # (negative, magnitudes)
    if lo is None or lo < 0:  # v < 0: the magnitude -v lies in [max(0, -hi), -lo]
        if hi is not None and hi < 0:
            m_lo, m_lo_strict = -hi, hi_strict
        else:
            m_lo, m_lo_strict = zero, False
        halves.append((True, Interval(m_lo, m_lo_strict, None if lo is None else -lo, lo_strict)))
    if hi is None or hi > 0 or (hi == 0 and not hi_strict):  # v >= 0
        if lo is not None and lo >= 0:
            p_lo, p_lo_strict = lo, lo_strict
        else:
            p_lo, p_lo_strict = zero, False
        halves.append((False, Interval(p_lo, p_lo_strict, hi, hi_strict)))
    parts: list[Expr] = []
    for negative, iv in halves:
        if iv.hi is not None and (iv.lo > iv.hi or (iv.lo == iv.hi and (iv.lo_strict or iv.hi_strict))):
            continue
        half = magnitudes(
            iv,
            positive_only=negative,
            integers=spec.allow_int,
            float_integrals=spec.float_integrals,
            max_frac=max_frac,
            tiny=_tiny(literal("")),
        )
        if half is None:
            return False
        if half.tiny_unbounded:
            res.approximated["bounds"] = "exponent forms of magnitudes below 1e-4 are not bounded"
        if half.expr is not None:
            parts.append(seq(literal("-"), half.expr) if negative else half.expr)
    if (
        max_frac is not None
        and max_frac >= 5
        and any(iv.lo < Fraction(1, 10_000) and (iv.hi is None or iv.hi > 0) for _, iv in halves)
    ):
        res.approximated["multipleOf"] = "exponent forms of tiny multiples are not restricted"
    res.expr = alt(*parts) if parts else None
    return True


def _power_of_ten_exponent(m: Fraction) -> int | None:
    """e when m == 10**e exactly, else None."""
    if m <= 0:
        return None
    e = 0
    while m.denominator != 1 and e > -30:
        m *= 10
        e -= 1
    if m.denominator != 1:
        return None
    n = m.numerator
    while n % 10 == 0 and n > 1:
        n //= 10
        e += 1
    return e if n == 1 else None
