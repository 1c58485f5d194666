"""The gbnf export target: the same language as the IR, in the spelling every reader shares.

Engine-free here: the recognizer judges the export read back with our GBNF parser against the
grammar it came from. tests/serving/test_differential.py loads the same texts in the engines.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gramwright.grammar.analysis import prepare
from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.grammar.export.gbnf import LLAMA_CPP_MAX_REPEAT, bounded_repeat, emit_gbnf_export
from gramwright.grammar.export.requests import llguidance_reads_gbnf_exactly
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.grammar.ir import CharClass, Grammar, Literal, Repeat, walk
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.serving.samples import mutate, sample_document
from tests.support.gbnf import escapes


def accepts(g: Grammar, text: str) -> bool:
    rec = Recognizer(compile_grammar(g))
    return rec.try_feed(text.encode()) and rec.is_accepting()


def same_language_on_samples(original: Grammar, exported_text: str, n: int = 40) -> None:
    back = prepare(parse_gbnf(exported_text))
    rnd = random.Random(exported_text[:50])
    for i in range(n):
        doc = sample_document(original, lambda k: rnd.randrange(k))
        if i % 2:
            doc = mutate(doc, lambda k: rnd.randrange(k))
        assert accepts(back, doc) == accepts(original, doc), doc


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_export_means_the_same(name: str) -> None:
    g = prepare(load_bundled(name))
    same_language_on_samples(g, emit_gbnf_export(g))


def test_names_are_portable() -> None:
    g = prepare(
        parse_gbnf(
            'top ::= fooBar foo-bar 9x true start\nfooBar ::= "a"\nfoo-bar ::= "b"\n'
            '9x ::= "c"\ntrue ::= "d"\nstart ::= "e"',
            root="top",
        )
    )
    text = emit_gbnf_export(g)
    names = [line.split(" ::= ")[0] for line in text.splitlines()]
    assert names[0] == "root"
    assert all(n[0].isalpha() and n == n.lower() for n in names)
    assert not {"true", "false", "start"} & set(names)
    assert len({n.replace("-", "_") for n in names}) == len(names)  # llguidance folds - into _
    assert accepts(prepare(parse_gbnf(text)), "abcde")


@pytest.mark.parametrize(("lo", "hi"), [(0, 2500), (3, 4321), (2300, 2300), (2001, None), (0, 5000)])
def test_large_bounds_are_rewritten_exactly(lo: int, hi: int | None) -> None:
    expr = bounded_repeat(Literal("a"), lo, hi)
    for node in walk(expr):
        if isinstance(node, Repeat):
            assert node.min <= LLAMA_CPP_MAX_REPEAT and (node.max is None or node.max <= LLAMA_CPP_MAX_REPEAT)
    g = Grammar({"root": expr})
    top = (hi if hi is not None else lo + 50) + 1
    for n in {0, 1, lo - 1, lo, lo + 1, 999, 1000, 1001, 1999, 2000, 2001, top - 1, top}:
        if n >= 0:
            assert accepts(g, "a" * n) == (lo <= n and (hi is None or n <= hi)), n


def test_control_characters_before_hex_digits_are_cut() -> None:
    g = Grammar({"root": Literal("\x01b\x7f9-")})
    text = emit_gbnf_export(g)
    assert '"\\x01" "b\\x7F" "9-"' in text
    assert accepts(prepare(parse_gbnf(text)), "\x01b\x7f9-")


def test_class_members_never_put_a_hex_digit_after_an_x_escape() -> None:
    cls = CharClass(
        ((0x00, 0x1F), (ord("-"), ord("-")), (ord("0"), ord("9")), (ord("^"), ord("^")), (0x61, 0x7F))
    )
    text = emit_gbnf_export(Grammar({"root": cls}))
    body = text.split(" ::= ")[1].strip()
    for i in range(len(body) - 4):
        if body[i : i + 2] == "\\x":
            assert body[i + 4] not in "0123456789abcdefABCDEF", body
    back = prepare(parse_gbnf(text))
    for cp in range(0x80):
        assert accepts(back, chr(cp)) == cls.contains(cp), hex(cp)


def test_nested_repetition_keeps_its_group() -> None:
    g = prepare(parse_gbnf('root ::= ("a"{1,4})?'))
    text = emit_gbnf_export(g)
    assert '"a"{1,4} ""' in text
    assert accepts(prepare(parse_gbnf(text)), "aa") and accepts(prepare(parse_gbnf(text)), "")


def test_llguidance_reading_is_exact_by_construction() -> None:
    # "-" ends a year where "-02-29" goes on: the export writes the literal char by char.
    g = prepare(
        parse_gbnf('root ::= year "-" [0-9] | leap "-02-29"\nyear ::= [0-9] [0-9]\nleap ::= [0-9] [26]')
    )
    assert llguidance_reads_gbnf_exactly(g) == []
    assert '"-" "0" "2" "-" "2" "9"' in emit_gbnf_export(g)


def test_deep_nesting_is_flattened_or_hoisted() -> None:
    from gramwright.grammar.export.depth import MAX_DEPTH, expr_depth
    from gramwright.grammar.export.gbnf import portable_grammar

    body = "".join(f'("" | "{c}" ' for c in "abcdefghijklmnopqrstuvwxyzabcdef") + '"!"' + ")" * 32
    g = prepare(parse_gbnf(f'root ::= {body} tail\ntail ::= "[" tail? "]"'))
    p = portable_grammar(g)
    assert max(expr_depth(b) for b in p.rules.values()) <= 2 * MAX_DEPTH
    same_language_on_samples(g, emit_gbnf_export(g))


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6))
@example("\\U")  # a backslash then U: the export's escaped backslash, not a \U escape
@example("\x00\u00e9\U0001f600")
def test_any_literal_round_trips(text: str) -> None:
    exported = emit_gbnf_export(Grammar({"root": Literal(text)}))
    # spellings llguidance's converter breaks: \u0… and \U… escapes
    assert not [e for e in escapes(exported) if e.startswith(("\\u0", "\\U"))], exported
    assert accepts(prepare(parse_gbnf(exported)), text)


def test_exactness_is_reported() -> None:
    from gramwright.grammar.export.gbnf import gbnf_exactness

    assert gbnf_exactness(prepare(load_bundled("json"))) == ""
    g = prepare(
        parse_gbnf('root ::= year "-" [0-9] | leap "-02-29"\nyear ::= [0-9] [0-9]\nleap ::= [0-9] [26]')
    )
    assert gbnf_exactness(g) == ""  # made exact (the literal split), so nothing to report
