"""Business rules: declared in the schema (``x-rules``) or a rules file, as CEL expressions in the
style of Kubernetes' ``x-kubernetes-validations`` (``rule``, ``message``, ``fieldPath``) plus a
``severity`` — ``error`` rejects, ``warn`` is recorded (BAML's ``@assert`` / ``@check`` split) —
and Python callables found by entry point (group ``gramwright.rules``) or ``module:function``.

A rule's ``self`` is the value at its scope: the whole document for a rules-file rule (or the
pointer pattern in its ``scope``, ``*`` standing for every array index), the instance a schema
node describes for an ``x-rules`` entry in that node; ``root`` is always the whole document.
Evaluation is in :mod:`gramwright.pipeline.cel_eval`; a rules file's ``fallback`` block (the seed's
``RULE_ENGINE``) is read here too. Rules are compiled when loaded, so a syntax error fails fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module, metadata
from pathlib import Path
from typing import Any, Literal

from gramwright.errors import PipelineError
from gramwright.pointer import join_pointer
from gramwright.readlimit import read_limited

__all__ = ["ENTRY_POINT_GROUP", "FillSpec", "RuleSet", "RuleSpec", "field_pointer", "load_rules"]

ENTRY_POINT_GROUP = "gramwright.rules"
Severity = Literal["error", "warn"]
PythonRule = Callable[[Any], Any]


@dataclass(frozen=True)
class RuleSpec:
    """One rule. Exactly one of ``rule`` (CEL source) and ``python`` (a callable) is set."""

    id: str
    message: str
    severity: Severity = "error"
    field_path: str = ""  # JSON Pointer relative to the scope: where a failure is reported
    scope: str = ""  # instance pointer pattern (``/items/*``): where ``self`` points
    rule: str | None = None
    python: PythonRule | None = field(default=None, compare=False)
    declared_at: str = ""  # file and index, or schema pointer: for error messages


@dataclass(frozen=True)
class FillSpec:
    """Rule-engine fallback: when layer 3 drops or a rule rejects ``field_path``, compute it with
    the CEL ``expression`` over the salvaged document (``self`` = the document)."""

    field_path: str
    expression: str
    declared_at: str = ""


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[RuleSpec, ...] = ()
    fills: tuple[FillSpec, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.rules or self.fills)

    def merged(self, other: RuleSet | None) -> RuleSet:
        """Both sets' rules; a rule already here (the schema's ``x-rules``, which every entry
        point adds, merged again by a caller that resolved them itself) is not added twice, or its
        failure would be reported twice."""
        if other is None:
            return self

        def known(rule: RuleSpec) -> bool:
            return any(rule == mine and rule.python is mine.python for mine in self.rules)

        rules = self.rules + tuple(r for r in other.rules if not known(r))
        return RuleSet(rules, self.fills + tuple(f for f in other.fills if f not in self.fills))

    @classmethod
    def from_callables(cls, callables: Iterable[PythonRule], severity: Severity = "error") -> RuleSet:
        specs = [
            RuleSpec(
                getattr(fn, "__name__", f"python-{i}"),
                f"{getattr(fn, '__name__', 'rule')} failed",
                severity,
                python=fn,
                declared_at="API",
            )
            for i, fn in enumerate(callables)
        ]
        return cls(tuple(specs))


def field_pointer(path: str) -> str:
    """A ``fieldPath`` as a JSON Pointer: pointers pass through; Kubernetes' ``.a.b[0]`` form is
    converted (``/a/b/0``)."""
    if not path or path.startswith("/"):
        return path
    if not path.startswith("."):
        raise PipelineError(f"fieldPath {path!r} is neither a JSON Pointer nor a .dotted path")
    tokens: list[str] = []
    for part in path[1:].split("."):
        name, _, rest = part.partition("[")
        if name:
            tokens.append(name)
        for index in filter(None, rest.replace("]", "").split("[")):
            tokens.append(index.strip("'\""))
    return join_pointer("", *tokens)


def load_rules(path: str | Path | None = None, *, schema: Any = None) -> RuleSet:
    """The schema's ``x-rules`` (every node's) and the rules file's rules and fallback, compiled."""
    from gramwright.pipeline.cel_eval import compile_expression

    found = RuleSet(tuple(_schema_rules(schema, "", ""))) if schema is not None else RuleSet()
    if path is not None:
        found = found.merged(_file_rules(Path(path)))
    for spec in found.rules:
        if spec.rule is not None:
            compile_expression(spec.rule, spec.declared_at)
    for fill in found.fills:
        compile_expression(fill.expression, fill.declared_at)
    return found


def _file_rules(path: Path) -> RuleSet:
    try:
        data = json.loads(read_limited(path, "rules file").decode("utf-8"))
    except OSError as exc:
        raise PipelineError(f"cannot read the rules file: {exc.strerror or exc}", where=str(path)) from None
    except ValueError as exc:
        raise PipelineError(f"the rules file is not JSON: {exc}", where=str(path)) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("rules", []), list):
        raise PipelineError("a rules file is an object with a list under 'rules'", where=str(path))
    unknown = set(data) - {"rules", "fallback", "$comment", "description"}
    if unknown:
        raise PipelineError(f"unknown rules-file key(s): {', '.join(sorted(unknown))}", where=str(path))
    rules = tuple(_spec(item, f"{path} rules[{i}]", "") for i, item in enumerate(data.get("rules", [])))
    fills = []
    for i, item in enumerate(data.get("fallback", [])):
        at = f"{path} fallback[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("expression"), str):
            raise PipelineError("a fallback entry needs 'fieldPath' and a CEL 'expression'", where=at)
        fills.append(FillSpec(field_pointer(str(item.get("fieldPath", ""))), item["expression"], at))
    return RuleSet(rules, tuple(fills))


def _spec(item: Any, declared_at: str, scope: str) -> RuleSpec:
    if not isinstance(item, Mapping):
        raise PipelineError("a rule is an object with 'rule' (CEL) or 'python'", where=declared_at)
    unknown = set(item) - {"id", "rule", "python", "message", "fieldPath", "severity", "scope", "reason"}
    if unknown:
        raise PipelineError(f"unknown rule key(s): {', '.join(sorted(unknown))}", where=declared_at)
    severity = item.get("severity", "error")
    if severity not in ("error", "warn"):
        raise PipelineError(f"severity {severity!r} is not error | warn", where=declared_at)
    cel_source, python = item.get("rule"), item.get("python")
    if (cel_source is None) == (python is None) or not isinstance(cel_source or python, str):
        raise PipelineError("give exactly one of 'rule' (a CEL expression) and 'python'", where=declared_at)
    rule_id = str(item.get("id") or cel_source or python)
    return RuleSpec(
        id=rule_id,
        message=str(item.get("message") or f"rule {rule_id} failed"),
        severity=severity,
        field_path=field_pointer(str(item.get("fieldPath", ""))),
        scope=str(item.get("scope", scope)),
        rule=cel_source,
        python=_python_rule(python, declared_at) if python else None,
        declared_at=declared_at,
    )


def _python_rule(name: str, declared_at: str) -> PythonRule:
    """An entry point of group ``gramwright.rules`` by name, else ``module:function``."""
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            loaded: PythonRule = ep.load()
            return loaded
    module, _, attr = name.partition(":")
    if not attr:
        raise PipelineError(
            f"no entry point {name!r} in group {ENTRY_POINT_GROUP}",
            where=declared_at,
            hint="install the package that declares it, or write module:function",
        )
    try:
        fn: PythonRule = getattr(import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise PipelineError(f"cannot load the rule {name!r}: {exc}", where=declared_at) from None
    return fn


def _schema_rules(schema: Any, schema_ptr: str, scope: str) -> Iterator[RuleSpec]:
    """``x-rules`` of the root and of the nodes reached through ``properties`` and ``items`` (the
    positions whose instances have one pointer pattern; rules under combinators are not found)."""
    if not isinstance(schema, Mapping):
        return
    for i, item in enumerate(schema.get("x-rules", []) or []):
        yield _spec(item, f"schema {join_pointer(schema_ptr, 'x-rules', i)}", scope)
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            yield from _schema_rules(
                sub, join_pointer(schema_ptr, "properties", name), join_pointer(scope, name)
            )
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _schema_rules(items, join_pointer(schema_ptr, "items"), f"{scope}/*")
