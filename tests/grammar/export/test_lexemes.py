"""The lexer-exactness analysis behind the Lark export (gramwright.grammar.export.lexemes).

The engine-free tests pin what the analysis decides; the ``bench`` ones show on llguidance itself
that the decisions matter: the naive reading of the same grammar rejects documents the grammar
accepts, and the chosen view does not.
"""

from __future__ import annotations

import pytest

from gramwright.grammar.analysis import prepare
from gramwright.grammar.export.charnfa import CharNFA, lead_byte_closure
from gramwright.grammar.export.lark import emit_lark
from gramwright.grammar.export.lexemes import LexView, choose_view, conflicts, regular_rules
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.grammar.ir import Grammar


def g(text: str) -> Grammar:
    return prepare(parse_gbnf(text))


def test_overlapping_literals_are_split() -> None:
    grammar = g('root ::= "a" "b" | "ab" "c"')
    _, view = choose_view(grammar)
    assert view.split == frozenset({"ab"})


def test_self_extending_terminal_is_demoted() -> None:
    grammar = g('root ::= a b\na ::= [a]+\nb ::= "ab"')
    candidates, view = choose_view(grammar)
    assert candidates == {"a", "b"}
    assert view.demoted == frozenset({"a"})


def test_conflict_across_occurrences_of_an_ambiguous_prefix() -> None:
    # After "36" the parse is ambiguous (year or leap year), so "-" and "-02-29" are offered
    # together although no single occurrence is followed by both.
    grammar = g('root ::= year "-" [0-9] | leap "-02-29"\nyear ::= [0-9] [0-9]\nleap ::= [0-9] [26]')
    found = conflicts(grammar, regular_rules(grammar) - {"root"}, LexView())
    assert any(c.extends == ("lit", "-02-29") for c in found), [c.describe() for c in found]


@pytest.mark.parametrize(
    "text",
    [
        'root ::= "[" ws "1" ws "]"\nws ::= "" | " " | "\\n" [ \\t]{0,3}',
        'root ::= string (":" string)*\nstring ::= "\\"" [a-z]* "\\""',
        'root ::= number ("," number)*\nnumber ::= "-"? [0-9]+',
    ],
)
def test_self_delimiting_terminals_stay_terminals(text: str) -> None:
    grammar = g(text)
    candidates, view = choose_view(grammar)
    assert candidates and view == LexView()


def test_json_and_bundled_grammars_need_no_demotion() -> None:
    from gramwright.grammar.bundled import bundled_names, load_bundled

    for name in bundled_names():
        assert choose_view(prepare(load_bundled(name)))[1] == LexView(), name


def test_recursive_rules_are_not_regular() -> None:
    grammar = g('root ::= value\nvalue ::= "[" value? "]" | num\nnum ::= [0-9]+')
    assert regular_rules(grammar) == {"num"}


def test_lead_byte_closure_widens_to_the_first_utf8_byte() -> None:
    assert lead_byte_closure(((ord("a"), ord("a")),)) == ((ord("a"), ord("a")),)
    assert lead_byte_closure(((0xE9, 0xE9),)) == ((0xC0, 0xFF),)  # é shares 0xC3 with À..ÿ
    assert lead_byte_closure(((0x1F600, 0x1F600),)) == ((0x10000, 0x3FFFF),)


def test_char_nfa_facts() -> None:
    nfa = CharNFA(parse_gbnf('root ::= "\\"" [a-z]{0,3} "\\""').rules["root"], lambda n: Grammar({}).rules[n])
    assert nfa.first() == ((ord('"'), ord('"')),)
    assert not nfa.max_one_char()
    assert ord("b") in {cp for lo, hi in nfa.continuations() for cp in range(lo, hi + 1)}


# ---- the same decisions, on llguidance -------------------------------------------------------


def _llguidance_accepts(lark: str, doc: str) -> bool:
    from gramwright.serving.engines import load_in_engine

    return load_in_engine("llguidance", "lark", lark).check(doc.encode()).accepted


@pytest.mark.bench
@pytest.mark.parametrize(
    ("text", "naive", "doc"),
    [
        ('root ::= "a" "b" | "ab" "c"', 'start: "a" "b" | "ab" "c"\n', "ab"),
        ('root ::= a b\na ::= [a]+\nb ::= "ab"', 'start: A B\nA: /[a]/+\nB: "ab"\n', "aab"),
    ],
)
def test_greedy_lexer_needs_the_view(text: str, naive: str, doc: str) -> None:
    pytest.importorskip("llguidance")
    assert not _llguidance_accepts(naive, doc)  # what a plain translation gets wrong
    assert _llguidance_accepts(emit_lark(g(text)).text, doc)
