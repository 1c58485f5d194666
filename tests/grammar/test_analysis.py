"""Grammar analyses: pruning, reachability, the empty language, left recursion."""

from __future__ import annotations

import random

import pytest

from gramwright.grammar.analysis import (
    _ordered_facts,
    find_left_recursion,
    nullable_rules,
    prepare,
    productive_rules,
    reachable_rules,
)
from gramwright.grammar.errors import EmptyLanguageError, LeftRecursionError, UndefinedRuleError
from gramwright.grammar.ir import Expr, Grammar, Ref, alt, char_class, literal, refs, repeat, seq


def test_unreachable_rules_are_dropped() -> None:
    g = Grammar({"root": literal("a"), "orphan": literal("b")})
    assert list(prepare(g).rules) == ["root"]
    assert reachable_rules(g) == ["root"]


def test_nonproductive_alternatives_are_pruned() -> None:
    g = Grammar({"root": alt(literal("ok"), Ref("loop")), "loop": seq(literal("x"), Ref("loop"))})
    assert productive_rules(g) == {"root"}
    assert prepare(g).rules == {"root": literal("ok")}


def test_root_deriving_nothing_names_the_rules() -> None:
    g = Grammar({"root": seq(literal("a"), Ref("b")), "b": seq(literal("b"), Ref("b"))})
    with pytest.raises(EmptyLanguageError) as err:
        prepare(g)
    assert err.value.nonproductive == ["root", "b"]
    assert "'root' derives no string" in str(err.value)


def test_empty_class_is_nonproductive() -> None:
    g = Grammar({"root": alt(char_class([(0xD800, 0xDFFF)]), literal("z"))})
    assert prepare(g).rules["root"] == literal("z")


def test_undefined_reference() -> None:
    with pytest.raises(UndefinedRuleError, match="nope"):
        prepare(Grammar({"root": Ref("nope")}))


def test_left_recursion_direct_and_through_nullable_prefix() -> None:
    direct = Grammar({"root": alt(seq(Ref("root"), literal("a")), literal("b"))})
    assert find_left_recursion(direct) == ["root", "root"]
    hidden = Grammar(
        {
            "root": seq(Ref("opt"), Ref("root2")),
            "opt": repeat(literal("x"), 0, 1),
            "root2": alt(seq(Ref("root"), literal("y")), literal("z")),
        }
    )
    with pytest.raises(LeftRecursionError, match="root -> root2 -> root"):
        prepare(hidden)
    right = Grammar({"root": alt(seq(literal("a"), Ref("root")), literal("b"))})
    assert find_left_recursion(right) is None


def test_nullable() -> None:
    g = Grammar({"root": seq(Ref("a"), Ref("b")), "a": repeat(literal("x"), 0, None), "b": literal("")})
    assert nullable_rules(g) == {"root", "a", "b"}


def test_fixpoints_settle_when_rules_come_before_their_witnesses() -> None:
    """A rule looked at before a rule it calls joined the set is looked at again (the fixpoints
    make one pass in rule order, then revisit only those)."""
    n = 30
    rules = {f"r{i}": alt(seq(literal("x"), Ref(f"r{i + 1}")), Ref(f"r{i + 1}")) for i in range(n)}
    rules[f"r{n}"] = alt(literal(""), literal("y"))
    g = Grammar({"root": Ref("r0"), **rules})
    assert productive_rules(g) == set(g.rules)
    assert nullable_rules(g) == set(g.rules)
    # one dead end deep down: everything above it that has no other way out is dead too
    dead = Grammar(
        {"root": Ref("a"), "a": alt(Ref("b"), seq(literal("q"), Ref("c"))), "b": Ref("c"), "c": Ref("c")}
    )
    assert productive_rules(dead) == set()


def test_prepare_keeps_bodies_with_nothing_to_drop_and_prunes_the_rest() -> None:
    keep = seq(literal("a"), Ref("b"))
    g = Grammar({"root": keep, "b": alt(literal("b"), Ref("dead")), "dead": seq(literal("d"), Ref("dead"))})
    out = prepare(g)
    assert out.rules["root"] is keep
    assert out.rules == {"root": keep, "b": literal("b")}


def _random_grammar(rnd: random.Random, n: int, forward: bool) -> Grammar:
    """Rules r0…r{n-1} (root last), each referring to earlier rules only unless ``forward``."""
    names = [f"r{i}" for i in range(n)]

    def expr(i: int, depth: int) -> Expr:
        pick = rnd.random()
        targets = names if forward else names[: i + 1]
        if depth > 2 or pick < 0.25:
            return literal(rnd.choice(["", "a", "bc"]))
        if pick < 0.45:
            return Ref(rnd.choice(targets))
        if pick < 0.55:
            return char_class([(0xD800, 0xDFFF)]) if rnd.random() < 0.3 else char_class([(0x61, 0x62)])
        if pick < 0.75:
            return seq(*(expr(i, depth + 1) for _ in range(rnd.randint(2, 3))))
        if pick < 0.9:
            return alt(*(expr(i, depth + 1) for _ in range(rnd.randint(2, 3))))
        return repeat(expr(i, depth + 1), rnd.randint(0, 1), rnd.choice([1, 2, None]))

    rules = {name: expr(i, 0) for i, name in enumerate(names)}
    rules["root"] = alt(*(Ref(name) for name in names))
    return Grammar(rules)


@pytest.mark.parametrize("seed", range(200))
def test_the_one_pass_analysis_of_ordered_grammars_agrees_with_the_fixpoints(seed: int) -> None:
    """``prepare``'s one walk per rule (for grammars whose rules call only earlier ones, as the
    edit grammars are emitted) decides what the general fixpoints and the cycle search decide,
    and gives up (None) whenever it could not be sure."""
    rnd = random.Random(seed)
    g = _random_grammar(rnd, rnd.randint(1, 8), forward=seed % 3 == 0)
    facts = _ordered_facts(g)
    cycle = find_left_recursion(g)
    if facts is None:
        assert seed % 3 == 0 or cycle is not None
        return
    assert cycle is None
    assert facts.productive == productive_rules(g)
    assert facts.nullable == nullable_rules(g)
    assert facts.rule_refs == {name: refs(body) for name, body in g.rules.items()}
    # and prepare's ordered path returns what the general path returns for the same rules with
    # the root first (a forward reference: the general analyses decide that one)
    general = Grammar({"root": g.rules["root"], **{n: b for n, b in g.rules.items() if n != "root"}})
    assert _ordered_facts(general) is None
    try:
        expected = prepare(general)
    except EmptyLanguageError:
        with pytest.raises(EmptyLanguageError):
            prepare(g)
        return
    got = prepare(g)
    assert dict(got.rules) == dict(expected.rules)
    assert nullable_rules(got) == nullable_rules(expected)


def test_the_one_pass_analysis_gives_up_on_forward_and_left_recursive_rules() -> None:
    forward = Grammar({"root": seq(literal("a"), Ref("later")), "later": literal("b")})
    assert _ordered_facts(forward) is None
    assert prepare(forward).rules == forward.rules  # decided by the general analyses
    own_first = Grammar({"root": alt(seq(Ref("root"), literal("a")), literal("b"))})
    assert _ordered_facts(own_first) is None
    with pytest.raises(LeftRecursionError):
        prepare(own_first)
    own_later = Grammar({"root": alt(seq(literal("a"), Ref("root")), literal("b"))})
    facts = _ordered_facts(own_later)
    assert facts is not None and facts.productive == {"root"} and not facts.nullable
