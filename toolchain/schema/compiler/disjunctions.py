"""Disjunctive keywords: one alternative per branch, ``A ∧ (B ∨ C) = (A ∧ B) ∨ (A ∧ C)``.

* ``anyOf`` — exact.
* ``oneOf`` — compiled as ``anyOf``; exact when the branches are provably disjoint (their possible
  types do not overlap, their ``const``/``enum`` values differ, or they are objects that require a
  discriminating property with different constant values), else approximated ("more than one
  branch may match" is not enforced).
* ``if``/``then``/``else`` — ``(if ∧ then) ∨ (¬if ∧ else)``; exact when ``¬if`` is (see
  :mod:`.negation`).
* ``dependentRequired``/``dependentSchemas``/``dependencies`` — per key ``k``:
  ``¬(object with k) ∨ (object with k ∧ dependency)``.

Each split multiplies rules; past ``max_alternatives`` in one schema the remaining disjunctions
are dropped (the grammar becomes a superset) and reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gramwright.grammar.ir import Expr, alt
from gramwright.pointer import join_pointer
from gramwright.schema.compiler.collector import ALL_TYPES
from gramwright.schema.compiler.parts import DISJUNCTIVE, Part
from gramwright.schema.compiler.types import collector_type, declared_types, possible_types
from gramwright.schema.errors import UnsatisfiableSchema, UnsupportedSchema
from gramwright.schema.resolve import Loc

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler, ConjKey


def distribute(
    c: Compiler, parts: list[Part], i: int, keyword: str, hint: str, chain: frozenset[ConjKey], key: ConjKey
) -> Expr:
    from gramwright.schema.compiler.core import ZeroWidthCycle

    p = parts[i]
    rest = parts[:i] + parts[i + 1 :]
    ptr = p.pointer(keyword)
    branches, consumed, sub_ptr = _branches(c, p, keyword)
    if not branches:
        c.note(sub_ptr, "exact")
        return c.conj([*rest, consumed], hint, chain)
    c.distributions += len(branches)
    if c.distributions > c.options.max_alternatives:
        return c.conj(_drop_disjunctions(c, parts), hint, chain)
    why = quick_unsat(c, parts)
    if why:
        raise UnsatisfiableSchema(hint, why)
    alts: list[Expr] = []
    reasons: list[str] = []
    for j, extra in enumerate(branches):
        branch_hint = extra[-1].loc.pointer if keyword in ("anyOf", "oneOf") else f"{sub_ptr}/{j}"
        try:
            alts.append(c.conj([*rest, consumed, *extra], branch_hint, chain))
        except ZeroWidthCycle as cycle:
            if cycle.key != key:
                raise
            # A branch that is this very conjunction again adds nothing (least fixed point).
        except UnsatisfiableSchema as exc:
            reasons.append(exc.reason)
    if not alts:
        why = "; ".join(dict.fromkeys(reasons)) or "every branch refers back to itself"
        raise UnsatisfiableSchema(ptr, f"no branch of {keyword} is satisfiable ({why})", keyword=keyword)
    if keyword == "oneOf":
        if _disjoint(c, rest, p, branches):
            c.note(ptr, "exact")
        else:
            c.note(
                ptr,
                "approximated",
                "compiled as anyOf: an instance matching several branches is not rejected",
            )
    else:
        c.note(sub_ptr, "exact")
    if keyword == "if" and "then" in p.schema and not c.report.is_exact(ptr):
        # ¬if was widened: an instance that matches `if` may pass through the else branch.
        c.note(p.pointer("then"), "approximated", "not enforced where the widened ¬if branch also matches")
    return alt(*alts)


def _branches(c: Compiler, p: Part, keyword: str) -> tuple[list[list[Part]], Part, str]:
    """The extra parts of each branch, the part with the keyword consumed, the pointer reported."""
    s = p.schema
    ptr = p.pointer(keyword)
    if keyword in ("anyOf", "oneOf"):
        value = s[keyword]
        if not isinstance(value, list) or not value:
            raise UnsupportedSchema(ptr, f"{keyword} must be a non-empty array", keyword=keyword)
        return _alternatives(c, p.loc, keyword, len(value)), p.consume(keyword), ptr
    if keyword == "if":
        consumed = p.consume("if")
        has_then, has_else = "then" in s, "else" in s
        if not has_then and not has_else:
            return [], consumed, ptr
        cond = c.registry.child(p.loc, "if")
        then = [Part(c.registry.child(p.loc, "then"))] if has_then else []
        otherwise = [Part(c.registry.child(p.loc, "else"))] if has_else else []
        rewritten = negated_object_condition(c, cond, ptr)
        not_cond = Part(rewritten) if rewritten is not None else Part(cond, negated=True, report_as=ptr)
        b1 = [Part(cond), *then]
        b2 = [not_cond, *otherwise]
        for companion in ("then", "else"):
            if companion in s:
                c.note(p.pointer(companion), "exact")
        return [b1, b2], consumed, ptr
    # dependentRequired / dependentSchemas / dependencies: one property name at a time
    value = s[keyword]
    if not isinstance(value, dict):
        raise UnsupportedSchema(ptr, f"{keyword} must be an object", keyword=keyword)
    for name, dep in value.items():
        token = f"{keyword}/{name}"
        if token in p.consumed:
            continue
        consumed = p.consume(token)
        if len(consumed.consumed & {f"{keyword}/{n}" for n in value}) == len(value):
            consumed = consumed.consume(keyword)
        sub_ptr = join_pointer(ptr, name)
        has_k = c.synthetic(
            ("has", id(s), keyword, name), {"type": "object", "required": [name]}, p.loc, sub_ptr
        )
        without = Part(has_k, negated=True, report_as=sub_ptr)
        if isinstance(dep, list):
            if not dep:
                return [], consumed, sub_ptr
            needs = c.synthetic(("needs", id(s), keyword, name), {"required": [name, *dep]}, p.loc, sub_ptr)
            return [[without], [Part(needs)]], consumed, sub_ptr
        if dep is True or (isinstance(dep, dict) and not dep):
            return [], consumed, sub_ptr
        return [[without], [Part(has_k), Part(c.registry.child(p.loc, keyword, name))]], consumed, sub_ptr
    return [], p.consume(keyword), ptr


def _alternatives(c: Compiler, loc: Loc, keyword: str, n: int) -> list[list[Part]]:
    """One part per ``anyOf``/``oneOf`` branch: the same lists every time the keyword is split
    again (a big ``anyOf`` meets every combination of the other disjunctions); only computed
    afresh where the dynamic scope makes locations differ."""
    if c.registry.has_dynamic:
        return [[Part(c.registry.child(loc, keyword, j))] for j in range(n)]
    key = (id(loc.schema), keyword)
    got = c.branch_parts.get(key)
    if got is None or len(got) != n:
        got = c.branch_parts[key] = [[Part(c.registry.child(loc, keyword, j))] for j in range(n)]
    return got


def _disjoint(c: Compiler, rest: list[Part], p: Part, branches: list[list[Part]]) -> bool:
    """True when no instance can satisfy two branches (together with the rest of the schema)."""
    sigs = [_signature(c, [*rest, p.consume("oneOf"), *extra]) for extra in branches]
    for a in range(len(sigs)):
        for b in range(a + 1, len(sigs)):
            if not _separated(sigs[a], sigs[b]):
                return False
    return True


_Signature = tuple[set[str], list[Any] | None, dict[str, list[Any]]]


def _signature(c: Compiler, parts: list[Part]) -> _Signature:
    """(possible types, top-level constant values or None, required property → constant values)."""
    try:
        flat = c.flatten(parts)
    except (UnsatisfiableSchema, UnsupportedSchema):
        return set(), [], {}
    types = possible_types(flat)
    consts: list[Any] | None = None
    required: set[str] = set()
    props: dict[str, list[Any]] = {}
    for part in flat:
        if part.negated or not isinstance(part.schema, dict):
            continue
        s = part.schema
        for key in ("const", "enum"):
            if key in s and key not in part.consumed and (key == "enum" or part.loc.draft >= 6):
                values = [s[key]] if key == "const" else list(s[key]) if isinstance(s[key], list) else None
                if values is not None:
                    consts = values if consts is None else [v for v in consts if _member(v, values)]
        if isinstance(s.get("required"), list):
            required.update(n for n in s["required"] if isinstance(n, str))
        if isinstance(s.get("properties"), dict):
            for name, sub in s["properties"].items():
                if isinstance(sub, dict):
                    if "const" in sub and part.loc.draft >= 6:
                        props[name] = [sub["const"]]
                    elif isinstance(sub.get("enum"), list):
                        props[name] = list(sub["enum"])
    discriminators = {n: v for n, v in props.items() if n in required}
    return types, consts, discriminators


def _member(value: Any, values: list[Any]) -> bool:
    from gramwright.schema.canonical import json_equal

    return any(json_equal(value, w) for w in values)


def _separated(a: _Signature, b: _Signature) -> bool:
    types_a, consts_a, disc_a = a
    types_b, consts_b, disc_b = b
    if not (types_a & types_b):
        return True
    if consts_a is not None and consts_b is not None and not any(_member(v, consts_b) for v in consts_a):
        return True
    if consts_a is not None and not any(collector_type(v) in types_b for v in consts_a):
        return True
    if (types_a & types_b) <= {"object"}:
        for name, values in disc_a.items():
            other = disc_b.get(name)
            if other is not None and not any(_member(v, other) for v in values):
                return True
    return False


def negated_object_condition(c: Compiler, cond: Loc, ptr: str) -> Loc | None:
    """``¬{properties: {p: S…}, required: [r…]}`` as a schema the compiler can build exactly.

    The usual ``if`` (a discriminator: "this property has that value") holds for every non-object,
    so its negation is an object that lacks a required name or has a property failing its schema:
    ``{"type": "object", "anyOf": [{"not": {"required": [r]}}, …, {"required": [p],
    "properties": {p: {"not": S}}}, …]}`` (with non-objects added back when the condition itself
    says ``"type": "object"``). None when the condition has another shape.
    """
    s = cond.schema
    if not isinstance(s, dict):
        return None
    keys = {k for k in s if c.asserts(k, cond.draft)}
    if not keys <= {"properties", "required", "type"} or not (keys - {"type"}):
        return None
    if "type" in s and s["type"] != "object":
        return None
    props = s.get("properties", {})
    required = s.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list) or cond.draft <= 3:
        return None
    pieces: list[dict[str, Any]] = [{"type": "object", "not": {"required": [name]}} for name in required]
    for name, sub in props.items():
        if sub is True or sub == {}:
            continue
        pieces.append({"type": "object", "required": [name], "properties": {name: {"not": sub}}})
    if "type" in s:
        pieces.append({"not": {"type": "object"}})
    if not pieces:
        return None
    schema: dict[str, Any] = {"anyOf": pieces}
    if "type" not in s:
        schema["type"] = "object"
    return c.synthetic(("not-if", id(s)), schema, cond, ptr)


def _drop_disjunctions(c: Compiler, parts: list[Part]) -> list[Part]:
    """Past the budget: every remaining disjunctive keyword is dropped at once (a superset)."""
    out: list[Part] = []
    for p in parts:
        if not p.negated and isinstance(p.schema, dict):
            for keyword in DISJUNCTIVE:
                if keyword in p.schema and keyword not in p.consumed and c.asserts(keyword, p.loc.draft):
                    why = "too many combinations of disjunctive keywords; dropped"
                    c.note(p.pointer(keyword), "approximated", why)
                    if keyword == "if":  # what then/else require is dropped with it
                        for companion in ("then", "else"):
                            if companion in p.schema:
                                c.note(p.pointer(companion), "approximated", why)
                    p = p.consume(keyword)
        out.append(p)
    return out


class _PartFacts:
    """What one part says for sure (see :class:`_Facts`); computed once per part and draft."""

    __slots__ = ("allowed", "excluded", "forbidden", "required", "types")

    def __init__(self, c: Compiler, p: Part) -> None:
        from gramwright.schema.canonical import json_key

        self.types: set[str] | None = None  # None: says nothing about types
        self.required: list[str] = []
        self.allowed: list[tuple[str, set[Any]]] = []
        self.excluded: list[tuple[str, set[Any]]] = []
        self.forbidden: str | None = None
        s = p.schema
        if p.negated or (isinstance(s, dict) and "*" in p.consumed):
            return
        self.types = declared_types(s, p.loc.draft)
        if not isinstance(s, dict):
            return
        neg = s.get("not")
        if (
            isinstance(neg, dict)
            and set(neg) == {"required"}
            and isinstance(neg["required"], list)
            and len(neg["required"]) == 1
            and s.get("type") == "object"
        ):
            self.forbidden = neg["required"][0]
        req = s.get("required")
        if isinstance(req, list) and c.asserts("required", p.loc.draft):
            self.required = [n for n in req if isinstance(n, str)]
        props = s.get("properties")
        if not isinstance(props, dict):
            return
        for name, sub in props.items():
            if not isinstance(sub, dict):
                continue
            values = _constants(sub, p.loc.draft)
            if values is not None:
                self.allowed.append((name, {json_key(v) for v in values}))
            inner = sub.get("not")
            if isinstance(inner, dict) and len(inner) == 1:
                values = _constants(inner, p.loc.draft)
                if values is not None:
                    self.excluded.append((name, {json_key(v) for v in values}))


def _part_facts(c: Compiler, p: Part) -> _PartFacts:
    memo = c.part_facts
    key = (p.key(), p.loc.draft)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _PartFacts(c, p)
    return got


class _Facts:
    """What a conjunction says for sure about objects: required names, allowed/excluded constants.

    The union of what each part says (:class:`_PartFacts`, memoised per part: the long ``if``
    chains of discriminator schemas ask about the same parts once per link)."""

    def __init__(self, c: Compiler, parts: list[Part]) -> None:
        self.types = set(ALL_TYPES)
        self.required: set[str] = set()
        self.allowed: dict[str, set[Any]] = {}
        self.excluded: dict[str, set[Any]] = {}
        self.forbidden: set[str] = set()
        self._possible: dict[str, set[Any]] = {}
        for p in parts:
            f = _part_facts(c, p)
            if f.types is None:
                continue
            self.types &= f.types
            if f.forbidden is not None:
                self.forbidden.add(f.forbidden)
            self.required.update(f.required)
            for name, keys in f.allowed:
                self.allowed[name] = keys if name not in self.allowed else self.allowed[name] & keys
            for name, keys in f.excluded:
                self.excluded.setdefault(name, set()).update(keys)

    def possible(self, name: str) -> set[Any] | None:
        """The constants ``name`` may still take (None: unknown); memoised (every ``if`` of a
        chain asks about the same discriminator, whose enum may be long)."""
        if name not in self.allowed:
            return None
        got = self._possible.get(name)
        if got is None:
            got = self._possible[name] = self.allowed[name] - self.excluded.get(name, set())
        return got


def quick_unsat(c: Compiler, parts: list[Part]) -> str:
    """A cheap, sound test that a conjunction is unsatisfiable (before splitting it further).

    Catches what branch combinations of discriminator-style schemas produce: a property that is
    required and must equal two different constants (or a constant that another part excludes),
    and parts whose types do not intersect.
    """
    facts = _Facts(c, parts)
    if not facts.types:
        return "the parts admit no common JSON type"
    if not facts.types <= {"object"}:
        return ""
    if facts.required & facts.forbidden:
        return f"property {sorted(facts.required & facts.forbidden)[0]!r} is both required and forbidden"
    for name in facts.required:
        possible = facts.possible(name)
        if possible is not None and not possible:
            return f"property {name!r} cannot satisfy its constant values in every branch"
    return ""


def decide_ifs(c: Compiler, parts: list[Part]) -> list[Part] | None:
    """Replace every ``if`` the conjunction already decides by its ``then``/``else``; None if none.

    Only discriminator conditions (``properties`` with one ``const``/``enum`` each, ``required``)
    are decided, from what the parts say for sure (a part's own keywords hold too).
    """
    facts: _Facts | None = None
    out: list[Part] = []
    changed = False
    for p in parts:
        s = p.schema
        if p.negated or not isinstance(s, dict) or "if" not in s or "if" in p.consumed or p.loc.draft < 7:
            out.append(p)
            continue
        if facts is None:
            facts = _Facts(c, parts)
        verdict = _decide(c, facts, p)
        if verdict is None:
            out.append(p)
            continue
        changed = True
        c.note(p.pointer("if"), "exact")
        out.append(p.consume("if"))
        branch = "then" if verdict else "else"
        if branch in s:
            c.note(p.pointer(branch), "exact")
            out.append(Part(c.registry.child(p.loc, branch)))
    return out if changed else None


_Tests = tuple[list[Any], list[tuple[str, set[Any]]]]


def _condition_tests(c: Compiler, p: Part) -> _Tests | None:
    """``(required, [(name, allowed constant keys)])`` of a discriminator ``if`` (None: another
    shape), memoised per ``if`` schema and draft."""
    memo = c.condition_tests
    cond = p.schema["if"]
    key = (id(cond), p.loc.draft)
    if key in memo:
        known: _Tests | None = memo[key]
        return known
    got = _condition_tests_uncached(c, cond, p.loc.draft)
    memo[key] = got
    return got


def _condition_tests_uncached(c: Compiler, cond: Any, draft: int) -> _Tests | None:
    from gramwright.schema.canonical import json_key

    if not isinstance(cond, dict):
        return None
    keys = {k for k in cond if c.asserts(k, draft)}
    if not keys or not keys <= {"properties", "required"}:
        return None
    props = cond.get("properties", {})
    required = cond.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    tests: list[tuple[str, set[Any]]] = []
    for name, sub in props.items():
        if sub is True or sub == {}:
            continue
        values = _constants(sub, draft) if isinstance(sub, dict) and len(sub) == 1 else None
        if values is None:
            return None
        tests.append((name, {json_key(v) for v in values}))
    return required, tests


def _decide(c: Compiler, facts: _Facts, p: Part) -> bool | None:
    got = _condition_tests(c, p)
    if got is None:
        return None
    required, tests = got
    false = facts.types <= {"object"} and any(
        name in facts.required and (possible := facts.possible(name)) is not None and not (possible & values)
        for name, values in tests
    )
    true = all(name in facts.required for name in required) and all(
        (possible := facts.possible(name)) is not None and possible <= values for name, values in tests
    )
    if false == true:
        return None
    return true


def _constants(schema: dict[str, Any], draft: int) -> list[Any] | None:
    if "const" in schema and draft >= 6:
        return [schema["const"]]
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    return None
