"""``minProperties``/``maxProperties`` over optional members, exactly: count along the sequence.

Declared members are written in one order, each optional one present or skipped, then the other
members (any number, in any order). The number written so far is a small state: the grammar is
the automaton over (next declared member, members written so far), each state one rule, ending in
the other members' repetition with the count still needed (``lo - k .. hi - k``). Counts at or past
``minProperties`` (with no ``maxProperties``) are one state, so the states are at most
``(members + 1) * (bound + 1)``; past :data:`MAX_STATES` the compiler keeps the widened grammar
and reports the size that stopped it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gramwright.grammar.ir import Alt, Expr, literal, repeat, seq

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler

MAX_STATES = 2048


def count_states(n_members: int, lo: int, hi: int | None) -> int:
    return (n_members + 1) * ((hi if hi is not None else max(lo, 1)) + 1)


def counted_body(
    c: Compiler,
    members: list[tuple[Expr, bool]],
    other: Expr | None,
    lo: int,
    hi: int | None,
    hint: str,
) -> Expr | None:
    """The members (optional ones skippable) and then the other members, commas between, with
    ``lo <= count <= hi``; None when no document has such a count."""
    comma = seq(c.ws, literal(","), c.ws)
    n = len(members)
    top = hi if hi is not None else max(lo, 1)  # counts past ``top`` (no maximum) behave alike
    cap = c.options.max_repeat
    memo: dict[tuple[int, int], Expr | None] = {}

    def others(k: int) -> Expr | None:
        need = max(0, lo - k)
        room = None if hi is None else hi - k
        if other is None:
            return literal("") if need == 0 else None
        if room is not None and room < need:
            return None
        room = None if room is not None and room > cap else room
        more = repeat(seq(comma, other), need, room)
        if k > 0:
            return more
        if room == 0:
            return literal("")
        first = seq(other, repeat(seq(comma, other), max(need - 1, 0), None if room is None else room - 1))
        return first if need > 0 else Alt((first, literal("")))

    def state(i: int, k: int) -> Expr | None:
        k = min(k, top) if hi is None else k
        key = (i, k)
        if key in memo:
            return memo[key]
        memo[key] = None  # no cycles (i grows), but a state is built once
        if i == n:
            expr = others(k)
        else:
            member, required = members[i]
            branches: list[Expr] = []
            if hi is None or k + 1 <= hi:
                after = state(i + 1, k + 1)
                if after is not None:
                    branches.append(seq(comma, member, after) if k > 0 else seq(member, after))
            if not required:
                skip = state(i + 1, k)
                if skip is not None:
                    branches.append(skip)
            # the branches differ in their first key (this member's, or a later one): no overlap
            expr = None if not branches else branches[0] if len(branches) == 1 else Alt(tuple(branches))
            if expr is not None and i > 0:
                expr = c.helper_rule(expr, f"{hint}/count")
        memo[key] = expr
        return expr

    for i in range(n, -1, -1):  # build from the end, so that recursion stays shallow
        for k in range(min(i, top) if hi is None else min(i, hi), -1, -1):
            state(i, k)
    return state(0, 0)
