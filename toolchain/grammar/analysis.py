"""Static analyses over the IR: productivity, reachability, nullability, left recursion.

``prepare(g)`` is what every consumer that runs a grammar calls first: it removes alternatives that
can never complete (non-productive rules, empty character classes) and rules nothing reaches, and
rejects a grammar whose root derives no string — so the recognizer never meets a dead end.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set

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


# The three walks below run over every node of a grammar (an edit grammar has ~450k): they
# dispatch on ``type`` (the IR's node classes are final) and loop rather than build generators.


def _expr_productive(expr: Expr, productive: Set[str]) -> bool:
    if type(expr) is Ref:
        return expr.name in productive
    if type(expr) is Seq:
        for item in expr.items:  # noqa: SIM110 (a loop: all() and a generator cost more here)
            if not _expr_productive(item, productive):
                return False
        return True
    if type(expr) is Alt:
        for item in expr.items:  # noqa: SIM110
            if _expr_productive(item, productive):
                return True
        return False
    if type(expr) is Literal:
        return True
    if type(expr) is CharClass:
        return not class_is_empty(expr)
    assert isinstance(expr, Repeat)
    return expr.min == 0 or _expr_productive(expr.item, productive)


def _rule_refs(g: Grammar) -> tuple[dict[str, list[str]], bool]:
    """Each rule's references, and whether any rule holds an empty character class: one walk of
    every rule, shared by the analyses of one grammar."""
    classes: list[CharClass] = []
    out = {name: refs(body, classes) for name, body in g.rules.items()}
    return out, any(class_is_empty(cc) for cc in set(classes))


def _least_fixpoint(
    g: Grammar, rule_refs: Mapping[str, list[str]] | None, holds: Callable[[Expr, Set[str]], bool]
) -> set[str]:
    """The least set of rules whose bodies satisfy ``holds`` given the set: one pass in rule order,
    then only the rules whose references joined the set after they were last looked at (the
    naive loop walked every rule at least twice; an edit grammar has ~50k). ``rule_refs``: each
    rule's references, computed here when None."""
    if rule_refs is None:
        rule_refs = _rule_refs(g)[0]
    got: set[str] = set()
    order = {name: i for i, name in enumerate(g.rules)}
    for name, body in g.rules.items():
        if holds(body, got):
            got.add(name)
    users: dict[str, list[str]] = {}
    for name in g.rules:
        if name not in got:
            for ref in rule_refs[name]:
                users.setdefault(ref, []).append(name)
    # a rule seen before a rule it references joined must be looked at again
    work = [u for r in got for u in users.get(r, ()) if order[u] < order[r]]
    while work:
        name = work.pop()
        if name in got or not holds(g.rules[name], got):
            continue
        got.add(name)
        work.extend(u for u in users.get(name, ()) if u not in got)
    return got


def productive_rules(g: Grammar, rule_refs: Mapping[str, list[str]] | None = None) -> set[str]:
    """Rules that derive at least one finite string (least fixpoint)."""
    return _least_fixpoint(g, rule_refs, _expr_productive)


def reachable_rules(g: Grammar, rule_refs: Mapping[str, list[str]] | None = None) -> list[str]:
    """Rules reachable from the root, in the grammar's rule order."""
    seen = {g.root}
    stack = [g.root]
    while stack:
        top = stack.pop()
        for name in refs(g.rules[top]) if rule_refs is None else rule_refs[top]:
            if name in g.rules and name not in seen:
                seen.add(name)
                stack.append(name)
    return [name for name in g.rules if name in seen]


def expr_nullable(expr: Expr, nullable: Set[str]) -> bool:
    if type(expr) is Ref:
        return expr.name in nullable
    if type(expr) is Seq:
        for item in expr.items:  # noqa: SIM110
            if not expr_nullable(item, nullable):
                return False
        return True
    if type(expr) is Alt:
        for item in expr.items:  # noqa: SIM110
            if expr_nullable(item, nullable):
                return True
        return False
    if type(expr) is Literal:
        return expr.text == ""
    if type(expr) is CharClass:
        return False
    assert isinstance(expr, Repeat)
    return expr.min == 0 or expr_nullable(expr.item, nullable)


def nullable_rules(g: Grammar, rule_refs: Mapping[str, list[str]] | None = None) -> frozenset[str]:
    """The rules that can match the empty string (computed once per grammar: it is immutable)."""
    if g._nullable is not None:
        return g._nullable
    got = frozenset(_least_fixpoint(g, rule_refs, expr_nullable))
    object.__setattr__(g, "_nullable", got)
    return got


def _first_refs(expr: Expr, nullable: Set[str], out: set[str]) -> None:
    """Rules that can be entered before any byte of ``expr`` is consumed."""
    if type(expr) is Ref:
        out.add(expr.name)
    elif type(expr) is Seq:
        for item in expr.items:
            _first_refs(item, nullable, out)
            if not expr_nullable(item, nullable):
                break
    elif type(expr) is Alt:
        for item in expr.items:
            _first_refs(item, nullable, out)
    elif type(expr) is Repeat:
        _first_refs(expr.item, nullable, out)


def find_left_recursion(g: Grammar, rule_refs: Mapping[str, list[str]] | None = None) -> list[str] | None:
    """A cycle of rules entered without consuming input (``a -> b -> a``), or None."""
    nullable = nullable_rules(g, rule_refs)
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


class _OrderedFacts:
    """What ``prepare`` needs of a grammar whose rules each refer only to rules defined before
    them (or to themselves, after input): ``_ordered_facts`` gets it in one walk per rule."""

    __slots__ = ("classes", "nullable", "productive", "rule_refs")

    def __init__(self) -> None:
        self.rule_refs: dict[str, list[str]] = {}
        self.productive: set[str] = set()
        self.nullable: set[str] = set()
        self.classes: dict[CharClass, bool] = {}  # class → empty


def _facts_walk(
    expr: Expr, facts: _OrderedFacts, refs_out: dict[str, None], firsts: list[str], first: bool
) -> tuple[bool, bool]:
    """(productive, nullable) of ``expr`` given the rules decided so far; its references go to
    ``refs_out`` (in first-occurrence order) and, where no input has been consumed yet
    (``first``), to ``firsts``. Literals and references inside a sequence or an alternation
    are decided in its loop, not by a call each (most of an edit grammar's ~600k nodes)."""
    kind = type(expr)
    if kind is Seq or kind is Alt:
        is_seq = kind is Seq
        productive = nullable = is_seq
        for item in expr.items:  # type: ignore[union-attr]
            at_first = first and (nullable or not is_seq)
            item_kind = type(item)
            if item_kind is Literal:
                p, n = True, item.text == ""  # type: ignore[union-attr]
            elif item_kind is Ref:
                name = item.name  # type: ignore[union-attr]
                refs_out.setdefault(name, None)
                if at_first:
                    firsts.append(name)
                p, n = name in facts.productive, name in facts.nullable
            else:
                p, n = _facts_walk(item, facts, refs_out, firsts, at_first)
            if is_seq:
                productive = productive and p
                nullable = nullable and n
            else:
                productive = productive or p
                nullable = nullable or n
        return productive, nullable
    if kind is Ref:
        name = expr.name  # type: ignore[union-attr]
        refs_out.setdefault(name, None)
        if first:
            firsts.append(name)
        return name in facts.productive, name in facts.nullable
    if kind is Literal:
        return True, expr.text == ""  # type: ignore[union-attr]
    if kind is CharClass:
        empty = facts.classes.get(expr)  # type: ignore[arg-type]
        if empty is None:
            empty = facts.classes[expr] = class_is_empty(expr)  # type: ignore[index,arg-type]
        return not empty, False
    assert isinstance(expr, Repeat)
    p, n = _facts_walk(expr.item, facts, refs_out, firsts, first)
    return (expr.min == 0 or p), (expr.min == 0 or n)


def _ordered_facts(g: Grammar) -> _OrderedFacts | None:
    """References, productive and nullable rules in one walk per rule, in rule order — exact
    when every reference is to an earlier rule or (after input) to the rule itself, and then the
    grammar has no left recursion either (every rule entered without input is an earlier one).
    None for any other grammar (a forward reference, an undefined one, a rule entering itself
    first): the general analyses decide it. The file-aware edit grammars are emitted in this
    order (~50k rules: the four separate analyses were ~2 s of a 5,000-line build)."""
    index = {name: i for i, name in enumerate(g.rules)}
    facts = _OrderedFacts()
    firsts: list[str] = []
    for i, (name, body) in enumerate(g.rules.items()):
        refs_out: dict[str, None] = {}
        firsts.clear()
        productive, nullable = _facts_walk(body, facts, refs_out, firsts, True)
        for ref in refs_out:
            at = index.get(ref)
            if at is None or at > i:
                return None
        for ref in firsts:
            if index[ref] >= i:
                return None
        facts.rule_refs[name] = list(refs_out)
        if productive:
            facts.productive.add(name)
        if nullable:
            facts.nullable.add(name)
    return facts


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


def _pruned(
    g: Grammar, rule_refs: Mapping[str, list[str]], productive: Set[str], dead_classes: bool
) -> tuple[dict[str, Expr], dict[str, list[str]]]:
    """The productive rules with what can never complete dropped, and their references."""
    pruned: dict[str, Expr] = {}
    pruned_refs: dict[str, list[str]] = {}
    # only a rule that calls a dead rule or holds an empty class has anything to drop
    for name, body in g.rules.items():
        if name in productive:
            if not dead_classes and all(r in productive for r in rule_refs[name]):
                pruned[name] = body
                pruned_refs[name] = rule_refs[name]
                continue
            new = _prune_expr(body, productive)
            assert new is not None  # productive rules keep at least one branch
            pruned[name] = new
            pruned_refs[name] = rule_refs[name] if new is body else refs(new)
    return pruned, pruned_refs


def prepare(g: Grammar) -> Grammar:
    """Check references, prune dead parts, drop unreachable rules, reject left recursion.

    Raises UndefinedRuleError, EmptyLanguageError or LeftRecursionError with the rules named.
    Idempotent and free on a grammar it returned (the result is marked prepared).
    """
    if getattr(g, "_prepared", False):
        return g
    facts = _ordered_facts(g)
    if facts is None:
        rule_refs, dead_classes = _rule_refs(g)
        missing = g.undefined_refs(rule_refs)
        if missing:
            raise UndefinedRuleError(missing)
        productive = productive_rules(g, rule_refs)
    else:
        rule_refs, productive = facts.rule_refs, facts.productive
        dead_classes = any(facts.classes.values())
    if g.root not in productive:
        dead = [n for n in reachable_rules(g, rule_refs) if n not in productive]
        raise EmptyLanguageError(g.root, dead)
    pruned: Mapping[str, Expr]
    pruned_refs: Mapping[str, list[str]]
    if not dead_classes and len(productive) == len(g.rules):
        pruned, pruned_refs = g.rules, rule_refs  # nothing to drop (read, never written)
    else:
        pruned, pruned_refs = _pruned(g, rule_refs, productive, dead_classes)
    out = Grammar(pruned, g.root)
    if facts is None:
        kept = reachable_rules(out, pruned_refs)
    else:
        # every reference is to an earlier rule (or the rule itself): one pass from the last
        reached = {g.root}
        names = list(pruned)
        for name in reversed(names):
            if name in reached:
                reached.update(pruned_refs[name])
        kept = [name for name in names if name in reached]
    if len(kept) < len(pruned):
        out = Grammar({n: pruned[n] for n in kept}, g.root)
    if facts is None:
        cycle = find_left_recursion(out, pruned_refs)
        if cycle:
            raise LeftRecursionError(cycle)
    else:
        # pruning drops only what derives nothing, so what derives the empty string stays
        object.__setattr__(out, "_nullable", frozenset(n for n in facts.nullable if n in out.rules))
    object.__setattr__(out, "_prepared", True)
    return out
