"""Evaluating business rules on a document: CEL through ``common-expression-language`` (a maintained
Rust CEL implementation) with its extended standard library (``sum``, ``math.abs``, ``math.greatest``
…) plus ``approx(a, b, tol)``, and Python callables.

CEL does not mix ``int`` and ``double`` in arithmetic (``2 * 1.5`` has no overload) while JSON
does: rules convert with ``double(x)`` where a member may be either; comparisons across the two
work. Exact decimals (the validator's ``Decimal``) reach CEL as doubles. ``size()`` of a string
counts UTF-8 bytes in this implementation, not characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gramwright.errors import PipelineError
from gramwright.pipeline.rules import FillSpec, RuleSet, RuleSpec
from gramwright.pointer import join_pointer, pointer_tokens
from gramwright.validate import as_floats

__all__ = ["RuleOutcome", "compile_expression", "evaluate_fill", "evaluate_rules", "scope_pointers"]


@dataclass(frozen=True)
class RuleOutcome:
    """A rule that did not pass at one place: failed (``False``) or could not be evaluated."""

    rule_id: str
    severity: str
    pointer: str  # absolute instance pointer: the scope's place + the rule's fieldPath
    message: str

    def to_dict(self) -> dict[str, str]:
        return {
            "rule": self.rule_id,
            "severity": self.severity,
            "pointer": self.pointer,
            "message": self.message,
        }


@lru_cache(maxsize=512)
def _compiled(expression: str) -> Any:
    import cel

    return cel.compile(expression)


def compile_expression(expression: str, declared_at: str = "") -> Any:
    try:
        return _compiled(expression)
    except ValueError as exc:
        raise PipelineError(cel_syntax_message(expression, str(exc)), where=declared_at) from None


# The parser's first complaint: "ERROR: <input>:LINE:COL: Syntax error: WHAT expecting {...}"
_CEL_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (?:Syntax error: )?(.*?)(?: expecting \{.*)?$", re.M)


def cel_syntax_message(expression: str, error: str) -> str:
    """One short line: the expression (cut when long), where it breaks, and why — not the
    parser's list of every token it would have accepted, nor its caret drawing."""
    shown = " ".join(expression.split())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    m = _CEL_ERROR.search(error)
    if m is None:
        return f"CEL syntax error in {shown!r}: {' '.join(error.split())[:120]}"
    line, column, what = int(m.group(1)), int(m.group(2)), m.group(3).strip()
    what = "the expression ends too early" if what == "mismatched input '<EOF>'" else what
    where = f"column {column}" if "\n" not in expression else f"line {line}, column {column}"
    return f"CEL syntax error in {shown!r} at {where}: {what}"


def _approx(a: Any, b: Any, tol: Any) -> bool:
    return abs(float(a) - float(b)) <= float(tol)


@lru_cache(maxsize=1)
def _functions() -> dict[str, Any]:
    from cel.stdlib import STDLIB_FUNCTIONS

    return {**STDLIB_FUNCTIONS, "approx": _approx}


def run_cel(expression: str, self_value: Any, root: Any) -> Any:
    import cel

    context = cel.Context({"self": self_value, "root": root}, _functions())
    return _compiled(expression).execute(context)


def scope_pointers(pattern: str, document: Any) -> Iterator[tuple[str, Any]]:
    """Every (pointer, value) the scope pattern names in ``document`` (``*``: every array index)."""
    places: list[tuple[str, Any]] = [("", document)]
    for token in pointer_tokens(pattern):
        nxt: list[tuple[str, Any]] = []
        for at, value in places:
            if token == "*" and isinstance(value, list):
                nxt.extend((join_pointer(at, i), v) for i, v in enumerate(value))
            elif isinstance(value, dict) and token in value:
                nxt.append((join_pointer(at, token), value[token]))
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                nxt.append((join_pointer(at, token), value[int(token)]))
        places = nxt  # an absent member has no instance: its rules do not apply
    yield from places


def evaluate_rules(rules: RuleSet, document: Any) -> list[RuleOutcome]:
    """Every rule at every place of its scope; the outcomes of those that did not pass."""
    root = as_floats(document)
    found: list[RuleOutcome] = []
    for spec in rules.rules:
        for at, value in scope_pointers(spec.scope, root):
            found.extend(_evaluate(spec, at, value, root, document))
    return found


def _evaluate(spec: RuleSpec, at: str, value: Any, root: Any, document: Any) -> Iterator[RuleOutcome]:
    pointer = at + spec.field_path
    if spec.python is not None:
        yield from _python_outcomes(spec, pointer, at, document)
        return
    assert spec.rule is not None
    try:
        verdict = run_cel(spec.rule, value, root)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        # a member the rule reads is absent or of another type: the rule cannot be shown to hold
        reason = f"no member {exc}" if isinstance(exc, KeyError) else str(exc).split(". ")[0]
        yield RuleOutcome(
            spec.id, spec.severity, pointer, f"{spec.message} (could not be evaluated: {reason})"
        )
        return
    if verdict is not True:
        extra = "" if verdict is False else f" (the rule gave {verdict!r}, not a bool)"
        yield RuleOutcome(spec.id, spec.severity, pointer, spec.message + extra)


def _python_outcomes(spec: RuleSpec, pointer: str, at: str, document: Any) -> Iterator[RuleOutcome]:
    """A callable gets the value at its scope (exact decimals kept) and returns True/None (pass),
    False (fail with the rule's message), a message, or an iterable of (pointer, message)."""
    assert spec.python is not None
    target = document
    for token in pointer_tokens(at):
        target = target[int(token)] if isinstance(target, list) else target[token]
    try:
        verdict = spec.python(target)
    except Exception as exc:  # noqa: BLE001 - a user's rule that raises is a failed rule, reported
        yield RuleOutcome(
            spec.id, spec.severity, pointer, f"{spec.message} (raised {type(exc).__name__}: {exc})"
        )
        return
    if verdict is None or verdict is True:
        return
    if verdict is False:
        yield RuleOutcome(spec.id, spec.severity, pointer, spec.message)
    elif isinstance(verdict, str):
        yield RuleOutcome(spec.id, spec.severity, pointer, verdict)
    else:
        for where, message in verdict:
            yield RuleOutcome(spec.id, spec.severity, at + str(where), str(message))


def evaluate_fill(fill: FillSpec, document: Any) -> Any:
    """The value a rule-engine fallback computes (a PipelineError when it cannot)."""
    root = as_floats(document)
    try:
        return run_cel(fill.expression, root, root)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise PipelineError(
            f"fallback for {fill.field_path} could not be computed: {exc}", where=fill.declared_at
        ) from None
