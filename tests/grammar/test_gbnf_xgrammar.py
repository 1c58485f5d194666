"""Our canonical GBNF, read by a second implementation: xgrammar's EBNF parser (the bench oracle).

Loading proves the text is in the shared dialect; matching strings through xgrammar proves it
*means* what our IR means (escapes included) and that the bundled grammars say what their comments
say. ``xgrammar.testing._is_grammar_accept_string`` is a private helper of xgrammar's own tests.

Where xgrammar and llama.cpp disagree, the emitter writes what both read alike (``\\uHHHH``, never
the greedy ``\\xHH``); what cannot be written otherwise is pinned in
``test_known_xgrammar_rejections`` and kept out of the random grammars here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gramwright.grammar.bundled import bundled_names, bundled_path, load_bundled
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.grammar.ir import CharClass, Grammar, Literal, char_class
from tests.support.gbnf import char_classes, characters, escapes, grammars
from tests.support.json_values import json_values

xgr = pytest.importorskip("xgrammar")
xgr_testing = pytest.importorskip("xgrammar.testing")

pytestmark = pytest.mark.bench

# xgrammar's lexer: names may not start with a digit, and `true`/`false` are boolean literals.
XGRAMMAR_NAMES = st.from_regex(r"[a-zA-Z-][a-zA-Z0-9-]{0,7}", fullmatch=True).filter(
    lambda n: n not in ("true", "false")
)


def load(text: str) -> Any:
    return xgr.Grammar.from_ebnf(text, root_rule_name="root")


def accepts(text: str, sample: str) -> bool:
    return bool(xgr_testing._is_grammar_accept_string(text, sample))


# ---- loading ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_grammar_loads(name: str) -> None:
    load(emit_gbnf(load_bundled(name)))
    load(bundled_path(name).read_text(encoding="utf-8"))  # the commented source as well


@settings(max_examples=200, deadline=None)
@given(grammars(names=XGRAMMAR_NAMES, dot=False))
def test_random_emitted_grammar_loads(g: Grammar) -> None:
    load(emit_gbnf(g))


@pytest.mark.parametrize(
    "text",
    [
        "root ::= .",  # llama.cpp: any character; xgrammar lexes '.' as a name character
        'root ::= 9a\n9a ::= "x"',  # llama.cpp names may start with a digit
        'root ::= true\ntrue ::= "x"',  # xgrammar reads true/false as boolean literals
    ],
)
def test_known_xgrammar_rejections(text: str) -> None:
    """Pinned so that an xgrammar release that lifts one shows up here (then update the docs)."""
    with pytest.raises(RuntimeError):
        load(text)


# ---- meaning: escapes -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text(characters(surrogates=False), max_size=8))
@example("\\x")  # an escaped backslash before ``x`` is no ``\x`` escape
def test_emitted_literal_means_the_same(text: str) -> None:
    gbnf = emit_gbnf(Grammar({"root": Literal(text)}))
    # xgrammar reads \x greedily ("\x01b" is U+001B there)
    assert not [e for e in escapes(gbnf) if e.startswith("\\x")], gbnf
    assert accepts(gbnf, text)
    assert not accepts(gbnf, text + "a")


def assert_class_means_the_same(cls: CharClass, points: set[int]) -> None:
    gbnf = emit_gbnf(Grammar({"root": cls}))
    for cp in points:
        if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:  # surrogates have no UTF-8 form
            assert accepts(gbnf, chr(cp)) == cls.contains(cp), (gbnf, hex(cp))


@settings(max_examples=150, deadline=None)
@given(char_classes(dot=False, surrogates=False), st.data())
def test_emitted_class_means_the_same(cls: CharClass, data: st.DataObject) -> None:
    # The ends, one point inside and the neighbours just outside (ranges are never adjacent).
    points = {cp for lo, hi in cls.ranges for cp in (lo, hi, data.draw(st.integers(lo, hi)), lo - 1, hi + 1)}
    assert_class_means_the_same(cls, points)


@pytest.mark.parametrize(
    "members",
    ["^", "^a", "!-a", "]", "a]b", "\\", "[", "-", "\x00\x1f\x7f", "\u2028\U0010ffff"],
)
@pytest.mark.parametrize("negated", [False, True])
def test_tricky_class_means_the_same(members: str, negated: bool) -> None:
    cls = char_class([(ord(c), ord(c)) for c in members], negated)
    assert_class_means_the_same(cls, {ord(c) + d for c in members for d in (-1, 0, 1)} | {ord("a")})


# ---- meaning: the bundled grammars ----------------------------------------------------------------

JSON_VALUES = json_values(int_bound=10**20, text_size=6, key_size=4, container_size=3, max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(JSON_VALUES, st.booleans())
def test_json_grammar_accepts_json(value: object, ascii_only: bool) -> None:
    gbnf = emit_gbnf(load_bundled("json"))
    assert accepts(gbnf, json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":")))
    assert accepts(gbnf, json.dumps(value, ensure_ascii=ascii_only))
    # Pretty-printed: indentation fits the 20-character bound up to depth 10.
    assert accepts(gbnf, json.dumps(value, ensure_ascii=ascii_only, indent=1))


@pytest.mark.parametrize(
    "sample",
    ['{"a":[1,-0.5e+3,true,null]}', '"\\u00e9\\/\\b\\f\\n\\r\\t\\"\\\\"', '"\x7f"', "[\n\t1 ]", "0", "-0E-0"],
)
def test_json_grammar_accepts(sample: str) -> None:
    assert accepts(emit_gbnf(load_bundled("json")), sample)


@pytest.mark.parametrize(
    "sample",
    [
        "01",
        "1.",
        ".5",
        "+1",
        "1e",
        "[1,]",
        '{"a":1,}',
        "{a:1}",
        '"\x1f"',
        '"\\x41"',
        '"\\u12"',
        "'a'",
        " 1",  # no whitespace around the top-level value
        "1\n",
        "[1,\n" + " " * 21 + "2]",  # more than 20 spaces of indentation
        "[  1]",  # two spaces: not one of the whitespace shapes
        "NaN",
        "True",
    ],
)
def test_json_grammar_rejects(sample: str) -> None:
    assert not accepts(emit_gbnf(load_bundled("json")), sample)


@pytest.mark.parametrize(
    ("sample", "ok"),
    [
        ("1", True),
        ("2 * (3 + 4.5) / -1", True),
        ("-(0.25)-1", True),
        ("((1))", True),
        ("01", False),
        ("1 +", False),
        ("(1", False),
        ("1  + 2", False),
        ("--1", False),
        ("1.", False),
        ("2^3", False),
    ],
)
def test_arithmetic_grammar(sample: str, ok: bool) -> None:
    assert accepts(emit_gbnf(load_bundled("arithmetic")), sample) == ok


@pytest.mark.parametrize(
    ("sample", "ok"),
    [
        ("", True),
        ("A=1\n", True),
        ('# db\nDB_HOST = localhost\n\nGREETING="hi \\"you\\"\\n"\nEMPTY=\napp.log-level=debug\n', True),
        ("A=1", False),  # every line ends with a newline
        ("\nA=1\n", False),  # no leading blank line
        ("A=1\n\n\n", False),  # at most one blank line in a row
        ("1A=2\n", False),
        ("A= #x\n", False),
        ('A="open\n', False),
        ("A =     1\n", False),  # at most four blanks around '='
    ],
)
def test_kv_config_grammar(sample: str, ok: bool) -> None:
    assert accepts(emit_gbnf(load_bundled("kv-config")), sample) == ok
