"""The random-string sampler and acceptance helper (tests/support/regex.py) do what they say."""

from __future__ import annotations

import random

from gramwright.grammar.ir import Alt, CharClass, Literal, Repeat, Seq
from gramwright.regex.translate import NOTHING
from tests.support.regex import accepts, sample


def test_sample_draws_members() -> None:
    expr = Seq((Literal("a"), Repeat(CharClass(((0x30, 0x39),)), 2, 4), Alt((Literal("x"), Literal("y")))))
    rnd = random.Random(7)
    for _ in range(50):
        text = sample(expr, rnd)
        assert text is not None and accepts(expr, text)


def test_sample_respects_the_alphabet() -> None:
    expr = Repeat(CharClass(((0x61, 0x7A),)), 1, None)
    assert sample(expr, random.Random(1), alphabet="0123") is None
    assert set(sample(expr, random.Random(1), alphabet="ab") or "x") <= {"a", "b"}


def test_accepts_the_empty_language() -> None:
    assert not accepts(NOTHING, "")
