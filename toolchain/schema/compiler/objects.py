"""Object grammars: declared members in order, then the other members.

Declared members (every name any part lists in ``properties`` or ``required``) come first, in
schema order (or required-first), each with the conjunction of what every part says about that
name (its ``properties`` entry, else the ``patternProperties`` it matches, else its
``additionalProperties``) as one rule; optional ones may be skipped. Other members follow, in any
order, with keys that are none of the declared names (a trie complement, so a declared name can
never slip in with the wrong value).

Exact: ``properties``, ``required``, ``additionalProperties`` (false / schema / absent), one
``patternProperties`` entry beside ``additionalProperties: false`` (or several whose schemas
accept everything), ``propertyNames`` on declared names and on other keys when no declared name
satisfies it, ``min/maxProperties`` when the count is fixed by the required members or there are
no optional members, and over optional members by counting along the member sequence
(:mod:`gramwright.schema.compiler.counts`; widened past its state limit, with the size). Other
combinations are widened and reported.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING

from gramwright.grammar.ir import Alt, Expr, Ref, alt, literal, repeat, seq
from gramwright.pointer import join_pointer
from gramwright.schema.compiler.collector import Collector, ObjectPart
from gramwright.schema.compiler.emit import TypeUnsat
from gramwright.schema.compiler.jsontext import QUOTE, string_literal
from gramwright.schema.compiler.parts import Part
from gramwright.schema.errors import UnsatisfiableSchema
from gramwright.schema.resolve import Loc

if TYPE_CHECKING:
    from gramwright.schema.compiler.core import Compiler


def _search(pattern: str, name: str) -> bool | None:
    """Python ``re.search``, as python-jsonschema applies patternProperties; None if unusable."""
    try:
        return re.search(pattern, name) is not None
    except (re.error, RecursionError):
        return None


def _closable(op: ObjectPart) -> bool:
    """A part that declares members and says nothing about the others (the spec: "allowed")."""
    schema = op.part.schema
    return (
        op.additional is None
        and isinstance(schema, dict)
        and ("properties" in schema or "patternProperties" in schema)
        and "unevaluatedProperties" not in schema
    )


def _closing(c: Compiler, col: Collector) -> bool:
    """Does ``close_objects`` close this conjunction? It acts as ``unevaluatedProperties: false``
    over the whole conjunction, not as ``additionalProperties: false`` in each part: a member
    that one ``allOf`` part (or ``$ref`` target, or ``anyOf`` branch) declares is not forbidden by
    another part that does not list it, so composed objects keep all their declared members. A
    part that gives ``additionalProperties`` (or ``unevaluatedProperties``) a schema other than
    ``false`` asked for other members: then nothing is closed."""
    if not c.options.close_objects or not any(_closable(op) for op in col.objects):
        return False
    return all(op.additional is None or op.additional.schema is False for op in col.objects)


class _Objects:
    def __init__(self, c: Compiler, col: Collector, hint: str) -> None:
        self.c = c
        self.col = col
        self.hint = hint
        self.inexact_ptrs: list[str] = []
        self.closing = _closing(c, col)

    def closes(self, op: ObjectPart) -> bool:
        """Does ``op`` take no other members: ``additionalProperties: false``, or closed here."""
        return (op.additional is not None and op.additional.schema is False) or (
            self.closing and _closable(op)
        )

    # -- what one name's value must satisfy ---------------------------------------------------
    def value_parts(self, name: str) -> list[Part] | None:
        """The parts a member ``name`` must satisfy; None when some part forbids the name."""
        out: list[Part] = []
        for op in self.col.objects:
            if name in op.properties:
                out.append(Part(op.properties[name]))
                continue
            matched: list[Loc] = []
            unknown = False
            for pat, loc, ptr in op.patterns:
                m = _search(pat, name)
                if m is None:
                    unknown = True
                    self.c.note(ptr, "approximated", "pattern not usable by Python's re")
                elif m:
                    matched.append(loc)
            if matched:
                out.extend(Part(loc) for loc in matched)
            elif unknown:
                pass  # cannot tell: apply neither (a superset)
            elif op.additional is not None:
                out.append(Part(op.additional))
            # a closed part (``closing``) forbids no name the conjunction declares: see _closing
        out.extend(self.col.value_negations.get(name, []))
        return out

    def name_allowed(self, name: str) -> bool:
        return all(self.c.valid(name, [Part(loc)]) for loc, _ in self.col.property_names)

    # -- other members ------------------------------------------------------------------------
    def other_members(self, declared: list[str]) -> Expr | None:
        """One "other" member (key, colon, value), or None when no other key is allowed."""
        c, col = self.c, self.col
        ops = [op for op in col.objects if op.patterns or op.additional is not None or self.closes(op)]
        closed = self.closes
        if self.closing:
            c.closed_objects.extend(op.part.loc.pointer for op in ops if _closable(op))
            # keys another part's patternProperties admit are declared members too
            if not any(op.patterns for op in ops):
                return None
        elif any(closed(op) and not op.patterns for op in ops):
            return None
        add_parts = [Part(op.additional) for op in ops if op.additional is not None]
        patterns = [(pat, loc, ptr) for op in ops for pat, loc, ptr in op.patterns]
        alts: list[Expr] = []
        exact = True
        if patterns:
            trivial = all(_accepts_all(loc) for _, loc, _ in patterns)
            if len(ops) > 1 or not (closed(ops[0]) or trivial) or (len(patterns) > 1 and not trivial):
                exact = False
            for pat, loc, ptr in patterns:
                key, key_exact = self.pattern_key(pat, ptr, declared)
                exact = exact and key_exact
                try:
                    value = c.conj([Part(loc)], loc.pointer, frozenset())
                except UnsatisfiableSchema:
                    continue
                alts.append(self.member(key, value))
        if not (ops and all(closed(op) for op in ops)):
            hint = add_parts[0].loc.pointer if add_parts else f"{self.hint}/additionalProperties"
            with contextlib.suppress(UnsatisfiableSchema):  # no other key can have a valid value
                alts.append(self.member(self.free_key(declared), c.conj(add_parts, hint, frozenset())))
        if not exact:
            for op in ops:
                for _, _, ptr in op.patterns:
                    c.note(
                        ptr,
                        "approximated",
                        "keys matching several patterns or outside all patterns are widened",
                    )
                if op.additional is not None:
                    c.note(op.additional_ptr, "approximated", "combined with patternProperties as a superset")
        if not alts:
            return None
        # One rule for "another member": the object body repeats it (up to maxProperties times,
        # unrolled by the recognizer), so it must be a call, not a copy.
        return c.helper_rule(alt(*alts), f"{self.hint}/other")

    def pattern_key(self, pattern: str, ptr: str, declared: list[str]) -> tuple[Expr, bool]:
        from gramwright.schema.compiler.strings import _content_of_pattern, _translate

        content = _content_of_pattern(self.c, pattern, ptr)
        # the regex's own translation decides, not the report entry at ``ptr``: an object body
        # built twice (dependentRequired's branches) finds the first build's "widened" note there,
        # and every declared name was then said to match the pattern
        regex_exact = content is not None and _translate(pattern, self.c.options.max_repeat)[1]
        # A widened regex may admit any declared name (and keys additionalProperties governs).
        overlap = [n for n in declared if not regex_exact or _search(pattern, n) is not False]
        for n in overlap:
            self.c.note(
                _member_pointer(self.col, n, self.hint),
                "approximated",
                f"the name also matches patternProperties {pattern!r}: it may appear with only that schema",
            )
            if n in self.col.forbidden:
                self.c.note(self.col.forbidden[n], "approximated", f"{n!r} may still appear as a pattern key")
        for _, names_ptr in self.col.property_names:
            self.c.note(names_ptr, "approximated", "not applied to keys admitted by patternProperties")
        exact = regex_exact and not overlap
        if content is None:
            return Ref("string"), False
        rule = self.c.key_rules.get(("pattern", pattern))
        if rule is None:
            rule = self.c.helper_rule(seq(QUOTE, self.c.encoder.encode(content), QUOTE), f"{self.hint}/key")
            self.c.key_rules[("pattern", pattern)] = rule
        return rule, exact

    def free_key(self, declared: list[str]) -> Expr:
        """Keys other than the declared names (restricted by propertyNames where exact)."""
        from gramwright.schema.compiler.strings import _all_but

        c = self.c
        if self.col.property_names:
            locs = [Part(loc) for loc, _ in self.col.property_names]
            string_only = c.synthetic(("string",), {"type": "string"}, locs[0].loc, self.hint)
            key = c.conj([*locs, Part(string_only)], self.col.property_names[0][1], frozenset())
            overlap = [n for n in declared if self.name_allowed(n)]
            for n in overlap:
                c.note(
                    _member_pointer(self.col, n, self.hint),
                    "approximated",
                    "the name also satisfies propertyNames: it may appear as another property",
                )
            for _, ptr in self.col.property_names if overlap else ():
                c.note(ptr, "approximated", "a declared name also satisfies propertyNames")
            return key
        if not declared:
            return Ref("string")
        if sum(len(n) for n in declared) > _MAX_EXCLUDED_CHARS:
            # The exclusion trie would dwarf the rest of the grammar: accept any key and say so.
            for op in self.col.objects:
                if op.properties:
                    c.note(
                        op.part.pointer("properties"),
                        "approximated",
                        "too many names to exclude from other keys",
                    )
            return Ref("string")
        words = tuple(sorted(set(declared)))
        rule = c.key_rules.get(words)
        if rule is None:
            rule = c.helper_rule(seq(QUOTE, _all_but(c, list(words)), QUOTE), f"{self.hint}/key")
            c.key_rules[words] = rule
        return rule

    def member(self, key: Expr, value: Expr) -> Expr:
        ws = self.c.ws
        return seq(key, ws, literal(":"), ws, value)


def _accepts_all(loc: Loc) -> bool:
    s = loc.schema
    return s is True or (isinstance(s, dict) and not s)


def object_expr(c: Compiler, col: Collector, hint: str) -> Expr:
    ob = _Objects(c, col, hint)
    names: list[str] = []
    for op in col.objects:
        names.extend(n for n in op.properties if n not in names)
    names.extend(n for n in col.required if n not in names)
    names.extend(n for n in col.value_negations if n not in names)
    names.extend(n for n in col.forbidden if n not in names)  # so that other keys exclude them too
    if c.options.property_order == "required-first":
        names = [n for n in names if n in col.required] + [n for n in names if n not in col.required]
    members: list[tuple[Expr, bool]] = []
    for name in names:
        required = name in col.required
        why = ""
        parts = ob.value_parts(name)
        if name in col.forbidden:
            why = "forbidden by not"
        elif parts is None:
            why = "not allowed by additionalProperties"
        elif col.property_names and not ob.name_allowed(name):
            why = "rejected by propertyNames"
        if not why:
            assert parts is not None
            ptr = _member_pointer(col, name, hint)
            try:
                value = c.conj(parts, ptr, frozenset())
            except UnsatisfiableSchema as exc:
                why = exc.reason
            else:
                members.append((ob.member(string_literal(name), value), required))
                continue
        if required:
            raise TypeUnsat(f"required property {name!r} cannot be present: {why}")
    c.member_orders.append(tuple(names))
    other = ob.other_members(names)
    n_req = sum(1 for _, r in members if r)
    n_opt = len(members) - n_req
    lo, hi = col.min_properties, col.max_properties
    if hi is not None and hi < n_req:
        raise TypeUnsat(f"{n_req} required properties but maxProperties is {hi}")
    max_total = None if other is not None else len(members)
    if max_total is not None and lo > max_total:
        raise TypeUnsat(f"minProperties {lo} but at most {max_total} properties are possible")
    other_lo, other_hi = 0, None
    count_exact = True
    if lo <= n_req and (hi is None or (max_total is not None and hi >= max_total)):
        pass
    elif n_opt == 0:
        other_lo = max(0, lo - n_req)
        other_hi = None if hi is None else hi - n_req
    else:
        counted = _counted(c, col, members, other, hint)
        if counted is not None:
            return seq(literal("{"), c.ws, counted, c.ws, literal("}"))
        count_exact = False
    cap = c.options.max_repeat
    if other_lo > cap or (other_hi is not None and other_hi > cap):
        count_exact = False
        other_lo = min(other_lo, cap)
        other_hi = None if other_hi is not None and other_hi > cap else other_hi
    if not count_exact and not col.props_count_noted:
        for ptr in col.props_count_ptrs:
            c.note(ptr, "approximated", "property counts with optional properties are not enforced")
        other_lo, other_hi = 0, None
    if other is None and other_lo > 0:
        raise TypeUnsat("minProperties needs more properties than allowed")
    body = _body(c, members, other, other_lo, other_hi, hint)
    return seq(literal("{"), c.ws, body, c.ws, literal("}"))


def _counted(
    c: Compiler, col: Collector, members: list[tuple[Expr, bool]], other: Expr | None, hint: str
) -> Expr | None:
    """The body counting members written (:mod:`.counts`), or None: widened, and said why."""
    from gramwright.schema.compiler.counts import MAX_STATES, count_states, counted_body

    lo, hi = col.min_properties, col.max_properties
    cap = c.options.max_repeat
    states = count_states(len(members), lo, hi)
    if lo > cap or (hi is not None and hi > cap) or states > MAX_STATES:
        why = (
            f"property counts with optional properties need {states} count states (limit {MAX_STATES})"
            if states > MAX_STATES
            else f"property counts above {cap} are not enforced"
        )
        for ptr in col.props_count_ptrs:
            c.note(ptr, "approximated", why)
        col.props_count_noted = True
        return None
    body = counted_body(c, members, other, lo, hi, hint)
    if body is None:
        raise TypeUnsat(f"no number of properties satisfies minProperties {lo} / maxProperties {hi}")
    return body


def _member_pointer(col: Collector, name: str, hint: str) -> str:
    for op in col.objects:
        if name in op.properties:
            return op.properties[name].pointer
    return join_pointer(hint, "properties", name)


_INLINE_OPTIONAL = 8
_MAX_EXCLUDED_CHARS = 4000


def _body(
    c: Compiler, members: list[tuple[Expr, bool]], other: Expr | None, lo: int, hi: int | None, hint: str
) -> Expr:
    """Members in order (optional ones skippable), then ``lo..hi`` other members, commas between."""
    comma = seq(c.ws, literal(","), c.ws)
    n = len(members)
    # tail[i]: the members from i on, after at least one member was written (so each has a comma).
    if other is None:
        other_tail: Expr = literal("")
        other_first: Expr | None = None
    else:
        other_tail = repeat(seq(comma, other), lo, hi)
        first_hi = None if hi is None else hi - 1
        other_first = seq(other, repeat(seq(comma, other), max(lo - 1, 0), first_hi)) if hi != 0 else None
    tails: list[Expr] = [literal("")] * (n + 1)
    tails[n] = other_tail
    use_rules = sum(1 for _, r in members if not r) > _INLINE_OPTIONAL
    for i in range(n - 1, -1, -1):
        member, required = members[i]
        item = seq(comma, member)
        tails[i] = seq(item if required else repeat(item, 0, 1), tails[i + 1])
        if use_rules and i > 0:
            tails[i] = c.helper_rule(tails[i], f"{hint}/rest")
    # first: the first written member is some member j whose predecessors are all optional.
    firsts: list[Expr] = []
    for j in range(n):
        member, required = members[j]
        firsts.append(seq(member, tails[j + 1]))
        if required:
            break
    else:
        if other_first is not None:
            firsts.append(other_first)
        if lo == 0:
            firsts.append(literal(""))
    if not firsts:
        return literal("")
    # ``alt`` would hash every branch (each holds the rest of the body) to drop duplicates; the
    # branches are distinct by construction: each starts with a different member's key, another
    # member (a rule) or is empty — and none is an alternation to flatten.
    return firsts[0] if len(firsts) == 1 else Alt(tuple(firsts))
