"""Array grammars: positional items, the rest, item counts, ``contains``, ``uniqueItems``.

Each position's schema is the conjunction of what every part says about it (``prefixItems`` /
tuple ``items`` for its index, else ``items``/``additionalItems``), compiled as one rule. Exact:
prefix + rest with any ``minItems``/``maxItems`` (counts above ``max_repeat`` are widened);
``contains`` with ``minContains`` ≤ 3 and no ``maxContains`` when there is no prefix and no
``maxItems``. ``uniqueItems`` is exact only when at most one item is possible; otherwise it is
reported as approximated, like the ``contains`` forms not listed above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gramwright.grammar.ir import Expr, Ref, literal, repeat, seq
from gramwright.schema.compiler.collector import Collector
from gramwright.schema.compiler.emit import TypeUnsat
from gramwright.schema.compiler.parts import Part
from gramwright.schema.errors import UnsatisfiableSchema

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler


def array_expr(c: Compiler, col: Collector, hint: str) -> Expr:
    lo, hi = col.min_items, col.max_items
    if hi is not None and lo > hi:
        raise TypeUnsat(f"minItems {lo} > maxItems {hi}")
    prefix_len = max((len(ap.prefix) for ap in col.arrays), default=0)
    negations = col.item_negations

    def item_parts(i: int) -> list[Part]:
        out: list[Part] = []
        for ap in col.arrays:
            if i < len(ap.prefix):
                out.append(Part(ap.prefix[i]))
            elif ap.rest is not None:
                out.append(Part(ap.rest))
        out.extend(negations)
        return out

    def item_hint(i: int) -> str:
        for ap in col.arrays:
            if i < len(ap.prefix):
                return ap.prefix[i].pointer
            if ap.rest is not None:
                return ap.rest.pointer
        return f"{hint}/items"

    elems: list[Expr] = []
    for i in range(prefix_len):
        if hi is not None and i >= hi:
            break
        try:
            elems.append(c.conj(item_parts(i), item_hint(i), frozenset()))
        except UnsatisfiableSchema:
            hi = i if hi is None else min(hi, i)
            break
    rest: Expr | None
    if hi is not None and hi <= len(elems) and len(elems) < prefix_len:
        rest = None
    else:
        try:
            rest = c.conj(item_parts(prefix_len), item_hint(prefix_len), frozenset())
        except UnsatisfiableSchema:
            rest = None
            hi = prefix_len if hi is None else min(hi, prefix_len)
    if hi is not None and lo > hi:
        raise TypeUnsat(f"at least {lo} items required but at most {hi} are possible")

    comma = seq(c.ws, literal(","), c.ws)
    body = _contains_body(c, col, elems, rest, lo, hi, comma, item_parts)
    if body is None:
        body = _items_body(c, col, elems, rest, lo, hi, comma)
    for ptr in col.unique_ptrs:
        if hi is not None and hi <= 1:
            c.note(ptr, "exact")
        else:
            c.note(ptr, "approximated", "uniqueness of items is not enforced")
    return seq(literal("["), c.ws, body, c.ws, literal("]"))


def _items_body(
    c: Compiler, col: Collector, elems: list[Expr], rest: Expr | None, lo: int, hi: int | None, comma: Expr
) -> Expr:
    cap = c.options.max_repeat
    n = len(elems)
    rest_lo = max(0, lo - n)
    rest_hi = None if hi is None else max(0, hi - n)
    if rest is None:
        rest_hi = 0
    if rest_lo > cap or (rest_hi is not None and rest_hi > cap):
        for ptr in col.items_count_ptrs:
            c.note(ptr, "approximated", f"item counts above {cap} are not enforced")
        rest_lo = min(rest_lo, cap)
        if rest_hi is not None and rest_hi > cap:
            rest_hi = None
    if rest is None or rest_hi == 0:
        tail: Expr = literal("")
    elif n == 0:
        first = seq(
            rest, repeat(seq(comma, rest), max(0, rest_lo - 1), None if rest_hi is None else rest_hi - 1)
        )
        tail = first if rest_lo > 0 else repeat(first, 0, 1)
    else:
        tail = repeat(seq(comma, rest), rest_lo, rest_hi)
    # Positions are nested optionals: an item can only be present when the one before it is.
    for i in range(n - 1, -1, -1):
        item = elems[i] if i == 0 else seq(comma, elems[i])
        tail = seq(item, tail)
        if i >= lo:
            tail = repeat(tail, 0, 1)
    return tail


def _contains_body(
    c: Compiler,
    col: Collector,
    elems: list[Expr],
    rest: Expr | None,
    lo: int,
    hi: int | None,
    comma: Expr,
    item_parts: object,
) -> Expr | None:
    """The exact ``contains`` form, or None (after reporting the approximation) when not possible."""
    if not col.contains:
        return None
    usable = [x for x in col.contains if x[1] > 0 or x[2] is not None]
    for _loc, lo_c, hi_c, ptr in col.contains:
        if lo_c == 0 and hi_c is None:
            c.note(ptr, "exact")  # minContains 0: contains asserts nothing
    if not usable:
        return None
    loc, k, k_max, ptr = usable[0]
    if len(usable) > 1 or elems or hi is not None or k_max is not None or k > 3 or k == 0 or rest is None:
        for _, lo_c, hi_c, p in usable:
            c.note(p, "approximated", "this form of contains is not enforced")
            base = p.rsplit("/", 1)[0]
            if hi_c is not None:
                c.note(f"{base}/maxContains", "approximated", "not enforced (see contains)")
            if lo_c != 1:
                c.note(f"{base}/minContains", "approximated", "not enforced (see contains)")
        if rest is None and not elems and any(x[1] > 0 for x in usable):
            raise TypeUnsat("contains needs an item but no item is allowed")
        return None
    assert callable(item_parts)
    parts: list[Part] = [*item_parts(0), Part(loc)]
    try:
        match = c.conj(parts, loc.pointer, frozenset())
    except UnsatisfiableSchema as exc:
        raise TypeUnsat(f"no item can satisfy contains ({exc.reason})") from None
    if lo > k:
        for p in col.items_count_ptrs:
            c.note(p, "approximated", "minItems beyond minContains is not combined with contains")
    assert isinstance(rest, Ref | Expr)
    any_before = repeat(seq(rest, comma), 0, None)
    any_after = repeat(seq(comma, rest), 0, None)
    pieces: list[Expr] = [any_before, match]
    for _ in range(k - 1):
        pieces.extend([any_after, comma, match])
    pieces.append(any_after)
    return seq(*pieces)
