"""Keep expressions shallow: llguidance's Lark parser refuses text nested more than ~25 deep.

A schema's key-exclusion tries (``"" | "n" ("" | "o" (...)))``, one level per character of
the longest key) nest as deep as the keys are long. Deep parts are moved into helper rules
named ``<rule>-n<k>``, which keeps the language and — what the lexer analysis cares about — is
chosen so that it keeps the lexemes too where it can: in a rule that is not regular, the
*largest* regular part around the deep node is moved out whole (a candidate terminal of its
own, whose inside no lexer sees); inside a regular part, helpers are regular too, so they only
ever appear inside terminals.
"""

from __future__ import annotations

from gramwright.grammar.ir import Alt, Expr, Grammar, Ref, Repeat, Seq, children, refs

__all__ = ["MAX_DEPTH", "expr_depth", "flatten_deep", "limit_depth"]

MAX_DEPTH = 10  # composite levels per rule body; llguidance's parser stops near 25 parentheses


def expr_depth(expr: Expr) -> int:
    kids = children(expr)
    return 1 + max(expr_depth(k) for k in kids) if kids else 0


def _regular_rules(g: Grammar) -> set[str]:
    from gramwright.grammar.export.lexemes import regular_rules

    return regular_rules(g)


def limit_depth(g: Grammar, limit: int = MAX_DEPTH) -> Grammar:
    if all(expr_depth(body) <= limit for body in g.rules.values()):
        return g
    regular = _regular_rules(g)
    rules: dict[str, Expr] = {}
    taken = set(g.rules)
    for name, body in g.rules.items():
        helpers: dict[str, Expr] = {}
        # The root is a rule context even when regular (it is Lark's `start` rule).
        in_regular = name in regular and name != g.root
        rules[name] = _Hoister(name, regular, helpers, taken, limit).run(body, in_regular)
        rules.update(helpers)
    return Grammar(rules, g.root)


class _Hoister:
    def __init__(
        self, rule: str, regular: set[str], helpers: dict[str, Expr], taken: set[str], limit: int
    ) -> None:
        self.rule, self.regular, self.helpers, self.taken = rule, regular, helpers, taken
        self.half = max(1, limit // 2)
        self.limit = limit

    def _is_regular(self, expr: Expr) -> bool:
        return all(r in self.regular for r in refs(expr))

    def _helper(self, body: Expr, in_regular: bool) -> Ref:
        n = len(self.helpers) + 1
        while f"{self.rule}-n{n}" in self.taken:
            n += 1
        name = f"{self.rule}-n{n}"
        self.taken.add(name)
        self.helpers[name] = body  # reserve the name before the body's own helpers take theirs
        self.helpers[name] = self._shallow(body, 0, in_regular or self._is_regular(body))
        return Ref(name)

    def run(self, expr: Expr, in_regular: bool) -> Expr:
        if expr_depth(expr) <= self.limit:
            return expr
        return self._shallow(expr, 0, in_regular)

    def _shallow(self, expr: Expr, level: int, in_regular: bool) -> Expr:
        if not isinstance(expr, Seq | Alt | Repeat) or expr_depth(expr) <= self.half:
            return expr
        if level > 0 and not in_regular and self._is_regular(expr):
            return self._helper(expr, True)  # the largest regular part, moved out whole
        if level >= self.half:
            return self._helper(expr, in_regular)  # a regular helper only inside regular parts
        if isinstance(expr, Repeat):
            return Repeat(self._shallow(expr.item, level + 1, in_regular), expr.min, expr.max)
        items = tuple(self._shallow(i, level + 1, in_regular) for i in expr.items)
        return Seq(items) if isinstance(expr, Seq) else Alt(items)


def flatten_deep(expr: Expr, limit: int = MAX_DEPTH, max_alternatives: int = 4096) -> Expr:
    """``expr`` as an alternation of flat sequences (``a (b | c (d | e))`` is ``a b | a c d |
    a c e``) where it is deeper than ``limit`` — for the gbnf target, whose helper rules
    llguidance would turn into terminals. Every lexeme occurrence keeps its kind and what may
    follow it, so the lexer analysis' verdict holds for the flat form; repetitions are kept
    (their item flattened on its own). Left as it is when the flat form would have more than
    ``max_alternatives`` branches."""
    if expr_depth(expr) <= limit:
        return expr
    branches = _branches(expr, limit, max_alternatives)
    if branches is None:
        return expr
    seqs = [items[0] if len(items) == 1 else Seq(items) for items in branches]
    return seqs[0] if len(seqs) == 1 else Alt(tuple(seqs))


def _branches(expr: Expr, limit: int, cap: int) -> list[tuple[Expr, ...]] | None:
    if isinstance(expr, Alt):
        out: list[tuple[Expr, ...]] = []
        for item in expr.items:
            sub = _branches(item, limit, cap)
            if sub is None or len(out) + len(sub) > cap:
                return None
            out.extend(sub)
        return out
    if isinstance(expr, Seq):
        acc: list[tuple[Expr, ...]] = [()]
        for item in expr.items:
            sub = _branches(item, limit, cap)
            if sub is None or len(acc) * len(sub) > cap:
                return None
            acc = [a + b for a in acc for b in sub]
        return acc
    if isinstance(expr, Repeat):
        return [(Repeat(flatten_deep(expr.item, limit, cap), expr.min, expr.max),)]
    return [(expr,)]
