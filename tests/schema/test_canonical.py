"""Canonical serialisation and the member-order search."""

from __future__ import annotations

import pytest

from gramwright.schema.canonical import dumps, json_equal, number_text
from tests.support.schema import Checker


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1"),
        (1.0, "1"),
        (-0.0, "0"),
        (1e20, "100000000000000000000"),
        (0.5, "0.5"),
        (1e-05, "1e-05"),
        ({"a": [1, "é\n"]}, '{"a":[1,"é\\n"]}'),
    ],
)
def test_dumps(value: object, text: str) -> None:
    assert dumps(value) == text


def test_draft4_keeps_integral_floats_apart() -> None:
    assert number_text(12.0, draft4=True) == "12.0"
    assert number_text(12, draft4=True) == "12"


def test_non_finite_numbers_have_no_text() -> None:
    with pytest.raises(ValueError):
        dumps(float("nan"))


def test_json_equal() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert json_equal({"a": [1]}, {"a": [1.0]})
    assert not json_equal([1, 2], [2, 1])


def test_member_order_search_finds_the_grammar_order() -> None:
    check = Checker(
        {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"]}
    )
    assert check({"b": "x", "a": 1})  # the instance's own order is not the schema's
    assert not check({"b": 1, "a": 1})


def test_lone_surrogate_has_no_canonical_text() -> None:
    check = Checker({"type": "string"})
    with pytest.raises(UnicodeEncodeError):
        check("\ud800")


def test_member_order_search_stays_polynomial() -> None:
    # "title" must come first (declared); the big free-form member tempts the search to retry
    # every order of its 25 keys when a later member does not fit.
    schema = {"properties": {"title": {"type": "string"}, "n": {"type": "integer"}}}
    check = Checker(schema)
    nested = {f"k{i}": {"x": i, "y": [i]} for i in range(25)}
    assert check({"extra": nested, "n": 1, "title": "t"})
    assert not check({"extra": nested, "n": "1", "title": "t"})


def test_a_large_nested_document_in_the_first_order_needs_no_search() -> None:
    # The search tries every member that can come next before choosing one (quadratic at each
    # object level): a free-form document a few levels deep used to exhaust the budget although
    # its first order is accepted (JSONSchemaBench Github_medium o66139: a valid instance counted
    # as a false negative).
    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.schema.canonical import accepts

    check = Checker({"properties": {"id": {"type": "string"}}, "type": "object"})
    recognizer = Recognizer(compile_grammar(check.compiled.grammar))

    def doc(depth: int) -> object:
        return {f"k{i}": doc(depth - 1) if depth else i for i in range(8)}

    assert accepts(recognizer, {"id": "x", "doc": doc(3)}, budget=2_000)
    recognizer.reset()
    assert not accepts(recognizer, {"id": 1, "doc": {}}, budget=2_000)


def test_key_order_follows_the_compiled_member_orders() -> None:
    from gramwright.schema.canonical import KeyOrder

    order = KeyOrder([("b", "a", "c"), ("z", "a")])
    assert order.order(["a", "c", "b", "q"]) == ["b", "a", "c", "q"]


def test_one_wrong_member_among_many_optional_ones_is_rejected_within_a_small_budget() -> None:
    # Proving a rejection means ruling out every member order. One member with a wrong value
    # among many optional ones used to make the search try every increasing subsequence of the
    # others (JSONSchemaBench JsonSchemaStore ava#3: "undecided", counted as an error).
    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.schema.canonical import accepts

    names = [f"p{i:02}" for i in range(24)]
    check = Checker({"type": "object", "properties": {n: {"type": "string"} for n in names}})
    recognizer = Recognizer(compile_grammar(check.compiled.grammar))
    good = {n: "x" for n in reversed(names)}  # the reverse of the grammar's order
    assert accepts(recognizer, good, budget=5_000)
    recognizer.reset()
    assert not accepts(recognizer, {**good, "p05": 5}, budget=5_000)
    recognizer.reset()
    assert not accepts(recognizer, {**good, "extra": {"p05": 5}, "p07": [1]}, budget=5_000)


def test_the_member_order_decision_is_exact() -> None:
    # Branches ordering the same names differently, a loop of other members, and a required
    # member: the decision over all orders must equal feeding every order one by one.
    import itertools

    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.schema.canonical import accepts, dumps

    schema = {
        "anyOf": [
            {
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
                "required": ["b"],
                "additionalProperties": False,
            },
            {
                "properties": {"b": {"type": "integer"}, "c": {"type": "object"}, "a": {"type": "string"}},
                "additionalProperties": {"type": "boolean"},
            },
        ]
    }
    check = Checker(schema)
    recognizer = Recognizer(compile_grammar(check.compiled.grammar))
    values: list[object] = [1, "s", True, {"x": 1}]
    seen = {True: 0, False: 0}
    for names in (["a", "b"], ["a", "b", "c"], ["b", "c", "z"], ["a", "z", "y"]):
        for vals in itertools.product(values, repeat=len(names)):
            instance = dict(zip(names, vals, strict=True))
            every_order = any(
                check.text(dumps(dict((k, instance[k]) for k in order)))
                for order in itertools.permutations(names)
            )
            recognizer.reset()
            assert accepts(recognizer, instance) == every_order, instance
            seen[every_order] += 1
    assert seen[True] and seen[False]


def test_an_undecided_instance_is_never_rejected() -> None:
    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.schema.canonical import SearchBudgetExceeded, accepts

    names = [f"p{i:02}" for i in range(6)]
    check = Checker({"properties": {n: {"type": "string"} for n in names}})
    recognizer = Recognizer(compile_grammar(check.compiled.grammar))
    with pytest.raises(SearchBudgetExceeded):
        accepts(recognizer, {**{n: "x" for n in names}, "p03": 3}, budget=3)


def test_a_wide_object_is_decided_without_one_stack_frame_per_member() -> None:
    # A missing required member is only found after every member is placed: the walk over
    # (state, members left) is as deep as the object is wide, more than Python's recursion
    # limit for real schemas with hundreds of properties (a RecursionError, counted as an error).
    import inspect
    import sys

    from gramwright.schema.canonical import accepts

    names = [f"p{i:02}" for i in range(80)]
    check = Checker({"properties": {n: {"type": "string"} for n in names}, "required": ["zz"]})
    instance = {n: "x" for n in reversed(names)}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 60)
    try:
        assert not accepts(check.recognizer, instance)
        check.recognizer.reset()
        assert accepts(check.recognizer, {**instance, "zz": 1})
    finally:
        sys.setrecursionlimit(limit)
