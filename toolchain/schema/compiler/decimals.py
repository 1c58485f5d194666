"""Numbers between non-integer bounds, exactly: digit automata over decimal expansions.

Integer ranges are digit-range grammars (:func:`numbers.nat_range`), as XGrammar and llguidance
build them; a bound such as ``0.1 <= v < 2.75`` splits the same way. A number's text is an integer
part ``I`` and, for a non-integer, a fraction ``.d1d2…`` whose digits compare as a decimal
expansion padded with zeros. For a magnitude interval ``[A, B]`` (``A = a + 0.α``, ``B = b + 0.β``):

* ``a < I < b``: any fraction; ``I == a``: fraction ``>= α`` (``>`` when exclusive); ``I == b``:
  fraction ``<= β``; ``a == b``: both at once;
* the fraction constraints are automata over the remaining bound digits, state = (the lower
  bound's digits still to match, or none once above it; the upper's likewise; a non-zero digit
  still needed; digits still allowed under ``multipleOf 10^-m``) — linear in the bounds' length.

Canonical texts of magnitudes below ``1e-4`` are exponent forms (``1.5e-07``): they are exact when
the interval holds all of ``(0, 1e-4)`` or none of it, and otherwise unrestricted (reported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from gramwright.grammar.ir import Expr, alt, char_class, literal, repeat, seq
from gramwright.schema.compiler.jsontext import DIGIT, DIGIT19

# bound digits past this many are not expanded (a 1e-300 bound): the bound is then widened
MAX_BOUND_DIGITS = 40
TINY = Fraction(1, 10_000)


@dataclass(frozen=True)
class Interval:
    """Magnitudes ``m`` with ``lo <= m`` (``<`` when ``lo_strict``) and ``m <= hi`` (None: no bound)."""

    lo: Fraction
    lo_strict: bool
    hi: Fraction | None
    hi_strict: bool


def fraction_digits(value: Fraction) -> str | None:
    """The digits after the point of ``value``'s decimal expansion, no trailing zeros ("" for an
    integer); None when it does not terminate or is longer than :data:`MAX_BOUND_DIGITS`."""
    frac = value - math.floor(value)
    digits: list[str] = []
    while frac and len(digits) <= MAX_BOUND_DIGITS:
        frac *= 10
        d = math.floor(frac)
        digits.append(str(d))
        frac -= d
    return None if frac else "".join(digits)


def _digits(lo: int, hi: int) -> Expr:
    return char_class([(0x30 + lo, 0x30 + hi)])


def _free(need_nonzero: bool, left: int | None) -> Expr | None:
    """Any digit string (at most ``left`` digits), with a non-zero digit when asked."""
    if not need_nonzero:
        return repeat(DIGIT, 0, left)
    if left is None:
        return seq(repeat(literal("0"), 0, None), DIGIT19, repeat(DIGIT, 0, None))
    if left == 0:
        return None
    return alt(
        *(seq(repeat(literal("0"), j, j), DIGIT19, repeat(DIGIT, 0, left - j - 1)) for j in range(left))
    )


def fraction_between(
    lo: str | None, lo_strict: bool, hi: str | None, hi_strict: bool, left: int | None = None
) -> Expr | None:
    """Digit strings ``s`` (after the point; at least one non-zero digit, at most ``left`` digits)
    with ``0.lo <= 0.s <= 0.hi`` (strict where asked; None: that side is free). None: empty."""
    return _between(lo, lo_strict, hi, hi_strict, True, left)


def _between(
    lo: str | None, lo_strict: bool, hi: str | None, hi_strict: bool, need_nz: bool, left: int | None
) -> Expr | None:
    # the remaining lower bound is zero: nothing more to stay above, but "> 0" needs a non-zero digit
    if lo == "":
        lo, need_nz = None, need_nz or lo_strict
    if hi == "":  # the remaining upper bound is zero: only zeros may follow, and only when <= holds
        return None if (hi_strict or need_nz) else repeat(literal("0"), 0, left)
    if lo is None and hi is None:
        return _free(need_nz, left)
    parts: list[Expr] = []
    if lo is None and not need_nz:
        parts.append(literal(""))  # the string may end here: the rest reads as zeros, below hi
    if left == 0:
        return alt(*parts) if parts else None
    rest = None if left is None else left - 1
    first = int(lo[0]) if lo is not None else 0
    last = int(hi[0]) if hi is not None else 9
    d = first
    while d <= last:
        # digits that lead to the same state form one class: the bounds' own digits stand alone
        if (lo is not None and d == first) or (hi is not None and d == last):
            end = d
        elif d == 0 and need_nz:
            end = 0
        else:
            end = last - 1 if hi is not None else last
        nxt_lo = lo[1:] if (lo is not None and d == first) else None
        nxt_lo_strict = lo_strict if nxt_lo is not None else False
        nxt_hi = hi[1:] if (hi is not None and d == last) else None
        nxt_hi_strict = hi_strict if nxt_hi is not None else False
        tail = _between(nxt_lo, nxt_lo_strict, nxt_hi, nxt_hi_strict, need_nz and end == 0, rest)
        if tail is not None:
            parts.append(seq(_digits(d, end), tail))
        d = end + 1
    return alt(*parts) if parts else None


@dataclass
class HalfResult:
    expr: Expr | None
    tiny_unbounded: bool = False  # exponent forms below 1e-4 accepted beyond the interval


def magnitudes(
    iv: Interval,
    *,
    positive_only: bool,
    integers: bool,
    float_integrals: bool,
    max_frac: int | None,
    tiny: Expr,
) -> HalfResult | None:
    """Texts (without sign) of the magnitudes in ``iv``; None when a bound's expansion is too long.

    ``positive_only``: zero itself is not written (the negative half: no ``-0``). ``tiny``: the
    exponent-form grammar of magnitudes below 1e-4 (added when the interval reaches below it)."""
    from gramwright.schema.compiler.numbers import nat_range

    lo_digits = fraction_digits(iv.lo)
    hi_digits = fraction_digits(iv.hi) if iv.hi is not None else ""
    if lo_digits is None or hi_digits is None:
        return None
    a = math.floor(iv.lo)
    b = math.floor(iv.hi) if iv.hi is not None else None
    parts: list[Expr] = []
    # integer values: ceil past a strict or fractional lower bound, floor below the upper
    ilo = a + 1 if (lo_digits or iv.lo_strict) else a
    if positive_only:
        ilo = max(ilo, 1)
    ihi = None if b is None else (b - 1 if (iv.hi_strict and not hi_digits) else b)
    if ihi is None or ilo <= ihi:
        if integers:
            parts.append(nat_range(ilo, ihi))
        if float_integrals:
            parts.append(seq(nat_range(ilo, ihi), literal(".0")))

    def dot(frac: Expr | None) -> Expr | None:
        return None if frac is None else seq(literal("."), frac)

    if b is not None and a == b:
        frac = dot(fraction_between(lo_digits, iv.lo_strict, hi_digits, iv.hi_strict, max_frac))
        if frac is not None:
            parts.append(seq(nat_range(a, a), frac))
    else:
        low = dot(fraction_between(lo_digits, iv.lo_strict, None, False, max_frac))
        if low is not None:
            parts.append(seq(nat_range(a, a), low))
        if b is None or b - a >= 2:
            mid = dot(fraction_between(None, False, None, False, max_frac))
            if mid is not None:
                parts.append(seq(nat_range(a + 1, None if b is None else b - 1), mid))
        if b is not None:
            high = dot(fraction_between(None, False, hi_digits, iv.hi_strict, max_frac))
            if high is not None:
                parts.append(seq(nat_range(b, b), high))
    result = HalfResult(None)
    # exponent forms: magnitudes in (0, 1e-4) are written 1.5e-05
    reaches = iv.lo < TINY and (iv.hi is None or iv.hi > 0)
    if reaches and (max_frac is None or max_frac >= 5):
        parts.append(tiny)
        holds_all = iv.lo == 0 and (iv.hi is None or iv.hi >= TINY)
        result.tiny_unbounded = not holds_all
    result.expr = alt(*parts) if parts else None
    return result
