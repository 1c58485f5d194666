"""Arrays: positional items, the rest, counts, contains, uniqueItems."""

from __future__ import annotations

from tests.support.schema import Checker


def test_items_and_counts() -> None:
    check = Checker({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3})
    assert check([1]) and check([1, 2, 3])
    assert not check([]) and not check([1, 2, 3, 4]) and not check(["a"])


def test_prefix_items_2020() -> None:
    check = Checker({"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False})
    assert check([]) and check([1]) and check([1, "a"])
    assert not check([1, "a", 2]) and not check(["a"])


def test_tuple_items_draft7() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "integer"}],
        "additionalItems": {"type": "string"},
    }
    check = Checker(schema)
    assert check([1, "a", "b"])
    assert not check([1, 2])


def test_contains_exact_and_min_contains() -> None:
    check = Checker({"items": {"type": "integer"}, "contains": {"minimum": 5}})
    assert check([1, 7, 2]) and check([9])
    assert not check([1, 2]) and not check([])
    assert check.status("/contains") == "exact"
    two = Checker({"contains": {"const": 1}, "minContains": 2})
    assert two([1, 0, 1]) and not two([1, 0])


def test_max_contains_is_reported() -> None:
    check = Checker({"contains": {"const": 1}, "maxContains": 1})
    assert check([1, 1])  # not enforced …
    assert check.status("/contains") == "approximated"  # … and said so
    assert check.status("/maxContains") == "approximated"


def test_unique_items_is_reported_unless_trivial() -> None:
    check = Checker({"uniqueItems": True})
    assert check([1, 1])
    assert check.status("/uniqueItems") == "approximated"
    trivial = Checker({"uniqueItems": True, "maxItems": 1})
    assert trivial.status("/uniqueItems") == "exact"


def test_unsatisfiable_items_limit_the_length() -> None:
    check = Checker({"items": False})
    assert check([]) and not check([1])
    tuple_ = Checker({"prefixItems": [{"type": "integer"}, False]})
    assert tuple_([1]) and not tuple_([1, 2])


def test_not_contains_means_every_item_fails() -> None:
    check = Checker({"type": "array", "not": {"contains": {"type": "string"}}})
    assert check([1, None]) and check([])
    assert not check([1, "a"])
    assert check.status("/not") == "exact"


def test_unevaluated_items_exact_without_branches() -> None:
    check = Checker({"prefixItems": [{"type": "integer"}], "unevaluatedItems": False})
    assert check([1])
    assert not check([1, 2])
