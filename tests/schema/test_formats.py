"""Format grammars against python-jsonschema's format checkers and the official suite.

The contract: a grammar never rejects a string either jsonschema checker accepts (``FormatChecker()``
and the draft 2020-12 one; they differ on ``time``) or one the suite marks valid; where a grammar
claims ``exact``, it accepts nothing the checkers reject.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from gramwright.grammar.ir import Grammar
from gramwright.recognizer import CompiledGrammar, Recognizer, compile_grammar
from gramwright.schema.formats import FormatResult, format_expr, known_formats
from tests.support.regex import sample

SUITE = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "data"
    / "json-schema-test-suite"
    / "tests"
    / "draft2020-12"
    / "optional"
    / "format"
)
CHECKERS = (FormatChecker(), Draft202012Validator.FORMAT_CHECKER)


@cache
def compiled(name: str) -> tuple[FormatResult, CompiledGrammar]:
    result = format_expr(name)
    assert result is not None
    return result, compile_grammar(Grammar({"root": result.expr}))


def grammar_accepts(name: str, text: str) -> bool:
    rec = Recognizer(compiled(name)[1])
    return rec.try_feed(text.encode("utf-8")) and rec.is_accepting()


def checker_verdicts(name: str, text: str) -> list[bool]:
    verdicts = []
    for checker in CHECKERS:
        try:
            verdicts.append(checker.conforms(text, name))
        except (ValueError, LookupError, TypeError):  # a checker crashing (int('²') …) did not accept
            verdicts.append(False)
    return verdicts


def check_contract(name: str, text: str) -> None:
    verdicts = checker_verdicts(name, text)
    accepted = grammar_accepts(name, text)
    if any(verdicts):
        assert accepted, f"{name}: grammar rejects {text!r}, which jsonschema accepts"
    if accepted and compiled(name)[0].exact:
        assert all(verdicts), f"{name}: exact grammar accepts {text!r}, which jsonschema rejects"


# -- the official suite ---------------------------------------------------------------------------------


def _suite_cases() -> dict[str, list[tuple[str, bool]]]:
    cases: dict[str, list[tuple[str, bool]]] = {}
    for path in sorted(SUITE.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            name = group["schema"].get("format")
            for test in group["tests"]:
                if isinstance(test["data"], str):
                    cases.setdefault(name, []).append((test["data"], test["valid"]))
    return cases


SUITE_CASES = _suite_cases() if SUITE.is_dir() else {}
# Invalid suite strings the grammars rejected when written; a drop is a regression. (Most of the
# rest are strings jsonschema accepts, which a grammar must then accept too.)
INVALID_REJECTED_FLOOR = {
    "date": 58,
    "date-time": 18,
    "time": 25,
    "duration": 15,
    "email": 1,
    "idn-email": 2,
    "hostname": 8,
    "idn-hostname": 22,
    "ipv4": 30,
    "ipv6": 25,
    "uri": 24,
    "uri-reference": 10,
    "iri": 6,
    "iri-reference": 2,
    "uri-template": 6,
    "json-pointer": 12,
    "relative-json-pointer": 11,
    "uuid": 8,
    "regex": 0,
}


@pytest.mark.data
@pytest.mark.skipif(not SUITE.is_dir(), reason="../shared/data/json-schema-test-suite is absent")
@pytest.mark.parametrize("name", sorted(INVALID_REJECTED_FLOOR))
def test_suite(name: str) -> None:
    cases = SUITE_CASES[name]
    missed = [text for text, valid in cases if valid and not grammar_accepts(name, text)]
    assert not missed, f"{name}: valid suite strings rejected: {missed}"
    rejected = sum(1 for text, valid in cases if not valid and not grammar_accepts(name, text))
    assert rejected >= INVALID_REJECTED_FLOOR[name]
    for text, _ in cases:
        check_contract(name, text)


@pytest.mark.data
@pytest.mark.skipif(not SUITE.is_dir(), reason="../shared/data/json-schema-test-suite is absent")
def test_suite_unknown_format_has_no_grammar() -> None:
    assert "unknown" in SUITE_CASES
    assert format_expr("unknown") is None


# -- hand-written cases ----------------------------------------------------------------------------------

CASES: dict[str, tuple[list[str], list[str]]] = {
    "date": (
        ["2000-02-29", "2024-02-29", "0400-02-29", "0004-02-29", "0001-01-01", "9999-12-31", "2023-04-30"],
        ["1900-02-29", "2023-02-29", "0000-01-01", "2023-04-31", "2023-13-01", "2023-1-01", "2023-01-01\n"],
    ),
    "date-time": (
        [
            "2023-01-01T00:00:00Z",
            "2023-01-01t00:00:00.5z",
            "2024-02-29T23:59:59+23:59",
            "2023-01-01T00:00:00Z\n",
        ],
        ["2023-02-29T00:00:00Z", "2023-01-01T24:00:00Z", "2023-01-01 00:00:00Z", "2023-01-01T00:00:00"],
    ),
    "time": (
        [
            "23:59:60Z",
            "00:59:60+01:00",
            "12:00:00",
            "1:2:3",
            "1\u0662:00:00",
            "\u0661:0:0",
            "10:00:00.1-05:30\n",
        ],
        ["24:00:00Z", "23:58:60Z", "23:59:60+01:00", "12:00", "12:00:00+1:00", "12:00:00\n"],
    ),
    "duration": (
        ["P1Y2M3DT4H5M6S", "P4W", "PT0.5S", "-P1D", "P0Y1W", "P1Y1D", "P1,5e2D", "P1Y2T3H"],
        ["P", "PT", "P1", "P1Y1W", "P1D1Y", "PT1D", "P1YT", "1Y", "PT1H1H", "P1.2.3D", "P1T1H"],
    ),
    "email": (["a@b", "@", "x y@@", "\u00e9@\U0001f432"], ["", "ab", "a.b.example.com"]),
    "idn-email": (["\u00e9@\u00e9.fr", "@"], ["\u00e9"]),
    "hostname": (
        ["example.com", "a", "a-b.c", "EXAMPLE.com.", "\u212aelvin.example", "\u0661\u0662", "a.b\n"],
        ["-a.com", "a-.com", "a..b", "", ".", "a_b.com", "a" * 64, "\u00e9.com"],
    ),
    "idn-hostname": (
        ["example.com", "\u00e9cole.fr", "xn--bcher-kva.example", "\u4f8b\u3002\u4f8b", "a-b"],
        ["-a", "a-", "ab--c", "a..b", "", "a b", "\u0301a"],
    ),
    "ipv4": (
        ["0.0.0.0", "255.255.255.255", "1.2.3.4"],
        ["256.0.0.0", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.\u0664"],
    ),
    "ipv6": (
        [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "1::1.2.3.4",
        ],
        [
            ":::",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "12345::",
            "::1.2.3.04",
            "::1%eth0",
            "1:2:3:4:5:6:7:8::",
            ":1::",
        ],
    ),
    "uuid": (
        ["2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2EB8AA08-AA98-11EA-B4AA-73B441D16380"],
        [
            "2eb8aa08aa9811eab4aa73b441d16380",
            "2eb8aa08-aa98-11ea-b4aa",
            "2eb8aa0-8aa98-11ea-b4aa-73b441d16380",
        ],
    ),
    "uri": (
        [
            "http://a.b/c?d#e",
            "urn:isbn:0451450523",
            "a:",
            "http://[::1]:80/",
            "http://[v7.x]/",
            "mailto:x@y\n",
        ],
        ["//a.b/c", "http://a b", "http://[v7.x", "1http:x", "http://\u00e9.fr", "http://a/%zz"],
    ),
    "uri-reference": (["", "/a/b", "a/b?c", "#frag", "//host", "http://x/y"], ["\\\\a", "a b", "#%g0"]),
    "iri": (
        ["http://\u00e9.fr/\U0001f432", "http://[2001:db8::1]/", "http://[V1.fe]", "x:?\U000f0000"],
        ["\u00e9:x", "http://a b", "http://[1.2.3.4]"],
    ),
    "iri-reference": (["", "\u00e9/x", "#\u00e9"], ["a b", "\u00e9 "]),
    "uri-template": (
        [
            "",
            "{a}",
            "x{+a,b*,c:3}/{#d}{?e,f}{&g}{;h}{.i}{/j}{,k}{,+l}",
            "{a.b/c=d}",
            "{a,}",
            "{%41}",
            "{v:1000}",
        ],
        ["{", "}", "{}", "{a b}", "{=a}", "{!a}", "{a,,b}", "{v:0}", "{v:10000}", "{a=b\nc}", "{a**}"],
    ),
    "json-pointer": (["", "/", "/a/b", "/~0~1", "//"], ["a", "/~", "/~2", "#/a"]),
    "relative-json-pointer": (
        ["0", "1/a", "0#", "100", "10", "\u0663/x"],
        ["", "/a", "01", "0##", "-1", "1#/a"],
    ),
    "regex": (["", "[", "(?i)"], []),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written(name: str) -> None:
    good, bad = CASES[name]
    for text in good:
        assert grammar_accepts(name, text), f"{name} must accept {text!r}"
        check_contract(name, text)
    for text in bad:
        assert not grammar_accepts(name, text), f"{name} must reject {text!r}"
        check_contract(name, text)


def test_every_format_has_a_reason() -> None:
    assert set(known_formats()) == set(CASES)
    for name in known_formats():
        result = format_expr(name)
        assert result is not None and result.reason
    assert format_expr("int32") is None


# -- differential fuzzing against the checkers -------------------------------------------------------------

FUZZ_ALPHABET = (
    "0123456789abcdefABCDEFxXnuvV:-./@%[]{}#?+,;=*!$&'()_~TZtzPYMDWHSeE \n"
    "\u0663\u00b2\u0661\u00e9\U0001f432\u0131\u212a\u3002\u200d\u0301\U000f0000"
)
edits = st.lists(
    st.tuples(st.sampled_from("ids"), st.integers(0, 80), st.sampled_from(FUZZ_ALPHABET)),
    max_size=4,
)


def _mutate(text: str, changes: list[tuple[str, int, str]]) -> str:
    for op, index, char in changes:
        at = index % (len(text) + 1)
        if op == "i":
            text = text[:at] + char + text[at:]
        elif text and op == "d":
            text = text[: at % len(text)] + text[at % len(text) + 1 :]
        elif text:
            text = text[: at % len(text)] + char + text[at % len(text) + 1 :]
    return text


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), changes=edits, noise=st.text(FUZZ_ALPHABET, max_size=12))
def test_fuzz_against_checkers(name: str, seed: int, changes: list[tuple[str, int, str]], noise: str) -> None:
    rnd = random.Random(seed)
    result, _ = compiled(name)
    bases = [text for text, _ in SUITE_CASES.get(name, [])] + CASES[name][0]
    drawn = sample(result.expr, rnd)
    if drawn is not None:
        check_contract(name, drawn)
        bases.append(drawn)
    base = rnd.choice(bases)
    check_contract(name, _mutate(base, changes))
    check_contract(name, noise)


# -- the Unicode sets, checked against the libraries code point by code point -------------------------------


def _code_points(rnd: random.Random, count: int) -> list[str]:
    """``count`` random code points plus ASCII, Arabic digits and the characters the sets single out."""
    picked = {rnd.randrange(0x110000) for _ in range(count)} | set(range(0x80)) | set(range(0x660, 0x6FF))
    picked |= {0x131, 0x17F, 0x212A, 0xB2, 0x2460, 0x3002, 0xFF0E, 0xFF61, 0x200C, 0x200D, 0xB7, 0x30FB}
    return [chr(cp) for cp in sorted(picked) if not 0xD800 <= cp <= 0xDFFF]


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("hostname", "a{}b"),
        ("hostname", "{}"),
        ("idn-hostname", "a{}b"),
        ("idn-hostname", "{}"),
        ("relative-json-pointer", "{}"),
        ("relative-json-pointer", "1{}"),
        ("relative-json-pointer", "{}1/a"),
        ("time", "1{}:00:00"),
        ("uuid", "{}eb8aa08-aa98-11ea-b4aa-73b441d16380"),
        ("uri", "a:{}"),
        ("iri", "a:{}"),
        ("uri-template", "{{a={}}}"),
    ],
)
def test_single_code_points(name: str, template: str) -> None:
    count = 300 if name == "iri" else 1500  # rfc3987-syntax's Earley parser is slow
    for char in _code_points(random.Random(name + template), count):
        check_contract(name, template.format(char))
