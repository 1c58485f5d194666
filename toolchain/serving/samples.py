"""Documents for differential checks: random derivations of a grammar and small mutations.

``choose(n)`` returns an int in ``[0, n)``; tests pass hypothesis draws, the benchmark a seeded
``random.Random``, so the same code serves both. Past ``max_depth`` every choice takes the
shallowest way out (the alternative of least derivation height, repetitions at their minimum),
so recursive grammars end. Mutants are the document with one character deleted, inserted,
doubled or cut off: mostly outside the language, sometimes not — the recognizer says which.
"""

from __future__ import annotations

from collections.abc import Callable

from gramwright.grammar.ir import Alt, CharClass, Expr, Grammar, Literal, Ref, Repeat, Seq

__all__ = ["mutate", "sample_document"]

Choose = Callable[[int], int]
_SURROGATES = (0xD800, 0xDFFF)


def _heights(g: Grammar) -> dict[str, int]:
    inf = 10**9
    h = dict.fromkeys(g.rules, inf)

    def of(e: Expr) -> int:
        if isinstance(e, Literal | CharClass):
            return 0
        if isinstance(e, Ref):
            return h[e.name] + 1 if h[e.name] < inf else inf
        if isinstance(e, Seq):
            return max((of(i) for i in e.items), default=0)
        if isinstance(e, Alt):
            return min(of(i) for i in e.items)
        assert isinstance(e, Repeat)
        return 0 if e.min == 0 else of(e.item)

    changed = True
    while changed:
        changed = False
        for name, body in g.rules.items():
            new = of(body)
            if new < h[name]:
                h[name], changed = new, True
    return h


class _Sampler:
    def __init__(self, g: Grammar, choose: Choose, max_depth: int, max_repeat: int) -> None:
        self.g, self.choose, self.max_depth, self.max_repeat = g, choose, max_depth, max_repeat
        self.h = _heights(g)
        self.out: list[str] = []

    def height(self, e: Expr) -> int:
        if isinstance(e, Ref):
            return self.h[e.name] + 1
        if isinstance(e, Seq):
            return max((self.height(i) for i in e.items), default=0)
        if isinstance(e, Alt):
            return min(self.height(i) for i in e.items)
        if isinstance(e, Repeat):
            return 0 if e.min == 0 else self.height(e.item)
        return 0

    def run(self, e: Expr, depth: int) -> None:
        shallow = depth > self.max_depth
        if isinstance(e, Literal):
            self.out.append(e.text)
        elif isinstance(e, CharClass):
            ranges = [
                r for r in e.effective_ranges() if not (_SURROGATES[0] <= r[0] and r[1] <= _SURROGATES[1])
            ]
            lo, hi = ranges[self.choose(len(ranges))]
            cp = lo + self.choose(hi - lo + 1)
            if _SURROGATES[0] <= cp <= _SURROGATES[1]:
                cp = lo if not _SURROGATES[0] <= lo <= _SURROGATES[1] else _SURROGATES[1] + 1
            self.out.append(chr(cp))
        elif isinstance(e, Ref):
            self.run(self.g.rules[e.name], depth + 1)
        elif isinstance(e, Seq):
            for item in e.items:
                self.run(item, depth)
        elif isinstance(e, Alt):
            if shallow:
                best = min(self.height(i) for i in e.items)
                options = [i for i in e.items if self.height(i) == best]
            else:
                options = list(e.items)
            self.run(options[self.choose(len(options))], depth)
        else:
            assert isinstance(e, Repeat)
            top = e.min + self.max_repeat if e.max is None else min(e.max, e.min + self.max_repeat)
            count = e.min if shallow else e.min + self.choose(top - e.min + 1)
            for _ in range(count):
                self.run(e.item, depth)


def sample_document(g: Grammar, choose: Choose, *, max_depth: int = 8, max_repeat: int = 3) -> str:
    """A random string of ``g``'s language."""
    sampler = _Sampler(g, choose, max_depth, max_repeat)
    sampler.run(Ref(g.root), 0)
    return "".join(sampler.out)


def mutate(doc: str, choose: Choose, alphabet: str = '"{}[],:0aA \\\n-.') -> str:
    """``doc`` with one small edit (delete, insert, double a character, or cut the end)."""
    op = choose(4) if doc else 1
    at = choose(len(doc) + 1)
    if op == 0:
        return doc[: max(0, at - 1)] + doc[at:]
    if op == 1:
        return doc[:at] + alphabet[choose(len(alphabet))] + doc[at:]
    if op == 2 and at < len(doc):
        return doc[: at + 1] + doc[at:]
    return doc[:at]
