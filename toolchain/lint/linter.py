"""Lint one schema document: walk it, resolve its refs, run every active rule, resolve severities."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from gramwright.lint.budget import estimate_tokens
from gramwright.lint.context import LintContext, LintOptions
from gramwright.lint.diagnostic import CostEstimate, Diagnostic, Finding, LintReport
from gramwright.lint.dialects import detect_dialect
from gramwright.lint.profiles import DEFAULT_PROFILE, Profile, load_profile
from gramwright.lint.refs import RefResolver
from gramwright.lint.registry import RULES, Rule, all_rules, as_severity, document_rule
from gramwright.lint.walker import Node, build_index
from gramwright.schema.errors import SchemaTooDeep

INTERNAL_RULE = "lint/rule-crashed"
NESTING_RULE = "size/nesting-depth"


@dataclass(frozen=True, slots=True)
class _Plan:
    every_node: tuple[Rule, ...]
    by_keyword: dict[str, tuple[Rule, ...]]
    documents: tuple[Rule, ...]


def _ignored(rule_id: str, patterns: Iterable[str]) -> bool:
    return any(
        rule_id == p or fnmatchcase(rule_id, p) or rule_id.startswith(p.rstrip("/") + "/") for p in patterns
    )


def _active(rule: Rule, profile: Profile) -> bool:
    if rule.limits and not any(profile.limit(k) is not None for k in rule.limits):
        return False
    variants = {
        "",
        *rule.variants,
        *(k.split("#", 1)[1] for k in profile.severity if k.startswith(rule.id + "#")),
    }
    return any(profile.severity_for(rule, v) != "off" for v in variants)


_PLANS: dict[tuple[object, ...], _Plan] = {}


def _plan(profile: Profile, ignore: tuple[str, ...]) -> _Plan:
    """Which rules run, indexed by trigger keyword; memoised on what decides it."""
    registry = tuple(map(id, RULES.values()))  # a rule registered or replaced later invalidates the plan
    key = (profile.label, ignore, frozenset(profile.severity.items()), frozenset(profile.limits), registry)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 64:
            _PLANS.clear()
        plan = _PLANS[key] = _build_plan(profile, ignore)
    return plan


def _build_plan(profile: Profile, ignore: tuple[str, ...]) -> _Plan:
    rules = [r for r in all_rules().values() if not _ignored(r.id, ignore) and _active(r, profile)]
    by_keyword: dict[str, list[Rule]] = {}
    for r in rules:
        for kw in r.on or ():
            by_keyword.setdefault(kw, []).append(r)
    return _Plan(
        tuple(r for r in rules if r.node_check and r.on is None),
        {k: tuple(v) for k, v in by_keyword.items()},
        tuple(r for r in rules if r.document_check),
    )


def _rules_for(node: Node, plan: _Plan) -> list[Rule]:
    chosen = list(plan.every_node)
    seen = {r.id for r in chosen}
    for key in node.obj:
        for r in plan.by_keyword.get(key, ()):
            if r.id not in seen:
                seen.add(r.id)
                chosen.append(r)
    return chosen


def lint_schema(
    schema: Any,
    *,
    profile: str | Profile = DEFAULT_PROFILE,
    options: LintOptions | None = None,
    file: str = "<schema>",
    base_uri: str | None = None,
) -> LintReport:
    """Every diagnostic for ``schema`` under ``profile`` (plus the cost estimate). Never raises for
    a bad schema: a rule that crashes becomes a ``lint/rule-crashed`` diagnostic. ``base_uri``
    (the file's ``file://`` URI) lets the compiler resolve ``$ref`` to sibling files."""
    start = time.perf_counter()
    options = options or LintOptions()
    prof = profile if isinstance(profile, Profile) else load_profile(profile)
    declared = detect_dialect(schema)
    index = build_index(schema, declared_draft=declared.draft if declared.declared else None)
    dialect = declared if declared.declared else detect_dialect(schema, draft04_hints=index.draft04_hints)
    ref_sites = RefResolver(index, dialect.schema_uri).resolve_all()
    ctx = LintContext(schema, index, dialect, prof, options, ref_sites, base_uri)
    plan = _plan(prof, options.ignore)

    out: list[tuple[Rule, Finding]] = []
    for node in list(index.nodes):
        if not isinstance(node.schema, dict):
            continue
        for rule in _rules_for(node, plan):
            if rule.node_check is not None:
                _run(rule, rule.node_check, (node, ctx), node.pointer, out)
    for rule in plan.documents:
        if rule.document_check is not None:
            _run(rule, rule.document_check, (ctx,), "", out)

    out = _superseded_by_compiler(out, ctx)
    diagnostics = _diagnostics(out, prof, index.by_pointer)
    report = LintReport(file, prof.label, dialect.label(), diagnostics, _cost(ctx))
    report.lint_ms = (time.perf_counter() - start) * 1000
    return report


def too_deep_report(
    error: SchemaTooDeep, *, profile: str | Profile = DEFAULT_PROFILE, file: str = ""
) -> LintReport:
    """The report for a schema text nested too deep to parse at all: ``size/nesting-depth`` says
    so (at its ``limit`` severity, an error by default) and no other rule runs — there is no
    value to walk."""
    prof = profile if isinstance(profile, Profile) else load_profile(profile)
    rule = all_rules()[NESTING_RULE]
    found = Finding(
        error.pointer,
        f"{error.message}: no other rule ran (the text is not parsed past that depth)",
        error.hint,
        variant="limit",
    )
    report = LintReport(
        file or error.path, prof.label, "unknown (not parsed)", _diagnostics([(rule, found)], prof, {})
    )
    report.cost.max_depth = error.depth
    report.cost.compiler = "not run (schema too deep)"
    return report


def _superseded_by_compiler(
    found: list[tuple[Rule, Finding]], ctx: LintContext
) -> list[tuple[Rule, Finding]]:
    """Where the profile is our engine and the compiler ran, its report is the truth about what the
    grammar enforces: capability rules (``compile_supersedes``) are dropped at every pointer the
    report covers (exact there: nothing to say; inexact: compile/uncompilable-keyword says it)."""
    names = ctx.profile.compile_supersedes
    outcome = ctx.compiled if names else None
    if outcome is None or outcome.status != "ok":
        return found
    covered: set[str] = set()
    for entry in outcome.entries:
        pointer = entry.pointer
        while pointer not in covered:
            covered.add(pointer)
            pointer = pointer.rsplit("/", 1)[0] if pointer else ""
    return [(r, f) for r, f in found if r.id not in names or f.pointer not in covered]


def _run(
    rule: Rule,
    check: Callable[..., Iterable[Finding]],
    args: tuple[Any, ...],
    pointer: str,
    out: list[tuple[Rule, Finding]],
) -> None:
    try:
        found = list(check(*args))
    except Exception as exc:  # noqa: BLE001 - one broken rule must not hide every other finding
        message = f"rule {rule.id} crashed: {type(exc).__name__}: {exc}"
        out.append((_CRASH_RULE, Finding(pointer, message, "please report this bug with the schema")))
        return
    out.extend((rule, f) for f in found)


@document_rule(
    INTERNAL_RULE,
    what="A lint rule raised an exception on this schema (a linter bug).",
    why="The other rules still ran; the crashed rule's findings are missing.",
    default="warn",
)
def _rule_crashed(ctx: LintContext) -> Iterator[Finding]:
    """Never finds anything itself: the linter reports crashes under this id."""
    return iter(())


_CRASH_RULE = RULES[INTERNAL_RULE]


def _diagnostics(
    found: list[tuple[Rule, Finding]], profile: Profile, by_pointer: dict[str, Node]
) -> list[Diagnostic]:
    seen: set[tuple[str, str, str]] = set()
    keyed: list[tuple[tuple[int, str, str], Diagnostic]] = []
    for rule, f in found:
        severity = as_severity(profile.severity_for(rule, f.variant))
        if severity is None or (rule.id, f.pointer, f.message) in seen:
            continue
        seen.add((rule.id, f.pointer, f.message))
        d = Diagnostic(rule.id, severity, f.message, f.pointer, profile.label, f.hint, f.fix)
        keyed.append(((_order(f.pointer, by_pointer), rule.id, f.pointer), d))
    keyed.sort(key=lambda kd: kd[0])
    return [d for _, d in keyed]


def _order(pointer: str, by_pointer: dict[str, Node]) -> int:
    """The index of the nearest indexed node at or above ``pointer``. A finding in a file the
    schema ``$ref``s points at ``file:///…/t.json#/…``: cut segment by segment it ends at
    ``file:``, which no cut shortens, and sorts after the root document's own findings."""
    while True:
        node = by_pointer.get(pointer)
        if node is not None:
            return node.index
        if not pointer:
            return 0
        if "/" not in pointer:
            return len(by_pointer)
        pointer = pointer.rsplit("/", 1)[0]


def _cost(ctx: LintContext) -> CostEstimate:
    enums = [len(n.obj["enum"]) for n in ctx.index.nodes if isinstance(n.obj.get("enum"), list)]
    optional = 0
    for n in ctx.index.nodes:
        props = n.obj.get("properties")
        if isinstance(props, dict):
            req = n.obj.get("required")
            required = set(req) if isinstance(req, list) and all(isinstance(r, str) for r in req) else set()
            optional += sum(1 for p in props if p not in required)
    depth = ctx.depth
    cost = CostEstimate(
        optional_properties=optional,
        max_depth=None if depth.recursive else depth.depth,
        largest_enum=max(enums, default=0),
    )
    compiled = ctx.compiled
    if compiled is None:
        cost.compiler = "not run"
    else:
        cost.compiler = compiled.status
        cost.grammar_rules, cost.gbnf_bytes, cost.compile_ms = (
            compiled.grammar_rules,
            compiled.gbnf_bytes,
            compiled.compile_ms,
        )
    tokens = ctx.token_estimate
    cost.max_output_tokens = tokens.tokens
    cost.tokens_unbounded = tokens.tokens is None
    if tokens.tokens is None:
        cost.tokens_unbounded_at = f"{tokens.unbounded_pointer or '/'}: {tokens.unbounded_why}"
    cost.tokens_approximate = tokens.approximate
    cost.token_counter = tokens.counter
    return cost


__all__ = ["INTERNAL_RULE", "estimate_tokens", "lint_schema", "too_deep_report"]
