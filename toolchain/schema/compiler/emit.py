"""From a conjunction's collected keywords to one grammar alternative per JSON type.

``null`` and booleans (and every ``enum``/``const``) are finite: each candidate value is checked
against the whole conjunction with python-jsonschema, so whatever keywords sit beside them —
``not``, ``if``, formats, ``$ref``s — they are exact. Numbers, strings, arrays and objects are built
from their keywords by :mod:`.numbers`, :mod:`.strings`, :mod:`.arrays` and :mod:`.objects`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gramwright.grammar.ir import Expr, alt, literal, seq
from gramwright.schema.compiler import keywords as kw
from gramwright.schema.compiler.collector import Collector
from gramwright.schema.compiler.numbers import NumberResult, NumberSpec, number_expr
from gramwright.schema.compiler.parts import Part
from gramwright.schema.errors import UnsatisfiableSchema

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler


class TypeUnsat(Exception):
    """No value of one JSON type satisfies the conjunction (other types may)."""


def collect(c: Compiler, parts: list[Part]) -> Collector:
    col = Collector(parts)
    for p in parts:
        if p.negated:
            continue
        table = kw.KEYWORDS[p.loc.draft]
        for key, value in p.schema.items():
            if key in p.consumed:
                continue
            if key == "format" and c.options.formats != "assert":
                continue
            handler = table.get(key)
            if handler is None or key in c.registry.disabled:
                continue
            handler(c, col, value, p)
            c.note(p.pointer(key), "exact")
    return col


def emit(c: Compiler, parts: list[Part], hint: str) -> Expr:
    col = collect(c, parts)
    if col.enum is not None:
        return _enum(c, col, parts)
    from gramwright.schema.compiler.negation import apply_negations

    apply_negations(c, col, [p for p in parts if p.negated])
    alts: list[Expr] = []
    reasons: list[str] = []
    if "null" in col.types and c.valid(None, parts):
        alts.append(literal("null"))
    if "boolean" in col.types:
        alts.extend(literal(json.dumps(b)) for b in (True, False) if c.valid(b, parts))
    emitters = (
        ("integer", _numbers),
        ("string", _strings),
        ("array", _arrays),
        ("object", _objects),
    )
    for name, fn in emitters:
        if name == "integer" and not ({"integer", "fraction"} & col.types):
            continue
        if name != "integer" and name not in col.types:
            continue
        try:
            expr = fn(c, col, hint)
        except TypeUnsat as exc:
            reasons.append(str(exc))
            continue
        if expr is not None and name in ("integer", "string") and _grounded(parts):
            expr = _placeholder(c, col, parts, name, expr, hint)
        if expr is not None:
            alts.append(expr)
    if not alts:
        why = "; ".join(reasons) or "the keywords exclude every JSON type"
        raise UnsatisfiableSchema(hint, f"no value satisfies the schema ({why})")
    return alt(*alts)


def _grounded(parts: list[Part]) -> bool:
    from gramwright.schema.grounding import GROUNDED

    return any(not p.negated and isinstance(p.schema, dict) and p.schema.get(GROUNDED) is True for p in parts)


def _placeholder(c: Compiler, col: Collector, parts: list[Part], name: str, expr: Expr, hint: str) -> Expr:
    """The member's ordinary grammar in a rule of its own, listed for grounding: a source given
    at generation replaces the rule's body with the source's values (``schema.grounding``)."""
    from gramwright.schema.grounding import GroundKind, GroundSpec

    if name == "string":
        for ptr in [p for _, p in col.patterns] + [p for _, p in col.formats] + col.excluded_string_ptrs:
            c.note(ptr, "approximated", "x-grounded: the source's substrings are not narrowed by it")
        rule = c.helper_rule(expr, hint + "/grounded-string")
        spec = GroundSpec(rule.name, hint, "string", col.min_length, col.max_length)
    else:
        kind: GroundKind = "integer" if "fraction" not in col.types else "number"
        rule = c.helper_rule(expr, hint + f"/grounded-{kind}")
        held = list(parts)

        def accepts(value: Any) -> bool:
            # the schema's own test of a candidate (bounds, multipleOf, not …), as for enums
            return c.valid(value, held)

        spec = GroundSpec(rule.name, hint, kind, accepts=accepts)
    c.grounded.append(spec)
    c.rule_pointers[rule.name] = hint
    return rule


# Keywords an enum candidate is already known to satisfy (the enum itself) or checked cheaply.
_ENUM_SIDE = frozenset({"enum", "const", "type"})


def _enum(c: Compiler, col: Collector, parts: list[Part]) -> Expr:
    """The enum values that satisfy every part, each checked by validation (exact).

    Parts that say no more than ``enum``/``const``/``type`` need no validator: every candidate is
    in each enum already (they were intersected) and the type is checked directly.
    """
    from gramwright.schema.canonical import json_key
    from gramwright.schema.compiler.types import collector_type

    assert col.enum is not None
    draft4 = c.registry.root_draft <= 4
    candidates = list(col.enum)
    if draft4:
        # 1 and 1.0 are equal for enum but not for type: both texts are candidates.
        for v in col.enum:
            if isinstance(v, int | float) and not isinstance(v, bool) and float(v).is_integer():
                candidates.append(float(v) if isinstance(v, int) else int(v))
    to_validate = [p for p in parts if p.negated or _asserted(c, p) - _ENUM_SIDE]
    values: list[Any] = []
    seen: set[Any] = set()
    for v in candidates:
        key = (json_key(v), type(v) is float) if draft4 else json_key(v)
        if key in seen:
            continue
        seen.add(key)
        kind = "fraction" if draft4 and isinstance(v, float) else collector_type(v)
        if kind not in col.types:
            continue
        try:
            ok = c.valid(v, to_validate)
        except Exception:  # noqa: BLE001 - a value the validator cannot check is kept (superset)
            ok = True
        if ok:
            values.append(v)
    if not values:
        raise UnsatisfiableSchema(col.enum_ptrs[0], "no enum/const value satisfies the other keywords")
    return alt(*(value_expr(c, v) for v in values))


def _asserted(c: Compiler, p: Part) -> set[str]:
    return {k for k in p.schema if k not in p.consumed and c.asserts(k, p.loc.draft)}


_SCALARS = (str, int, float, bool, type(None))


def value_expr(c: Compiler, value: Any) -> Expr:
    """A JSON value as a literal: canonical text, with whitespace gaps when flexible.

    Scalars are memoised per compilation (long enums are compiled once per conjunction they
    meet). The key includes the type: ``1``, ``1.0`` and ``True`` are equal in Python."""
    if type(value) in _SCALARS:
        key = (type(value), value)
        got = c.scalar_literals.get(key)
        if got is None:
            got = c.scalar_literals[key] = _value_expr(c, value)
        return got
    return _value_expr(c, value)


def _value_expr(c: Compiler, value: Any) -> Expr:
    from gramwright.schema.canonical import dumps

    draft4 = c.registry.root_draft <= 4
    if c.options.whitespace != "flexible" or not isinstance(value, dict | list) or not value:
        return literal(dumps(value, draft4))
    comma = seq(c.ws, literal(","), c.ws)
    items: list[Expr] = []
    if isinstance(value, list):
        for i, v in enumerate(value):
            items.extend([comma] if i else [])
            items.append(value_expr(c, v))
        return seq(literal("["), c.ws, *items, c.ws, literal("]"))
    for i, (k, v) in enumerate(value.items()):
        items.extend([comma] if i else [])
        items.extend([literal(json.dumps(k, ensure_ascii=False)), c.ws, literal(":"), c.ws, value_expr(c, v)])
    return seq(literal("{"), c.ws, *items, c.ws, literal("}"))


def _numbers(c: Compiler, col: Collector, hint: str) -> Expr | None:
    spec = col.number
    spec.allow_int = "integer" in col.types
    spec.allow_frac = "fraction" in col.types
    spec.float_integrals = spec.allow_frac and c.registry.root_draft <= 4
    result = number_expr(spec)
    if result.approximated.get("multipleOf", "").startswith("divisibility by") and not spec.excluded:
        _divisible(c, spec, result, hint)
    for role, reason in result.approximated.items():
        ptrs = {"bounds": col.bound_ptrs, "multipleOf": col.multiple_ptrs, "not": col.negation_ptrs}[role]
        for ptr in ptrs:
            c.note(ptr, "approximated", reason)
    for ptr in col.multiple_ptrs:
        m = spec.multiples
        if any(x.denominator != 1 for x in m):
            c.note(ptr, "approximated", "decimal multipleOf: binary-float validators may disagree")
    if result.expr is None:
        raise TypeUnsat("no number satisfies the numeric keywords")
    return result.expr


def _divisible(c: Compiler, spec: NumberSpec, result: NumberResult, hint: str) -> None:
    """Integer ``multipleOf`` over a large range as a remainder automaton, where it is small enough."""
    from gramwright.schema.compiler.divisible import MAX_STATES, divisible_integers, divisible_states
    from gramwright.schema.compiler.numbers import int_bounds, integer_multiple

    k, _ = integer_multiple(spec)
    lo, hi = int_bounds(spec)
    states = divisible_states(k, lo, hi)
    if states > MAX_STATES:
        result.approximated["multipleOf"] = (
            f"divisibility by {k} over this range needs {states} automaton states (limit {MAX_STATES})"
        )
        return
    result.expr = divisible_integers(c, k, lo, hi, hint)
    del result.approximated["multipleOf"]


def _strings(c: Compiler, col: Collector, hint: str) -> Expr | None:
    from gramwright.schema.compiler.strings import string_expr

    expr = string_expr(c, col)
    if expr is None:
        raise TypeUnsat("no string satisfies the string keywords")
    return expr


def _arrays(c: Compiler, col: Collector, hint: str) -> Expr | None:
    from gramwright.schema.compiler.arrays import array_expr

    return array_expr(c, col, hint)


def _objects(c: Compiler, col: Collector, hint: str) -> Expr | None:
    from gramwright.schema.compiler.objects import object_expr

    return object_expr(c, col, hint)
