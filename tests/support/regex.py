"""Helpers shared by the regex and format tests: acceptance through the recognizer, and random
strings drawn from an IR expression (the positive side of differential tests)."""

from __future__ import annotations

import random

from gramwright.grammar.ir import Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.regex.charsets import SURROGATES, subtract
from gramwright.regex.translate import NOTHING


def accepts(expr: Expr, text: str) -> bool:
    if expr == NOTHING:  # the empty language: the recognizer refuses to compile it
        return False
    rec = Recognizer(compile_grammar(Grammar({"root": expr})))
    return rec.try_feed(text.encode("utf-8")) and rec.is_accepting()


def _any_member(cc: CharClass, rnd: random.Random) -> str | None:
    ranges = subtract(cc.effective_ranges(), SURROGATES)
    if not ranges:
        return None
    lo, hi = rnd.choice(ranges)
    return chr(rnd.randint(lo, hi))


def sample(expr: Expr, rnd: random.Random, alphabet: str | None = None, extra_repeats: int = 3) -> str | None:
    """A random string of ``expr``. With ``alphabet``, classes draw only from it (None when a class
    has no character there); without, they prefer printable ASCII and sometimes draw anywhere."""
    if isinstance(expr, Literal):
        return expr.text
    if isinstance(expr, CharClass):
        pool = alphabet if alphabet is not None else "".join(chr(c) for c in range(0x20, 0x7F))
        options = [c for c in pool if expr.contains(ord(c))]
        if alphabet is None and (not options or rnd.random() < 0.2):
            return _any_member(expr, rnd)
        return rnd.choice(options) if options else None
    if isinstance(expr, Seq | Repeat):
        if isinstance(expr, Seq):
            items: list[Expr] = list(expr.items)
        else:
            hi = expr.min + extra_repeats if expr.max is None else min(expr.max, expr.min + extra_repeats)
            items = [expr.item] * rnd.randint(expr.min, hi)
        parts: list[str] = []
        for item in items:
            part = sample(item, rnd, alphabet, extra_repeats)
            if part is None:
                return None
            parts.append(part)
        return "".join(parts)
    if isinstance(expr, Alt):
        return sample(rnd.choice(expr.items), rnd, alphabet, extra_repeats)
    assert not isinstance(expr, Ref), "regex and format expressions have no rule references"
    raise AssertionError(expr)
