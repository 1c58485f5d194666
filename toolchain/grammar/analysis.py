"""Static analyses over the IR: productivity, reachability, nullability, left recursion.

``prepare(g)`` is what every consumer that runs a grammar calls first: it removes alternatives that
can never complete (non-productive rules, empty character classes) and rules nothing reaches, and
rejects a grammar whose root derives no string — so the recognizer never meets a dead end.
"""

from __future__ import annotations

from collections.abc import Set

from gramwright.grammar.errors import (
    EmptyLanguageError,
    LeftRecursionError,
    UndefinedRuleError,
)
from gramwright.grammar.ir import (
    EMPTY,
    Alt,
    CharClass,
    Expr,
    Grammar,
    Literal,
    Ref,
    Repeat,
    Seq,
    alt,
    refs,
    repeat,
    seq,
)

_SURROGATES = (0xD800, 0xDFFF)


def class_is_empty(cc: CharClass) -> bool:
    """True when the class admits no encodable code point (surrogates cannot be UTF-8 encoded)."""
    return all(not (lo < _SURROGATES[0] or hi > _SURROGATES[1]) for lo, hi in cc.effective_ranges())


def _expr_productive(expr: Expr, productive: Set[str]) -> bool:
    if isinstance(expr, Literal):
        return True
    if isinstance(expr, CharClass):
        return not class_is_empty(expr)
    if isinstance(expr, Ref):
        return expr.name in productive
    if isinstance(expr, Seq):
        return all(_expr_productive(i, productive) for i in expr.items)
    if isinstance(expr, Alt):
        return any(_expr_productive(i, productive) for i in expr.items)
    assert isinstance(expr, Repeat)
    return expr.min == 0 or _expr_productive(expr.item, productive)


def productive_rules(g: Grammar) -> set[str]:
    """Rules that derive at least one finite string (least fixpoint)."""
    productive: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in g.rules.items():
            if name not in productive and _expr_productive(body, productive):
                productive.add(name)
                changed = True
    return productive


def reachable_rules(g: Grammar) -> list[str]:
    """Rules reachable from the root, in the grammar's rule order."""
    seen = {g.root}
    stack = [g.root]
    while stack:
        for name in refs(g.rules[stack.pop()]):
            if name in g.rules and name not in seen:
                seen.add(name)
                stack.append(name)
    return [name for name in g.rules if name in seen]


def expr_nullable(expr: Expr, nullable: Set[str]) -> bool:
    if isinstance(expr, Literal):
        return expr.text == ""
    if isinstance(expr, CharClass):
        return False
    if isinstance(expr, Ref):
        return expr.name in nullable
    if isinstance(expr, Seq):
        return all(expr_nullable(i, nullable) for i in expr.items)
    if isinstance(expr, Alt):
        return any(expr_nullable(i, nullable) for i in expr.items)
    assert isinstance(expr, Repeat)
    return expr.min == 0 or expr_nullable(expr.item, nullable)


def nullable_rules(g: Grammar) -> frozenset[str]:
    """The rules that can match the empty string (computed once per grammar: it is immutable)."""
    if g._nullable is not None:
        return g._nullable
    nullable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, body in g.rules.items():
            if name not in nullable and expr_nullable(body, nullable):
                nullable.add(name)
                changed = True
    got = frozenset(nullable)
    object.__setattr__(g, "_nullable", got)
    return got


def _first_refs(expr: Expr, nullable: Set[str], out: set[str]) -> None:
    """Rules that can be entered before any byte of ``expr`` is consumed."""
    if isinstance(expr, Ref):
        out.add(expr.name)
    elif isinstance(expr, Seq):
        for item in expr.items:
            _first_refs(item, nullable, out)
            if not expr_nullable(item, nullable):
                break
    elif isinstance(expr, Alt):
        for item in expr.items:
            _first_refs(item, nullable, out)
    elif isinstance(expr, Repeat):
        _first_refs(expr.item, nullable, out)


def find_left_recursion(g: Grammar) -> list[str] | None:
    """A cycle of rules entered without consuming input (``a -> b -> a``), or None."""
    nullable = nullable_rules(g)
    edges: dict[str, list[str]] = {}
    # successors in rule order (the cycle reported is then deterministic), sorted by index rather
    # than by filtering every rule name: that was quadratic (1.1 s for an edit grammar of 6k rules)
    order = {name: i for i, name in enumerate(g.rules)}
    for name, body in g.rules.items():
        firsts: set[str] = set()
        _first_refs(body, nullable, firsts)
        edges[name] = sorted((n for n in firsts if n in order), key=order.__getitem__)
    color: dict[str, int] = {}
    for start in g.rules:
        if color.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, idx = stack.pop()
            if idx == 0:
                color[node] = 1
                path.append(node)
            succ = edges[node]
            if idx < len(succ):
                stack.append((node, idx + 1))
                nxt = succ[idx]
                state = color.get(nxt, 0)
                if state == 1:
                    return [*path[path.index(nxt) :], nxt]
                if state == 0:
                    stack.append((nxt, 0))
            else:
                color[node] = 2
                path.pop()
    return None


def _prune_expr(expr: Expr, productive: Set[str]) -> Expr | None:
    """Drop what can never complete; None when nothing of ``expr`` can. An expression with
    nothing to drop is returned as it is (not rebuilt: an edit grammar has ~10 rules per file
    line, and rebuilding every node was most of ``prepare``'s time)."""
    if isinstance(expr, Literal):
        return expr
    if isinstance(expr, CharClass):
        return None if class_is_empty(expr) else expr
    if isinstance(expr, Ref):
        return expr if expr.name in productive else None
    if isinstance(expr, Seq):
        parts = [_prune_expr(i, productive) for i in expr.items]
        if any(p is None for p in parts):
            return None
        if all(p is i for p, i in zip(parts, expr.items, strict=True)):
            return expr
        return seq(*[p for p in parts if p is not None])
    if isinstance(expr, Alt):
        pruned = [_prune_expr(i, productive) for i in expr.items]
        if all(p is i for p, i in zip(pruned, expr.items, strict=True)):
            return expr
        kept = [p for p in pruned if p is not None]
        return alt(*kept) if kept else None
    assert isinstance(expr, Repeat)
    inner = _prune_expr(expr.item, productive)
    if inner is None:
        return EMPTY if expr.min == 0 else None
    if inner is expr.item:
        return expr
    return repeat(inner, expr.min, expr.max)


def prepare(g: Grammar) -> Grammar:
    """Check references, prune dead parts, drop unreachable rules, reject left recursion.

    Raises UndefinedRuleError, EmptyLanguageError or LeftRecursionError with the rules named.
    Idempotent and free on a grammar it returned (the result is marked prepared).
    """
    if getattr(g, "_prepared", False):
        return g
    missing = g.undefined_refs()
    if missing:
        raise UndefinedRuleError(missing)
    productive = productive_rules(g)
    if g.root not in productive:
        dead = [n for n in reachable_rules(g) if n not in productive]
        raise EmptyLanguageError(g.root, dead)
    pruned: dict[str, Expr] = {}
    for name, body in g.rules.items():
        if name in productive:
            new = _prune_expr(body, productive)
            assert new is not None  # productive rules keep at least one branch
            pruned[name] = new
    out = Grammar(pruned, g.root)
    out = Grammar({n: out.rules[n] for n in reachable_rules(out)}, g.root)
    cycle = find_left_recursion(out)
    if cycle:
        raise LeftRecursionError(cycle)
    object.__setattr__(out, "_prepared", True)
    return out
