"""Code-point sets of ECMA-262 regular expressions, as sorted disjoint inclusive ranges.

ECMA-262 (what JSON Schema's ``pattern`` means) fixes ``\\d``, ``\\w`` and ``\\s`` to small sets, unlike
Python's ``re`` whose classes are Unicode-aware on ``str``. Unicode property escapes (``\\p{…}``)
read General_Category from :mod:`unicodedata`, i.e. the Unicode version of the running Python
(14.0 on 3.11); engines with newer tables may differ on recently assigned code points.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

Ranges = tuple[tuple[int, int], ...]

MAX_CP = sys.maxunicode
SURROGATES: Ranges = ((0xD800, 0xDFFF),)
DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
# ECMA-262 WhiteSpace (TAB VT FF SP NBSP ZWNBSP + Zs) and LineTerminator (LF CR LS PS).
SPACE: Ranges = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
LINE_TERMINATORS: Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
SCALAR_VALUES: Ranges = ((0, 0xD7FF), (0xE000, MAX_CP))


def union(*sets: Iterable[tuple[int, int]]) -> Ranges:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(r for s in sets for r in s):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return tuple(out)


def subtract(ranges: Ranges, removed: Ranges) -> Ranges:
    return complement(union(complement(ranges), removed))


def single(cp: int) -> Ranges:
    return ((cp, cp),)


# General_Category values: short name → long name and aliases (PropertyValueAliases.txt).
_GC_NAMES: dict[str, tuple[str, ...]] = {
    "Lu": ("Uppercase_Letter",),
    "Ll": ("Lowercase_Letter",),
    "Lt": ("Titlecase_Letter",),
    "LC": ("Cased_Letter",),
    "Lm": ("Modifier_Letter",),
    "Lo": ("Other_Letter",),
    "L": ("Letter",),
    "Mn": ("Nonspacing_Mark",),
    "Mc": ("Spacing_Mark",),
    "Me": ("Enclosing_Mark",),
    "M": ("Mark", "Combining_Mark"),
    "Nd": ("Decimal_Number", "digit"),
    "Nl": ("Letter_Number",),
    "No": ("Other_Number",),
    "N": ("Number",),
    "Pc": ("Connector_Punctuation",),
    "Pd": ("Dash_Punctuation",),
    "Ps": ("Open_Punctuation",),
    "Pe": ("Close_Punctuation",),
    "Pi": ("Initial_Punctuation",),
    "Pf": ("Final_Punctuation",),
    "Po": ("Other_Punctuation",),
    "P": ("Punctuation", "punct"),
    "Sm": ("Math_Symbol",),
    "Sc": ("Currency_Symbol",),
    "Sk": ("Modifier_Symbol",),
    "So": ("Other_Symbol",),
    "S": ("Symbol",),
    "Zs": ("Space_Separator",),
    "Zl": ("Line_Separator",),
    "Zp": ("Paragraph_Separator",),
    "Z": ("Separator",),
    "Cc": ("Control", "cntrl"),
    "Cf": ("Format",),
    "Cs": ("Surrogate",),
    "Co": ("Private_Use",),
    "Cn": ("Unassigned",),
    "C": ("Other",),
}
_GC_ALIAS = {alias: short for short, longs in _GC_NAMES.items() for alias in (short, *longs)}


@lru_cache(maxsize=1)
def _categories() -> dict[str, Ranges]:
    """Every two-letter General_Category as ranges (one scan of the code space, ~0.5 s, cached)."""
    acc: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category("\0")
    for cp in range(1, MAX_CP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CP else ""
        if cat != current:
            acc.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    return {cat: tuple(ranges) for cat, ranges in acc.items()}


def general_category(name: str) -> Ranges:
    """``Lu``, ``Letter``, ``L`` … (a one-letter group is the union of its two-letter values)."""
    short = _GC_ALIAS[name]
    cats = _categories()
    if short == "LC":
        return union(cats["Lu"], cats["Ll"], cats["Lt"])
    if len(short) == 1:
        return union(*(r for cat, r in cats.items() if cat.startswith(short)))
    return cats.get(short, ())


def unicode_property(spec: str) -> Ranges | None:
    """The set named by ``\\p{spec}``, or ``None`` when the property is not known here.

    Supported: General_Category values (bare, ``gc=`` or ``General_Category=``) and the binary
    properties ``Any``, ``ASCII``, ``Assigned``. Script and most binary properties need tables that
    :mod:`unicodedata` does not carry.
    """
    key, sep, value = spec.partition("=")
    if sep:
        if key not in ("gc", "General_Category"):
            return None
        return general_category(value) if value in _GC_ALIAS else None
    if spec in _GC_ALIAS:
        return general_category(spec)
    if spec == "Any":
        return ((0, MAX_CP),)
    if spec == "ASCII":
        return ((0, 0x7F),)
    if spec == "Assigned":
        return complement(general_category("Cn"))
    return None
