"""The engine's keys (engine/keys.py): which rule states may share token masks, within one grammar
and across grammars, and how unrolled repetitions fold within a token's reach."""

from __future__ import annotations

import pytest

from gramwright.engine.keys import StateKeys
from gramwright.grammar.ir import Expr, Grammar, Ref, char_class, literal, repeat, seq
from gramwright.recognizer import CompiledGrammar, compile_grammar
from gramwright.recognizer import nfa as nfa_module

LOWER = ((0x61, 0x7A),)
DIGITS = ((0x30, 0x39),)


def _string(cls: tuple[tuple[int, int], ...] = LOWER, hi: int = 40) -> Expr:
    return seq(literal('"'), repeat(char_class(cls), 0, hi), literal('"'))


def _top(cg: CompiledGrammar, data: bytes) -> int:
    """The one rule state on top of the stacks after ``data``."""
    config = cg.walk(cg.initial, data)
    (state,) = {cg.frame_state(f) for f in cg.config_frames[config]}
    return state


PAIR = Grammar(
    {
        "root": seq(literal("{"), Ref("s1"), literal(","), Ref("s2"), literal("}")),
        "s1": _string(),
        "s2": _string(),
    }
)


def test_rules_with_equal_bodies_share_a_canonical_state() -> None:
    cg = compile_grammar(PAIR)
    keys = StateKeys(cg)
    first, second = _top(cg, b'{"ab'), _top(cg, b'{"",' + b'"ab')
    assert cg.rule_name_of(first) == "s1" and cg.rule_name_of(second) == "s2"
    assert keys.canonical_state(first) == keys.canonical_state(second)
    assert keys.canonical_state(first, 8) == keys.canonical_state(second, 8)
    assert keys.is_leaf(first)  # the string rule calls no other rule


def test_signatures_name_the_same_strings_in_any_grammar() -> None:
    other = compile_grammar(Grammar({"root": seq(literal("["), Ref("t"), literal("]")), "t": _string()}))
    digits = compile_grammar(
        Grammar({"root": seq(literal("["), Ref("t"), literal("]")), "t": _string(DIGITS)})
    )
    cg = compile_grammar(PAIR)
    sig = StateKeys(cg).state_signature(_top(cg, b'{"ab'), 8)
    assert sig is not None
    assert StateKeys(other).state_signature(_top(other, b'["ab'), 8) == sig
    assert StateKeys(digits).state_signature(_top(digits, b'["12'), 8) != sig


def test_far_copies_of_a_repetition_fold_within_the_horizon_and_the_end_does_not() -> None:
    cg = compile_grammar(PAIR)
    keys = StateKeys(cg)
    two, three = _top(cg, b'{"ab'), _top(cg, b'{"abc')
    near = _top(cg, b'{"' + b"a" * 38)
    assert two != three and keys.canonical_state(two) != keys.canonical_state(three)
    # more than a horizon's worth of copies left: no 4-byte token can tell them apart
    assert keys.quotient_state(two, 4) == keys.quotient_state(three, 4)
    assert keys.canonical_state(two, 4) == keys.canonical_state(three, 4)
    assert keys.near_end(two) == 38 and keys.near_end(near) == 2
    assert keys.canonical_state(near, 4) != keys.canonical_state(two, 4)
    labels = keys.horizon_labels(4)
    assert len(labels) == cg.nfa.num_states and labels != list(range(cg.nfa.num_states))


def test_names_do_not_depend_on_the_order_rules_are_built_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large grammar's NFA builds a rule when it is first asked for, so state numbers depend on
    the order rules were met; the keys that leave the process (signatures, canonical names) must
    not."""
    monkeypatch.setattr(nfa_module, "EAGER_MAX_RULES", 0)  # built as a large grammar's is
    lazy = CompiledGrammar(PAIR)  # not compile_grammar: that one is memoised per grammar
    eager = CompiledGrammar(PAIR)
    for rule in reversed(range(len(eager.nfa.rule_names))):  # the opposite order of a walk
        eager.nfa.start(rule)
    assert eager.nfa.build_all().num_states > 0
    assert not all(lazy.nfa.built(r) for r in range(len(lazy.nfa.rule_names)))
    for data in (b'{"ab', b'{"",' + b'"ab', b'{"' + b"a" * 38):
        a, b = _top(lazy, data), _top(eager, data)
        ka, kb = StateKeys(lazy), StateKeys(eager)
        assert lazy.state_members(a) != eager.state_members(b)  # other numbers …
        for horizon in (None, 8):
            assert ka.state_signature(a, horizon) == kb.state_signature(b, horizon)  # … same names
            assert ka.canonical_name(a, horizon) == kb.canonical_name(b, horizon)
            assert ka.near_end(a) == kb.near_end(b)


def test_a_rule_folds_exactly_when_its_labels_move_a_state() -> None:
    """``folds`` (noted while the labels are made) against its definition (a scan of the rule's
    states), for rules built before and after the labels were first asked, at several horizons:
    a repetition unrolled past the horizon folds, a short one or none does not."""
    grammar = Grammar(
        {
            "root": seq(Ref("long"), literal(","), Ref("short"), literal(","), Ref("plain"), Ref("late")),
            "long": _string(hi=40),
            "short": _string(hi=3),
            "plain": seq(literal("x"), char_class(DIGITS)),
            "late": seq(literal("["), repeat(Ref("plain"), 2, 30), literal("]")),
        }
    )
    cg = compile_grammar(grammar)
    keys = StateKeys(cg)
    nfa = cg.nfa
    early = {h: keys.folds(0, h) for h in (2, 8, 64)}  # before every rule is built
    cg.walk(cg.initial, b'"abc","ab",x1[x1x2x3]')
    built = [r for r in range(len(nfa.rule_names)) if nfa.rule_start[r] >= 0]
    assert len(built) == len(nfa.rule_names)
    for horizon in (2, 8, 64):
        labels = keys.horizon_labels(horizon)
        for rule in built:
            expected = any(labels[s] != s for s in range(nfa.start(rule), nfa.end(rule)))
            assert keys.folds(rule, horizon) == expected, (nfa.rule_names[rule], horizon)
        assert early[horizon] == keys.folds(0, horizon)
    names = nfa.rule_names
    assert keys.folds(names.index("long"), 8) and keys.folds(names.index("late"), 8)
    assert not keys.folds(names.index("short"), 8) and not keys.folds(names.index("plain"), 8)
