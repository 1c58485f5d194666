"""The compiler core: conjunctions of subschemas → memoised grammar rules.

``Compiler.conj(parts)`` is the one entry point every subschema goes through:

1. *flatten* — ``allOf`` members and ``$ref``/``$dynamicRef`` targets join the conjunction,
   ``not`` becomes a negated part, parts that assert nothing are dropped;
2. *memo* — the set of part keys names the rule; the same set is the same rule, so a ``$ref`` to a
   definition is the definition's rule everywhere, and recursion closes on the rule being built;
3. *distribute* — the first disjunctive keyword (``anyOf``, ``oneOf``, ``if``, ``dependent*``)
   splits the conjunction into one alternative per branch (``A ∧ (B ∨ C) = (A ∧ B) ∨ (A ∧ C)``);
4. *collect and emit* — the keyword functions (:mod:`.keywords`) fill a :class:`Collector`, and
   one grammar per JSON type is built from it (:mod:`.emit`).

Unsatisfiable conjunctions raise :class:`UnsatisfiableSchema`; callers that can drop an
alternative (an ``anyOf`` branch, an optional property, further array items) do so, the rest
propagate it, so no rule that accepts nothing is ever emitted for the root.
"""

from __future__ import annotations

import functools
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from gramwright.grammar.ir import EMPTY, Alt, CharClass, Expr, Grammar, Ref, Repeat, Seq, seq
from gramwright.pointer import unescape_token
from gramwright.schema.compiler import keywords as kw
from gramwright.schema.compiler.cycles import check_no_progress_cycles
from gramwright.schema.compiler.jsontext import ContentEncoder, shared_rules, whitespace_rule
from gramwright.schema.compiler.options import CompileOptions
from gramwright.schema.compiler.parts import DISJUNCTIVE, Part
from gramwright.schema.compiler.shapes import check_shapes, json_name
from gramwright.schema.errors import (
    CompileCancelled,
    SchemaCompileError,
    UnsatisfiableSchema,
    UnsupportedSchema,
)
from gramwright.schema.grounding import GroundSpec
from gramwright.schema.report import CompileReport, Status
from gramwright.schema.resolve import Loc, SchemaRegistry, dynamic_scope_key

ALL_CONSUMED = frozenset({"*"})
APPLICATORS = frozenset({"allOf", "$ref", "$dynamicRef", "$recursiveRef", "not"})
DEAD: Expr = CharClass(())  # the body of a rule found unsatisfiable after it was referenced
SHARED = ("value", "object", "array", "string", "char", "chars", "esc", "number", "integer", "ws")

ConjKey = frozenset[Any]
# Marks the pointer of a made-up schema ("~" is escaped as "~0" in real pointers, so a real
# pointer never contains "/~s").
SYNTHETIC = "/~s"


def real_pointer(pointer: str) -> str:
    """The schema location a (possibly synthetic) pointer stands for."""
    return pointer.split(SYNTHETIC, 1)[0]


class ZeroWidthCycle(Exception):
    """A branch leads back to a rule being built without consuming input (left recursion)."""

    def __init__(self, key: ConjKey) -> None:
        super().__init__("zero-width cycle")
        self.key = key


class Compiler:
    def __init__(
        self, registry: SchemaRegistry, options: CompileOptions, cancelled: Callable[[], bool] | None = None
    ) -> None:
        self.registry = registry
        self.cancelled = cancelled
        self.options = options
        self.report = CompileReport()
        self.rules: dict[str, Expr] = {}
        self.rule_pointers: dict[str, str] = {}
        self.encoder = ContentEncoder()
        self.ws: Expr = Ref("ws") if options.whitespace == "flexible" else EMPTY
        self._memo: dict[ConjKey, str] = {}
        self._unsat: dict[ConjKey, UnsatisfiableSchema] = {}
        self._names: set[str] = set(SHARED)
        self._name_counts: dict[str, int] = {}
        self._validators: dict[int, Any] = {}
        self._asserting: dict[Any, bool] = {}
        self._base_validators: dict[int, Any] = {}
        self._synthetic: dict[Any, Loc] = {}
        self._shaped: set[int] = set()  # subschemas whose keyword values were checked (shapes)
        self.distributions = 0
        # memo tables of the disjunction helpers (keyed by part / schema identity, like _asserting)
        self.part_facts: dict[Any, Any] = {}
        self.condition_tests: dict[Any, Any] = {}
        self.branch_parts: dict[tuple[int, str], list[list[Part]]] = {}
        self.scalar_literals: dict[tuple[type, Any], Expr] = {}  # enum/const values as literals
        # parts (key, draft) that flatten to themselves, adding nothing: skipped when met again
        self._flat_fixpoints: set[tuple[Any, int]] = set()
        # objects ``close_objects`` closed (pointers of the parts that declared their members)
        self.closed_objects: list[str] = []
        self.grounded: list[GroundSpec] = []  # x-grounded members (placeholder rules)
        self.key_rules: dict[tuple[str, ...], Ref] = {}  # key grammars, shared by name set / pattern
        self.member_orders: list[
            tuple[str, ...]
        ] = []  # declared members of each object grammar  # "any key but these names" rules, shared
        self.deadline = time.monotonic() + options.timeout_s if options.timeout_s else None

    # -- entry --------------------------------------------------------------------------------
    def compile(self) -> Grammar:
        root_loc = self.registry.root_loc()
        flexible = self.options.whitespace == "flexible"
        self._names.add("root")
        check_no_progress_cycles(self.registry)
        try:
            body = self.conj([Part(root_loc)], "", frozenset(), name=None if flexible else "root")
        except ZeroWidthCycle:
            raise UnsupportedSchema("", "the schema refers to itself without consuming input") from None
        rules: dict[str, Expr] = {}
        if flexible or body != Ref("root"):
            rules["root"] = seq(self.ws, body, self.ws)
            self.rule_pointers["root"] = ""
        rules.update(self.rules)
        shared = dict(shared_rules(self.ws))
        if flexible:
            shared["ws"] = whitespace_rule(self.options.flexible_blanks)
        rules.update({name: expr for name, expr in shared.items() if name not in rules})
        self.rule_pointers = {name: real_pointer(ptr) for name, ptr in self.rule_pointers.items()}
        return finish_grammar(rules, self.rule_pointers)

    # -- reporting ----------------------------------------------------------------------------
    def note(self, pointer: str, status: Status, reason: str = "") -> None:
        if SYNTHETIC in pointer:
            # Inside a schema the compiler made up: only what is inexact surfaces, under the
            # real keyword the made-up schema stands for.
            if status == "exact":
                return
            pointer = real_pointer(pointer)
        keyword = unescape_token(pointer.rsplit("/", 1)[-1])
        self.report.add(pointer, keyword, status, reason)

    def check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeoutError("compilation exceeded its time limit")
        if self.cancelled is not None and self.cancelled():
            raise CompileCancelled("compilation cancelled")

    # -- names --------------------------------------------------------------------------------
    def new_name(self, pointer: str) -> str:
        base = rule_name_for(pointer)
        name = base
        n = self._name_counts.get(base, 1)
        while name in self._names:
            n += 1
            name = f"{base}-{n}"
        self._name_counts[base] = n
        self._names.add(name)
        return name

    def helper_rule(self, expr: Expr, base: str = "/tail") -> Ref:
        """A rule for a shared piece of a body (keeps long optional-member chains linear)."""
        name = self.new_name(base)
        self.rules[name] = expr
        return Ref(name)

    def synthetic(self, key: Any, schema: dict[str, Any], like: Loc, pointer: str) -> Loc:
        """An interned schema the compiler made up (e.g. ``{"type": "object", "required": [k]}``)."""
        loc = self._synthetic.get(key)
        if loc is None:
            loc = Loc(schema, pointer + SYNTHETIC, like.resolver, like.draft)
            self._synthetic[key] = loc
        return loc

    # -- flatten ------------------------------------------------------------------------------
    def asserting(self, part: Part) -> bool:
        """The part asserts something not yet taken into the conjunction (memoised)."""
        if part.negated:
            return True
        key = part.key()
        known = self._asserting.get(key)
        if known is None:
            known = self._asserting[key] = self._asserting_uncached(part)
        return known

    def _asserting_uncached(self, part: Part) -> bool:
        schema = part.schema
        if not isinstance(schema, dict) or part.consumed == ALL_CONSUMED:
            return False
        draft = part.loc.draft
        for key in schema:
            if key in part.consumed or key in ("allOf", "$ref", "$dynamicRef", "$recursiveRef", "not"):
                continue
            if self.asserts(key, draft) or (key == "if" and draft >= 7):
                if key == "format" and self.options.formats != "assert":
                    continue
                return True
        return False

    def asserts(self, keyword: str, draft: int) -> bool:
        """``keyword`` asserts something here (its draft knows it; its vocabulary is enabled)."""
        return keyword not in self.registry.disabled and kw.asserts(keyword, draft)

    def flatten(self, parts: Iterable[Part]) -> list[Part]:
        out: dict[tuple[int, bool], Part] = {}
        queue = deque(parts)
        # (schema, keyword) pairs expanded in this call: a part met again with less consumed (a
        # reference back to it) must not queue the same targets again, or a cycle never ends
        expanded_here: set[tuple[int, str]] = set()
        while queue:
            p = queue.popleft()
            s = p.schema
            if isinstance(s, dict) and id(s) not in self._shaped:
                check_shapes(s, p.loc.pointer, p.loc.draft, self.asserts, declared=self.registry.declared)
                self._shaped.add(id(s))
            if p.negated:
                if s is False:
                    continue
                if not isinstance(s, dict | bool):
                    raise UnsupportedSchema(
                        p.loc.pointer,
                        f"invalid schema: a schema must be an object or a boolean, not {json_name(s)}",
                        hint="give a JSON object (or true/false) here",
                    )
                if s is True or (isinstance(s, dict) and not any(self.asserts(k, p.loc.draft) for k in s)):
                    raise UnsatisfiableSchema(
                        p.report_as or p.loc.pointer, "'not' of a schema that accepts everything"
                    )
                out.setdefault((id(s), True), p)
                continue
            if s is True:
                continue
            if s is False:
                raise UnsatisfiableSchema(p.loc.pointer, "the false schema accepts nothing", keyword="false")
            if not isinstance(s, dict):
                raise UnsupportedSchema(
                    p.loc.pointer,
                    f"invalid schema: a schema must be an object or a boolean, not {json_name(s)}",
                    hint="give a JSON object (or true/false) here",
                )
            k = (id(s), False)
            prev = out.get(k)
            if prev is not None:
                if prev.consumed <= p.consumed:
                    continue
                p = replace(p, consumed=prev.consumed & p.consumed)
            out[k] = p
            draft = p.loc.draft
            fixed = (p.key(), draft)
            if fixed in self._flat_fixpoints:
                continue  # flattening it again would add nothing and change nothing
            queued = len(queue)
            if draft <= 7 and "$ref" in s:
                # Before 2019-09 a $ref replaces its siblings (they are ignored by the spec).
                if "$ref" not in p.consumed and (id(s), "$ref") not in expanded_here:
                    expanded_here.add((id(s), "$ref"))
                    self.note(p.pointer("$ref"), "exact")
                    queue.append(Part(self.registry.lookup(p.loc, "$ref")))
                if p.consumed != ALL_CONSUMED:
                    out[k] = replace(p, consumed=ALL_CONSUMED)
                elif len(queue) == queued:
                    self._flat_fixpoints.add(fixed)
                continue
            for ref_kw in ("$ref", "$dynamicRef", "$recursiveRef"):
                if ref_kw in s and ref_kw not in p.consumed and self.asserts(ref_kw, draft):
                    if (id(s), ref_kw) in expanded_here:
                        continue
                    expanded_here.add((id(s), ref_kw))
                    self.note(p.pointer(ref_kw), "exact")
                    queue.append(Part(self.registry.lookup(p.loc, ref_kw)))
            if (
                "allOf" in s
                and "allOf" not in p.consumed
                and isinstance(s["allOf"], list)
                and (id(s), "allOf") not in expanded_here
            ):
                expanded_here.add((id(s), "allOf"))
                self.note(p.pointer("allOf"), "exact")
                for i in range(len(s["allOf"])):
                    queue.append(Part(self.registry.child(p.loc, "allOf", i)))
            if "not" in s and "not" not in p.consumed and (id(s), "not") not in expanded_here:
                expanded_here.add((id(s), "not"))
                queue.append(
                    Part(self.registry.child(p.loc, "not"), negated=True, report_as=p.pointer("not"))
                )
            # What was expanded is now part of the conjunction: re-flattening must not expand it
            # again (that would undo the "consumed" marks of a distributed branch).
            expanded = APPLICATORS & s.keys()
            if expanded - p.consumed:
                out[k] = replace(p, consumed=p.consumed | expanded)
            elif len(queue) == queued:
                self._flat_fixpoints.add(fixed)
        return [p for p in out.values() if self.asserting(p)]

    def key_of(self, parts: list[Part]) -> ConjKey:
        if self.registry.has_dynamic:
            return frozenset((p.key(), dynamic_scope_key(p.loc)) for p in parts)
        return frozenset(p.key() for p in parts)

    # -- conjunctions -------------------------------------------------------------------------
    def conj(
        self, parts: list[Part], hint: str, chain: frozenset[ConjKey], *, name: str | None = None
    ) -> Expr:
        """The grammar of the conjunction of ``parts``: a reference to its (memoised) rule.

        ``chain`` holds the conjunctions entered since input was last consumed; meeting one again
        is left recursion: the branch that does it is dropped (least fixed point) when it is the
        conjunction itself, and refused otherwise.
        """
        self.check_deadline()
        flat = self.flatten(parts)
        if not flat:
            return Ref("value")
        key = self.key_of(flat)
        if key in chain:
            raise ZeroWidthCycle(key)
        failed = self._unsat.get(key)
        if failed is not None:
            raise failed
        known = self._memo.get(key)
        if known is not None:
            return Ref(known)
        if len(flat) == 1 and not flat[0].consumed - APPLICATORS and SYNTHETIC not in flat[0].loc.pointer:
            hint = flat[0].loc.pointer  # a $ref target is named (and located) as itself
        hint = real_pointer(hint)
        rule = name or self.new_name(hint)
        self._memo[key] = rule
        self.rule_pointers[rule] = hint
        self.rules[rule] = DEAD
        try:
            body = self.body(flat, hint, chain | {key}, key)
        except UnsatisfiableSchema as exc:
            self._unsat[key] = exc
            raise
        self.rules[rule] = body
        return Ref(rule)

    def body(self, parts: list[Part], hint: str, chain: frozenset[ConjKey], key: ConjKey) -> Expr:
        from gramwright.schema.compiler.disjunctions import decide_ifs

        # `if`s the rest of the conjunction already decides need no split (discriminators: once
        # `kind` is "a", every other `kind` test is false) — decided all at once, repeatedly.
        while (decided := decide_ifs(self, parts)) is not None:
            parts = self.flatten(decided)
        # Made-up parts (the negated discriminator of an else-branch) split first: what they
        # settle lets later `if`s be decided instead of split.
        order = sorted(range(len(parts)), key=lambda j: SYNTHETIC not in parts[j].loc.pointer)
        for i in order:
            p = parts[i]
            if p.negated or not isinstance(p.schema, dict):
                continue
            for keyword in DISJUNCTIVE:
                if keyword in p.schema and self.asserts(keyword, p.loc.draft) and keyword not in p.consumed:
                    return self.distribute(parts, i, keyword, hint, chain, key)
        from gramwright.schema.compiler.emit import emit

        return emit(self, parts, hint)

    # -- disjunctions -------------------------------------------------------------------------
    def distribute(
        self, parts: list[Part], i: int, keyword: str, hint: str, chain: frozenset[ConjKey], key: ConjKey
    ) -> Expr:
        from gramwright.schema.compiler import disjunctions

        return disjunctions.distribute(self, parts, i, keyword, hint, chain, key)

    # -- validation (exact filtering of finite candidates) -------------------------------------
    def _validator(self, loc: Loc) -> Any:
        v = self._validators.get(id(loc.schema))
        if v is None:
            base = self._base_validators.get(loc.draft)
            if base is None:
                from jsonschema import FormatChecker, validators

                cls = validator_classes()[loc.draft]
                # Every known format, whatever the draft: the grammar compiles them all.
                checker = FormatChecker() if self.options.formats == "assert" else None
                base = cls({}, registry=self.registry.registry, format_checker=checker)
                self._base_validators[loc.draft] = base
                del validators
            v = base.evolve(schema=loc.schema, _resolver=loc.resolver)
            self._validators[id(loc.schema)] = v
        return v

    def valid(self, value: Any, parts: list[Part]) -> bool:
        """True when ``value`` satisfies every part (a negated part: does not satisfy it)."""
        for p in parts:
            ok = bool(self._validator(p.loc).is_valid(value))
            if ok == p.negated:
                return False
        return True


@functools.cache
def validator_classes() -> dict[int, Any]:
    """Draft number → jsonschema validator class. Imported on first use: importing jsonschema
    (its format checkers: rfc3987_syntax builds a Lark grammar) costs ~0.8 s, which every command
    paid at start-up although most never validate."""
    import jsonschema

    return {
        3: jsonschema.Draft3Validator,
        4: jsonschema.Draft4Validator,
        6: jsonschema.Draft6Validator,
        7: jsonschema.Draft7Validator,
        2019: jsonschema.Draft201909Validator,
        2020: jsonschema.Draft202012Validator,
    }


_KEYWORD_SEGMENTS = {"properties", "$defs", "definitions", "patternProperties"}


@functools.lru_cache(maxsize=1 << 14)
def rule_name_for(pointer: str) -> str:
    """A readable GBNF rule name (``[a-zA-Z0-9-]+``) from a schema pointer (memoised: every rule
    of every schema is named, and helper rules repeat their pointers)."""
    if "#" in pointer:
        doc, _, pointer = pointer.partition("#")
        doc_name = doc.rstrip("/").rsplit("/", 1)[-1].split(".")[0]
    else:
        doc_name = ""
    segments = [s for s in pointer.split("/")[1:] if s not in _KEYWORD_SEGMENTS]
    words = []
    for seg in segments[-3:]:
        seg = unescape_token(seg)
        word = re.sub(r"[^A-Za-z0-9]+", "-", seg).strip("-")
        words.append(word or "x")
    name = "-".join(words) or doc_name or "schema"
    if doc_name and segments:
        name = f"{doc_name}-{name}"
    name = re.sub(r"-+", "-", name).strip("-") or "s"
    if name[0].isdigit():
        name = "s" + name
    return name[:48].rstrip("-")


def finish_grammar(rules: dict[str, Expr], rule_pointers: dict[str, str]) -> Grammar:
    """Drop unreachable rules; prune non-productive parts (if any); refuse an empty language.

    Left recursion cannot arise: a conjunction met again before any input is consumed is caught
    while compiling (``ZeroWidthCycle``); the recognizer's own analysis would still refuse it.
    """
    from gramwright.grammar.analysis import prepare, productive_rules
    from gramwright.grammar.errors import EmptyLanguageError

    grammar = Grammar(_collapse_aliases(rules), "root")
    if len(productive_rules(grammar)) < len(grammar.rules):
        # Rare (recursion that never terminates, an unsatisfiable branch already referenced).
        try:
            grammar = prepare(grammar)
        except EmptyLanguageError as exc:
            reason = f"no finite JSON value satisfies the schema ({exc})"
            raise UnsatisfiableSchema("", reason) from None
    for name in list(rule_pointers):
        if name not in grammar.rules:
            del rule_pointers[name]
    return grammar


_SHARED_REFS: dict[str, tuple[int, set[str]]] = {}


def _ref_names(expr: Expr) -> set[str]:
    """The rule names ``expr`` refers to (``ir.refs`` without the generic walk: this runs over
    every rule of every schema)."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Ref:
            out.add(node.name)  # type: ignore[union-attr]
        elif kind is Seq or kind is Alt:
            stack.extend(node.items)  # type: ignore[union-attr]
        elif kind is Repeat:
            stack.append(node.item)  # type: ignore[union-attr]
    return out


def _shared_refs(name: str, body: Expr) -> set[str]:
    """The references of a shared rule (the same few bodies in every schema: computed once)."""
    cached = _SHARED_REFS.get(name)
    if cached is None or cached[0] != id(body):
        cached = (id(body), _ref_names(body))
        _SHARED_REFS[name] = cached
    return cached[1]


def _collapse_aliases(rules: dict[str, Expr]) -> dict[str, Expr]:
    """The rules reachable from the root, with aliases (``a ::= b``) replaced by their target.

    An alias of a shared rule stays: its name is what ties a rejection to a schema location. Rule
    order is kept. References are collected once per rule, and only rules that refer to an alias
    are rewritten.
    """
    alias = {
        n: b.name
        for n, b in rules.items()
        if isinstance(b, Ref) and n != "root" and b.name in rules and b.name not in SHARED
    }

    def final(name: str) -> str:
        seen = set()
        while name in alias and name not in seen:
            seen.add(name)
            name = alias[name]
        return name

    target = {n: final(n) for n in alias}
    # What the rules refer to once aliases are replaced (shared rules are never rewritten).
    renamed: dict[str, bool] = {}
    seen = {"root"}
    stack = ["root"]
    while stack:
        name = stack.pop()
        body = rules[name]
        if name in SHARED:
            names: Iterable[str] = _shared_refs(name, body)
        else:
            raw = _ref_names(body)
            hit = not target.keys().isdisjoint(raw)
            renamed[name] = hit
            names = {target.get(r, r) for r in raw} if hit else raw
        for ref in names:
            if ref in rules and ref not in seen and (ref not in target or target[ref] == ref):
                seen.add(ref)
                stack.append(ref)
    return {
        n: _rename(body, target) if renamed.get(n) else body
        for n, body in rules.items()
        if n in seen and (n not in target or target[n] == n)
    }


def _rename(expr: Expr, target: dict[str, str]) -> Expr:
    if isinstance(expr, Ref):
        return Ref(target.get(expr.name, expr.name))
    if isinstance(expr, Seq):
        items = tuple(_rename(i, target) for i in expr.items)
        return expr if items == expr.items else Seq(items)
    if isinstance(expr, Alt):
        items = tuple(_rename(i, target) for i in expr.items)
        return expr if items == expr.items else Alt(items)
    if isinstance(expr, Repeat):
        item = _rename(expr.item, target)
        return expr if item is expr.item else Repeat(item, expr.min, expr.max)
    return expr


__all__ = ["Compiler", "SchemaCompileError"]
