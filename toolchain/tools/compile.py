"""Each tool's argument schema → its own namespaced grammar rules, compiled before generation.

Every tool is compiled alone (its ``$ref``/``$defs`` resolve inside its own schema), then its
rules are renamed under a prefix of the tool's own (``get-weather-…``), so two tools that both
define ``$defs/address`` never share, or overwrite, each other's rules. Objects are closed for
generation (no undeclared members), as OpenAI's strict mode and XGrammar do; every call is still
validated against the schema as written.

Fail closed: a schema that does not compile is a :class:`~gramwright.tools.spec.ToolsError`
naming the tool, before any model loads. ``strict: true`` is honoured as OpenAI defines it:
every object lists all its properties in ``required`` and has ``additionalProperties: false``,
and the grammar must enforce every keyword exactly (nothing approximated) — otherwise the tool
is refused, since strict promises arguments that always match the schema.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gramwright.errors import GramwrightError
from gramwright.grammar.ir import Alt, Expr, Ref, Repeat, Seq
from gramwright.schema.report import ReportEntry
from gramwright.tools.spec import Tool, ToolsError, ToolSet
from gramwright.validate import ValidationIssue, validate_value

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["CompiledTool", "compile_tools", "rename_rules", "rule_prefix", "strict_problems"]


@dataclass
class CompiledTool:
    tool: Tool
    root: str  # the namespaced rule of its arguments
    rules: dict[str, Expr]  # namespaced
    report: list[ReportEntry] = field(default_factory=list)
    rule_pointers: dict[str, str] = field(default_factory=dict)  # namespaced rule → schema pointer
    registry: SchemaRegistry | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.tool.name

    def inexact(self) -> list[ReportEntry]:
        return [e for e in self.report if e.status != "exact"]

    def validate(self, value: Any) -> list[ValidationIssue]:
        """The tool's schema (as written) on parsed arguments."""
        return validate_value(value, self.tool.parameters, registry=self.registry)


def rule_prefix(name: str, taken: set[str]) -> str:
    """A GBNF-safe rule prefix for a tool name (``_`` is no GBNF name character), unique."""
    base = "tool-" + name.replace("_", "-").lower()
    prefix, n = base, 2
    while prefix in taken:
        prefix, n = f"{base}{n}", n + 1
    taken.add(prefix)
    return prefix


def _rename(expr: Expr, prefix: str) -> Expr:
    if isinstance(expr, Ref):
        return Ref(f"{prefix}-{expr.name}")
    if isinstance(expr, Seq):
        return Seq(tuple(_rename(i, prefix) for i in expr.items))
    if isinstance(expr, Alt):
        return Alt(tuple(_rename(i, prefix) for i in expr.items))
    if isinstance(expr, Repeat):
        return Repeat(_rename(expr.item, prefix), expr.min, expr.max)
    return expr


def rename_rules(rules: Mapping[str, Expr], prefix: str) -> dict[str, Expr]:
    """``rules`` with every name (and every reference) under ``prefix-``."""
    return {f"{prefix}-{n}": _rename(body, prefix) for n, body in rules.items()}


def compile_tools(toolset: ToolSet) -> list[CompiledTool]:
    """Every tool's arguments grammar, namespaced; refuses (``ToolsError``) any tool whose
    schema does not compile, or a strict tool the grammar cannot enforce exactly."""
    from gramwright.grammar.analysis import prepare
    from gramwright.schema import CompileOptions, compile_schema

    taken: set[str] = set()
    out: list[CompiledTool] = []
    where = toolset.source or "tools"
    for tool in toolset.tools:
        at = f"{where}, {tool.pointer}/parameters"
        if tool.strict:
            problems = list(strict_problems(tool.parameters))
            if problems:
                pointer, why = problems[0]
                raise ToolsError(
                    f"tool {tool.name!r} is strict but its schema is not: {why}",
                    where=f"{at}{pointer}",
                    hint="fix the schema, or drop strict: true",
                )
        try:
            compiled = compile_schema(tool.parameters, options=CompileOptions(close_objects=True), source=at)
        except GramwrightError as exc:
            raise ToolsError(
                f"tool {tool.name!r}: its parameters do not compile: {exc.message}",
                where=f"{at} ({exc.where})" if exc.where else at,
                hint=exc.hint or "fix the schema: a tool that cannot be constrained is never offered",
            ) from None
        grammar = prepare(compiled.grammar)
        prefix = rule_prefix(tool.name, taken)
        rules = rename_rules(grammar.rules, prefix)
        report = list(compiled.report.entries)
        if tool.strict:
            inexact = [e for e in report if e.status != "exact"]
            if inexact:
                raise ToolsError(
                    f"tool {tool.name!r} is strict but the grammar cannot enforce "
                    f"{inexact[0].keyword} exactly ({inexact[0].reason or inexact[0].status})",
                    where=f"{at}{inexact[0].pointer}",
                    hint="simplify that keyword, or drop strict: true (validation then checks it)",
                )
        out.append(
            CompiledTool(
                tool,
                f"{prefix}-{grammar.root}",
                rules,
                report,
                {f"{prefix}-{n}": p for n, p in compiled.rule_pointers.items()},
                compiled.registry,
            )
        )
    return out


def strict_problems(schema: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Where a schema breaks OpenAI's strict-mode rules for objects: (pointer, why)."""
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    is_object = schema.get("type") == "object" or (isinstance(props, dict) and "type" not in schema)
    if is_object:
        if schema.get("additionalProperties") is not False:
            yield pointer, "an object without additionalProperties: false"
        if isinstance(props, dict):
            required = schema.get("required", [])
            missing = [k for k in props if k not in required]
            if missing:
                yield pointer, f"properties not in required: {', '.join(missing)}"
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        sub = schema.get(key)
        if isinstance(sub, dict):
            for name, value in sub.items():
                yield from strict_problems(value, f"{pointer}/{key}/{_escape(name)}")
    for key in ("items", "additionalProperties", "not", "contains"):
        if isinstance(schema.get(key), dict):
            yield from strict_problems(schema[key], f"{pointer}/{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        sub = schema.get(key)
        if isinstance(sub, list):
            for i, value in enumerate(sub):
                yield from strict_problems(value, f"{pointer}/{key}/{i}")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")
