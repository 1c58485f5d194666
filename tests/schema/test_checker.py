"""The schema tests' checker (tests/support/schema.py) accepts and rejects as it says."""

from __future__ import annotations

from tests.support.schema import Checker


def test_checker_accepts_and_rejects() -> None:
    check = Checker({"type": "integer"})
    assert check(3)
    assert not check("3")
    assert check.text("3")
    assert not check.text("3.5")
