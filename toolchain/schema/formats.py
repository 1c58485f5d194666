"""Grammars for JSON Schema ``format`` values: the content (code points) of the string.

The rule: a grammar never rejects a string that python-jsonschema's format checkers accept
(jsonschema 4.26 with the ``format-nongpl`` extra: ``FormatChecker()`` and the draft 2020-12 checker,
which differ only on ``time``), nor one the JSON-Schema-Test-Suite marks valid. ``exact=True``
means the grammar accepts exactly what the checkers accept, so validation can never reject a string
the grammar let through; ``reason`` always says what the grammar is, and for ``exact=False`` how it
is wider. Several checkers are far looser than their RFCs (``email`` only looks for an ``@``,
``uuid`` goes through ``uuid.UUID``); the grammar follows the checker, and says so.

Formats are mostly written as ECMA-262 regexes (:func:`gramwright.regex.regex_to_expr` in full-match
mode) so that each reads like its ABNF; large Unicode sets are built as IR classes directly.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from gramwright.grammar.ir import Expr, alt, char_class, literal, repeat, seq
from gramwright.regex import charsets as cs
from gramwright.regex import regex_to_expr
from gramwright.regex.translate import ANY_CHAR


@dataclass(frozen=True)
class FormatResult:
    expr: Expr
    exact: bool
    reason: str


@cache
def format_expr(name: str) -> FormatResult | None:
    """The grammar for format ``name``, or ``None`` for a format with no grammar here (unknown).
    Results are immutable and cached."""
    builder = _FORMATS.get(name)
    return None if builder is None else builder()


def known_formats() -> list[str]:
    return list(_FORMATS)


def _rx(pattern: str) -> Expr:
    result = regex_to_expr(pattern, search=False, max_repeat=None)
    assert result.exact, result.notes
    return result.expr


def _ranges_text(ranges: cs.Ranges) -> str:
    """Ranges as the inside of a regex class, with ``\\u{…}`` escapes."""
    return "".join(f"\\u{{{lo:X}}}" if lo == hi else f"\\u{{{lo:X}}}-\\u{{{hi:X}}}" for lo, hi in ranges)


# -- dates and times (RFC 3339) ------------------------------------------------------------------------

# Year 0000 is rejected by the checkers (datetime has no year 0); leap years get 29 February.
_YEAR = r"(?:000[1-9]|00[1-9]\d|0[1-9]\d\d|[1-9]\d\d\d)"
_LEAP_YEAR = r"(?:\d\d(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)"
    r"|02-(?:0[1-9]|1\d|2[0-8]))"
)
_DATE = f"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_HOUR = r"(?:[01]\d|2[0-3])"
_FRAC = r"(?:\.\d+)?"
# rfc3339-validator: no leap second; its "$" also matches before a final newline.
_TIME_CHECKER = rf"{_HOUR}:[0-5]\d:[0-5]\d{_FRAC}(?:[Zz]|[+-]{_HOUR}:[0-5]\d)\n?"
# RFC 3339 leap second: 23:59:60 in UTC. Exact for "Z", ±00:00 and whole-hour offsets; any hh:mm:60
# for offsets with minutes (exactness there would take one branch per (hour, minute) pair).
_LEAP_SECOND = "|".join(
    [rf"23:59:60{_FRAC}(?:[Zz]|[+-]00:00)"]
    + [rf"{h - 1:02d}:59:60{_FRAC}\+{h:02d}:00" for h in range(1, 24)]
    + [rf"{23 - h:02d}:59:60{_FRAC}-{h:02d}:00" for h in range(1, 24)]
    + [rf"{_HOUR}:[0-5]\d:60{_FRAC}[+-]{_HOUR}:(?:0[1-9]|[1-5]\d)"]
)
_FULL_TIME = f"(?:{_TIME_CHECKER}|{_LEAP_SECOND})"
# FormatChecker()'s class-level "time" is draft 3's: datetime.strptime(s, "%H:%M:%S"), whose \d is
# Unicode (any decimal digit) and which allows one-digit fields.
_STRPTIME_TIME = r"(?:2[0-3]|[01]\p{Nd}|\p{Nd}):(?:[0-5]\p{Nd}|\p{Nd}):(?:[0-5]\p{Nd}|\p{Nd})"


def _date() -> FormatResult:
    return FormatResult(_rx(_DATE), True, "RFC 3339 full-date, day checked per month and leap year")


def _date_time() -> FormatResult:
    return FormatResult(
        _rx(f"{_DATE}[Tt]{_FULL_TIME}"),
        False,
        "RFC 3339 date-time as rfc3339-validator reads it (case-insensitive T/Z, a final newline"
        " tolerated), plus RFC leap seconds (:60), which the checker rejects; :60 is exact for Z and"
        " whole-hour offsets, free for offsets with minutes",
    )


def _time() -> FormatResult:
    return FormatResult(
        _rx(f"{_FULL_TIME}|{_STRPTIME_TIME}"),
        False,
        "RFC 3339 full-time with leap seconds, or H:M:S without offset (FormatChecker() checks"
        " 'time' with draft 3's strptime, the draft 2020-12 checker with RFC 3339)",
    )


# isoduration as jsonschema calls it: components in Y M D W / H M S order, each optional; values
# are Decimal literals ("1", "-1,5", ".5e3"); weeks only after zero-valued Y/M/D; a unitless number
# may dangle before "T" once a date component was seen; the string must end with a designator.
_NUM = r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?"
_ZERO = r"[+-]?(?:0+(?:[.,]0*)?|[.,]0+)(?:[eE][+-]?\d+)?"
_DUR_DATE = (
    rf"(?:{_NUM}Y(?:{_NUM}M)?(?:{_NUM}D)?|{_NUM}M(?:{_NUM}D)?|{_NUM}D"
    rf"|(?:{_ZERO}Y)?(?:{_ZERO}M)?(?:{_ZERO}D)?{_NUM}W)"
)
_DUR_TIME = rf"T(?:{_NUM}H(?:{_NUM}M)?(?:{_NUM}S)?|{_NUM}M(?:{_NUM}S)?|{_NUM}S)"
_DURATION = rf"[+-]?P(?:{_DUR_DATE}(?:[-+0-9.,eE]*{_DUR_TIME})?|{_DUR_TIME})"


def _duration() -> FormatResult:
    return FormatResult(
        _rx(_DURATION),
        False,
        "ISO 8601 duration as isoduration parses it (what the checker runs): looser than RFC 3339"
        " Appendix A (signs, decimals, exponents, skipped components, weeks with zero Y/M/D);"
        " not exact: the checker also fails on exponents beyond Python's Decimal range"
        " (found by random walks: PT4e2070377012859642980554242S)",
    )


# -- addresses ----------------------------------------------------------------------------------------

_DEC_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"


def _ipv6(ipv4: str) -> str:
    """RFC 4291 text form (RFC 3986 ``IPv6address``): ``::`` stands for one or more zero groups."""
    h16 = "[0-9A-Fa-f]{1,4}"
    ls32 = f"(?:{h16}:{h16}|{ipv4})"
    return (
        f"(?:(?:{h16}:){{6}}{ls32}"
        f"|::(?:{h16}:){{5}}{ls32}"
        f"|(?:{h16})?::(?:{h16}:){{4}}{ls32}"
        f"|(?:(?:{h16}:){{0,1}}{h16})?::(?:{h16}:){{3}}{ls32}"
        f"|(?:(?:{h16}:){{0,2}}{h16})?::(?:{h16}:){{2}}{ls32}"
        f"|(?:(?:{h16}:){{0,3}}{h16})?::{h16}:{ls32}"
        f"|(?:(?:{h16}:){{0,4}}{h16})?::{ls32}"
        f"|(?:(?:{h16}:){{0,5}}{h16})?::{h16}"
        f"|(?:(?:{h16}:){{0,6}}{h16})?::)"
    )


def _ipv4_format() -> FormatResult:
    return FormatResult(_rx(_IPV4), True, "dotted-quad IPv4, octets 0–255 without leading zeros")


def _ipv6_format() -> FormatResult:
    return FormatResult(
        _rx(_ipv6(_IPV4)), True, "RFC 4291 IPv6 text form with :: compression and embedded IPv4, no zone"
    )


def _email() -> FormatResult:
    any_string = repeat(ANY_CHAR, 0, None)
    return FormatResult(
        seq(any_string, literal("@"), any_string),
        True,
        "any string containing '@' (the checker's whole test; RFC 5321 is far stricter)",
    )


# -- host names ---------------------------------------------------------------------------------------


def _hostname() -> FormatResult:
    # fqdn lowercases, then matches [-A-Z\d] case-insensitively with Unicode \d: ASCII letters and
    # digits, every decimal digit, and three characters that case-fold into ASCII letters.
    label_chars = cs.union(cs.general_category("Nd"), ((0x41, 0x5A), (0x61, 0x7A), (0x131, 0x131)))
    label_chars = cs.union(label_chars, ((0x17F, 0x17F), (0x212A, 0x212A)))
    edge = char_class(label_chars)
    inner = char_class(cs.union(label_chars, cs.single(0x2D)))
    label = seq(edge, repeat(seq(repeat(inner, 0, 61), edge), 0, 1))
    name = seq(repeat(seq(label, literal(".")), 0, None), label, repeat(literal("."), 0, 1))
    return FormatResult(
        seq(name, repeat(literal("\n"), 0, 1)),
        False,
        "dot-separated labels of 1–63 letters/digits/hyphens, no hyphen at a label's ends, optional"
        " final dot (as the fqdn package checks; its '$' also lets a final newline through); the"
        " 253-character total is not enforced",
    )


@cache
def _idna_classes() -> tuple[cs.Ranges, cs.Ranges]:
    """(code points IDNA 2008 may allow in a label, those of them that may start one).

    Gaps made only of code points unassigned in Python's Unicode tables are filled: a slightly
    wider class (the grammar is a superset anyway) with a third fewer ranges, which matters because
    the label grammar repeats the class.
    """
    from idna import idnadata

    allowed: list[tuple[int, int]] = [(0x41, 0x5A)]  # ASCII labels are lowercased before the check
    for name in ("PVALID", "CONTEXTJ", "CONTEXTO"):
        allowed.extend((r >> 32, (r & 0xFFFFFFFF) - 1) for r in idnadata.codepoint_classes[name])
    unassigned = cs.general_category("Cn")
    merged: list[tuple[int, int]] = []
    for lo, hi in cs.union(allowed):
        gap = ((merged[-1][1] + 1, lo - 1),) if merged else ()
        if gap and not cs.subtract(gap, unassigned):
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    marks = cs.union(*(cs.general_category(m) for m in ("Mn", "Mc", "Me")))
    return tuple(merged), cs.subtract(tuple(merged), cs.union(marks, cs.single(0x2D)))


def _idn_hostname() -> FormatResult:
    allowed, first = _idna_classes()
    any_c = char_class(allowed)
    last = char_class(cs.subtract(allowed, cs.single(0x2D)))
    # No hyphen at either end, none in both third and fourth place (that is for "xn--" A-labels).
    unicode_label = seq(
        char_class(first),
        repeat(
            alt(
                last,
                seq(any_c, repeat(literal("-"), 0, 1), last, repeat(seq(repeat(any_c, 0, None), last), 0, 1)),
            ),
            0,
            1,
        ),
    )
    a_label = seq(_rx("[xX][nN]--"), repeat(_rx("[A-Za-z0-9-]"), 0, None), _rx("[A-Za-z0-9]"))
    label = alt(unicode_label, a_label)
    dot = char_class([(0x2E, 0x2E), (0x3002, 0x3002), (0xFF0E, 0xFF0E), (0xFF61, 0xFF61)])
    return FormatResult(
        seq(repeat(seq(label, dot), 0, None), label, repeat(dot, 0, 1)),
        False,
        "labels of IDNA 2008 PVALID/CONTEXTJ/CONTEXTO code points (or xn-- A-labels), no combining"
        " mark first, hyphen rules, any of the four dots; contextual rules, Bidi, NFC, Punycode"
        " validity and the 63/253 length limits are left to validation",
    )


# -- URIs and IRIs (RFC 3986 / 3987) ----------------------------------------------------------------

_PCT = "%[0-9A-Fa-f]{2}"
_SUB = "!$&'()*+,;="
# rfc3986-validator's own expression (RFC 3986; its IPv4 inside IPv6 allows leading zeros, its
# IPvFuture a lowercase "v" only), with reg-name absorbing its separate IPv4 branch.
_DEC_OCTET_LAX = "(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
_IPV6_LAX = _ipv6(rf"(?:{_DEC_OCTET_LAX}\.){{3}}{_DEC_OCTET_LAX}")
_AUTHORITY = (
    rf"(?:(?:[a-zA-Z0-9_.~\-{_SUB}:]|{_PCT})*@)?"
    rf"(?:\[(?:{_IPV6_LAX}|v[0-9A-Fa-f]+\.[a-zA-Z0-9_.~\-{_SUB}:]+)\]|(?:[a-zA-Z0-9_.~\-{_SUB}]|{_PCT})*)"
    r"(?::[0-9]*)?"
)
_PCHAR = rf"(?:[a-zA-Z0-9_.~\-{_SUB}:@]|{_PCT})"
_QUERY = rf"(?:[a-zA-Z0-9_.~\-{_SUB}:@/?]|{_PCT})*"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
_URI = (
    rf"[a-zA-Z][a-zA-Z0-9+.-]*:(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?"
    rf"|{_PCHAR}+(?:/{_PCHAR}*)*|){_TAIL}"
)
_RELATIVE_REF = (
    rf"(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?"
    rf"|(?:[a-zA-Z0-9_.~\-{_SUB}@]|{_PCT})+(?:/{_PCHAR}*)*|){_TAIL}"
)


def _uri() -> FormatResult:
    return FormatResult(
        _rx(rf"{_URI}\n?"),
        True,
        "RFC 3986 URI as rfc3986-validator matches it (its '$' also lets a final newline through)",
    )


def _uri_reference() -> FormatResult:
    return FormatResult(
        _rx(rf"(?:{_URI}|{_RELATIVE_REF})\n?"),
        True,
        "RFC 3986 URI-reference as rfc3986-validator matches it (a final newline tolerated)",
    )


_UCSCHAR = _ranges_text(
    (
        (0xA0, 0xD7FF),
        (0xF900, 0xFDCF),
        (0xFDF0, 0xFFEF),
        *((plane << 16, (plane << 16) + 0xFFFD) for plane in range(1, 14)),
        (0xE1000, 0xEFFFD),
    )
)
_IPRIVATE = _ranges_text(((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)))
_IUNRESERVED = rf"[A-Za-z0-9\-._~{_UCSCHAR}]"
_IPCHAR = rf"(?:[A-Za-z0-9\-._~{_UCSCHAR}{_SUB}:@]|{_PCT})"
_IAUTHORITY = (
    rf"(?:(?:[A-Za-z0-9\-._~{_UCSCHAR}{_SUB}:]|{_PCT})*@)?"
    rf"(?:\[(?:{_ipv6(_IPV4)}|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~{_SUB}:]+)\]"
    rf"|(?:[A-Za-z0-9\-._~{_UCSCHAR}{_SUB}]|{_PCT})*)(?::[0-9]*)?"
)
_IPATHS = rf"/(?:{_IPCHAR}+(?:/{_IPCHAR}*)*)?"
_ITAIL = rf"(?:\?(?:{_IPCHAR}|[{_IPRIVATE}/?])*)?(?:#(?:{_IPCHAR}|[/?])*)?"
_IRI = (
    rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{_IAUTHORITY}(?:/{_IPCHAR}*)*|{_IPATHS}"
    rf"|{_IPCHAR}+(?:/{_IPCHAR}*)*|){_ITAIL}"
)
_IRELATIVE_REF = (
    rf"(?://{_IAUTHORITY}(?:/{_IPCHAR}*)*|{_IPATHS}"
    rf"|(?:[A-Za-z0-9\-._~{_UCSCHAR}{_SUB}@]|{_PCT})+(?:/{_IPCHAR}*)*|){_ITAIL}"
)
_IRI_REASON = (
    "RFC 3987 {}; wider than the checker's rfc3987-syntax grammar, which lacks most '::' IPv6"
    " forms, an uppercase IPvFuture 'V' and non-BMP ucschar/iprivate (the suite counts them valid)"
)


def _iri() -> FormatResult:
    return FormatResult(_rx(_IRI), False, _IRI_REASON.format("IRI"))


def _iri_reference() -> FormatResult:
    return FormatResult(_rx(f"{_IRI}|{_IRELATIVE_REF}"), False, _IRI_REASON.format("IRI-reference"))


# -- URI templates (RFC 6570, as the uri-template package validates) ----------------------------------

# Each "{…}" body is split on ","; a varspec is name [":" 1–3 digits not all 0 | "*" | "[]"]
# ["=" default]; one trailing joiner (, . / ; &) is dropped first; a body that does not start with
# an operator must not hold a newline except as its last character (the package's ".*$" test).
_VARNAME = rf"(?:[A-Za-z0-9_]|{_PCT})(?:[A-Za-z0-9_./]|{_PCT})*"
_VARNAME_END = rf"(?:[A-Za-z0-9_]|{_PCT})(?:(?:[A-Za-z0-9_./]|{_PCT})*(?:[A-Za-z0-9_]|{_PCT}))?"
_MODIFIER = r"(?::(?:[0-9]{0,2}[1-9]|0?[1-9][0-9]|[1-9][0-9]{2,3})|\*|\[\])"


def _varlist(default: str, last_default_end: str) -> str:
    """Varspecs joined by ',' (their defaults over ``default``), plus the trailing-joiner rule."""
    varspec = f"{_VARNAME}{_MODIFIER}?(?:={default}*)?"
    # the last varspec must not end in a joiner unless one more joiner follows it
    last = f"(?:{_VARNAME_END}|{_VARNAME}{_MODIFIER}|{_VARNAME}{_MODIFIER}?={last_default_end})"
    return f"(?:(?:{varspec},)*{last}|(?:{varspec},)*{varspec}[,./;&])"


_DEFAULT_CHAR = "[^,}]"
_DEFAULT_END = "(?:[^,}]*[^,}./;&]|)"
_SIMPLE_DEFAULT = "[^,}\\n]"
_SIMPLE_DEFAULT_END = "(?:[^,}\\n]*[^,}./;&\\n]|[^,}\\n]*\\n|)"
_EXPRESSION = (
    rf"\{{(?:(?:[+#./;?&]|,\+?){_varlist(_DEFAULT_CHAR, _DEFAULT_END)}"
    rf"|{_varlist(_SIMPLE_DEFAULT, _SIMPLE_DEFAULT_END)})\}}"
)


def _uri_template() -> FormatResult:
    return FormatResult(
        _rx(f"(?:[^{{}}]|{_EXPRESSION})*"),
        False,
        "literals of any character but braces and '{…}' expressions as the uri-template package"
        " checks them, plus two RFC 6570 forms it rejects and the suite counts valid: a varname"
        " starting with a %XX triplet and a 4-digit prefix length",
    )


# -- JSON pointers --------------------------------------------------------------------------------------

_JSON_POINTER = "(?:/(?:[^~]|~[01])*)*"


def _json_pointer() -> FormatResult:
    return FormatResult(
        _rx(_JSON_POINTER), True, "RFC 6901 JSON Pointer: '/'-prefixed tokens, '~' only as ~0 ~1"
    )


@cache
def _digit_sets() -> tuple[cs.Ranges, cs.Ranges]:
    """(characters with str.isdigit(), decimal digits of non-zero value)."""
    decimal = cs.general_category("Nd")
    other = [
        (cp, cp) for lo, hi in cs.general_category("No") for cp in range(lo, hi + 1) if chr(cp).isdigit()
    ]
    zeros = [(cp, cp) for lo, hi in decimal for cp in range(lo, hi + 1) if unicodedata.decimal(chr(cp)) == 0]
    return cs.union(decimal, other), cs.subtract(decimal, cs.union(zeros))


def _relative_json_pointer() -> FormatResult:
    # jsonschema's own loop: str.isdigit() characters; a digit may only follow a non-zero decimal
    # digit (so it rejects "100", which the RFC draft and the suite accept: [1-9][0-9]* is added).
    digits, nonzero = _digit_sets()
    prefix = alt(
        seq(repeat(char_class(nonzero), 0, None), char_class(digits)),
        _rx("[1-9][0-9]*"),
    )
    return FormatResult(
        seq(prefix, alt(literal("#"), _rx(_JSON_POINTER))),
        False,
        "relative JSON pointer: an integer prefix then '#' or a JSON pointer; the prefix is what"
        " jsonschema's loop accepts (any Unicode digits, no digit after a zero) plus RFC-valid"
        " integers such as 100",
    )


# -- the rest -----------------------------------------------------------------------------------------


@cache
def _uuid_chars() -> cs.Ranges:
    spaces = [
        (cp, cp)
        for cat in ("Zs", "Zl", "Zp", "Cc")
        for lo, hi in cs.general_category(cat)
        for cp in range(lo, hi + 1)
        if chr(cp).isspace()
    ]
    extra = [(ord(c), ord(c)) for c in "-{}urnid:+_xX"]
    return cs.union(((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)), cs.general_category("Nd"), spaces, extra)


def _uuid() -> FormatResult:
    x = char_class(_uuid_chars())
    hyphen = literal("-")
    return FormatResult(
        seq(*(part for n in (8, 4, 4, 4) for part in (repeat(x, n, n), hyphen)), repeat(x, 0, None)),
        False,
        "hyphens at offsets 8, 13, 18, 23 over the characters uuid.UUID() can digest (hex and other"
        " decimal digits, 'urn:'/'uuid:', braces, extra hyphens, sign, '_', '0x', spaces): the checker"
        " accepts far more than the canonical 8-4-4-4-12 form, so the grammar does too",
    )


def _regex() -> FormatResult:
    return FormatResult(
        repeat(ANY_CHAR, 0, None),
        False,
        "any string: regex syntax (balanced groups) is not a regular language and is left to validation",
    )


_FORMATS: dict[str, Callable[[], FormatResult]] = {
    "date": _date,
    "time": _time,
    "date-time": _date_time,
    "duration": _duration,
    "email": _email,
    "idn-email": _email,
    "hostname": _hostname,
    "idn-hostname": _idn_hostname,
    "ipv4": _ipv4_format,
    "ipv6": _ipv6_format,
    "uuid": _uuid,
    "uri": _uri,
    "uri-reference": _uri_reference,
    "iri": _iri,
    "iri-reference": _iri_reference,
    "uri-template": _uri_template,
    "json-pointer": _json_pointer,
    "relative-json-pointer": _relative_json_pointer,
    "regex": _regex,
}
