"""Grammar analyses: pruning, reachability, the empty language, left recursion."""

from __future__ import annotations

import pytest

from gramwright.grammar.analysis import (
    find_left_recursion,
    nullable_rules,
    prepare,
    productive_rules,
    reachable_rules,
)
from gramwright.grammar.errors import EmptyLanguageError, LeftRecursionError, UndefinedRuleError
from gramwright.grammar.ir import Grammar, Ref, alt, char_class, literal, repeat, seq


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
