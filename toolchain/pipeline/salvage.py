"""Layer 3: from the best attempt, keep the members that validate — and say what was dropped and why.

The validator decides, not a schema walk of our own: validate, drop every member an issue points
at (the unexpected members of ``additionalProperties``; the object itself when a ``required``
member is missing), validate again, until the value validates or the failing place is the document
itself. A rule-engine fallback (the rules file's ``fallback``) computes a member instead of
dropping it. A value cut by the token limit first loses the member that was being written. A
value the token budget closed early (complete, but ``budget_cut`` names the values the close cut
short) keeps them unless they fail; one that is dropped says it was cut short by the budget.
What comes out is only ever ``partial`` or ``degraded`` — the pipeline decides which, from the
facts recorded here.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gramwright.errors import PipelineError
from gramwright.pipeline.cel_eval import evaluate_fill, evaluate_rules
from gramwright.pipeline.result import Dropped, ResultError
from gramwright.pipeline.rules import RuleSet
from gramwright.pointer import join_pointer, pointer_tokens
from gramwright.validate import validate_value

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["Salvage", "content_errors", "salvage", "ungrounded_errors"]


@dataclass
class Salvage:
    value: Any
    valid: bool  # the value validates and passes every error rule
    dropped: list[Dropped] = field(default_factory=list)
    filled: list[str] = field(default_factory=list)
    required_lost: bool = False  # a required member was missing or had to go
    elements_dropped: bool = False  # array elements went: a required collection changed
    errors: list[ResultError] = field(default_factory=list)  # what still fails
    budget_cut: list[str] = field(default_factory=list)  # values the token budget closed early


def content_errors(
    value: Any, schema: Any, registry: SchemaRegistry | None, rules: RuleSet | None
) -> list[ResultError]:
    """Schema issues, then (on a schema-valid value only) the failed ``error`` rules; rules read
    members the schema guarantees, so on an invalid value they would only repeat its issues."""
    issues = validate_value(value, schema, registry=registry)
    found = [ResultError(i.pointer, i.keyword, i.message, members=i.members) for i in issues]
    if found or not rules:
        return found
    return [
        ResultError(o.pointer, "rule", o.message, o.rule_id, o.severity)
        for o in evaluate_rules(rules, value)
        if o.severity == "error"
    ]


def ungrounded_errors(value: Any, schema: Any, source_text: str) -> list[ResultError]:
    """One error per ``x-grounded`` value of ``value`` that ``source_text`` does not hold (a mask
    built from the text cannot make one; a scripted reply, or a server that does not carry
    grounding, can)."""
    from gramwright.schema.grounding import grounded_values

    return [
        ResultError(g.pointer, "x-grounded", f"{g.value!r} is not in the source text (x-grounded)")
        for g in grounded_values(value, schema, source_text)
        if not g.found
    ]


def salvage(
    value: Any,
    schema: Any,
    *,
    registry: SchemaRegistry | None = None,
    rules: RuleSet | None = None,
    cut: bool = False,
    fill: bool = False,
    budget_cut: list[str] | tuple[str, ...] = (),
    source_text: str | None = None,
) -> Salvage:
    """The value with what fails taken out (or filled by the rules' fallback), until what is left
    passes; ``source_text``: grounded values must be in it (one that is not is dropped too)."""

    def content_errors(
        value: Any, schema: Any, registry: SchemaRegistry | None, rules: RuleSet | None
    ) -> list[ResultError]:
        found = _content_errors(value, schema, registry, rules)
        if source_text is not None and not found:
            found = ungrounded_errors(value, schema, source_text)
        return found

    out = Salvage(copy.deepcopy(value), valid=False, budget_cut=list(budget_cut))
    if cut:
        last = _last_leaf(out.value)
        if last:
            _remove(out.value, last)
            out.dropped.append(Dropped(last, "being written where the text was cut (not kept)"))
    fills = {f.field_path: f for f in rules.fills} if rules and fill else {}
    for _ in range(_count(out.value) + 8):  # every round removes or fills something
        errors = content_errors(out.value, schema, registry, rules)
        if not errors:
            out.valid = True
            return out
        targets: dict[str, list[str]] = defaultdict(list)
        for e in errors:
            for target in _targets(e, out):
                targets[target].append(e.message)
        if not _apply(out, targets, fills):
            out.errors = errors
            return out
    out.errors = content_errors(out.value, schema, registry, rules)
    return out


def _targets(error: ResultError, out: Salvage) -> list[str]:
    """The members to drop (or fill) for one error."""
    if error.keyword in ("additionalProperties", "unevaluatedProperties") and error.members:
        return [join_pointer(error.pointer, m) for m in error.members]
    if error.keyword == "required":
        out.required_lost = True
        # the missing member itself: a fill may compute it; else _apply drops the object holding it
        return [join_pointer(error.pointer, m) for m in error.members] or [error.pointer]
    return [error.pointer]


def _apply(out: Salvage, targets: dict[str, list[str]], fills: dict[str, Any]) -> bool:
    """Fill or drop every target (deepest and highest index first); False when nothing can be done."""
    progressed = False
    for target in sorted(targets, key=_sort_key, reverse=True):
        reason = "; ".join(dict.fromkeys(targets[target]))
        if target in fills and target not in out.filled:
            try:
                _set(out.value, target, evaluate_fill(fills[target], out.value))
            except (PipelineError, KeyError, IndexError, TypeError):
                pass  # cannot compute it here: drop it instead
            else:
                out.filled.append(target)
                progressed = True
                continue
        if not target or not _exists(out.value, target):
            # a required member is missing (no fill) or the document itself fails: drop its parent
            parent = target.rsplit("/", 1)[0] if target else None
            if parent is None or not parent or not _exists(out.value, parent):
                continue
            target = parent
        if any(target.startswith(d.pointer + "/") or target == d.pointer for d in out.dropped):
            continue
        out.elements_dropped |= isinstance(_get(out.value, target.rsplit("/", 1)[0]), list)
        if _under_cut(target, out.budget_cut):
            reason = f"closed early by the token budget (cut short): {reason}"
        _remove(out.value, target)
        out.dropped.append(Dropped(target, reason))
        progressed = True
    return progressed


def _under_cut(pointer: str, cut: list[str]) -> bool:
    """``pointer`` is a value the budget's close cut short, or inside one (the document itself,
    always open when a close begins, does not count)."""
    return any(pointer == c or (c and pointer.startswith(c + "/")) for c in cut)


def _sort_key(pointer: str) -> tuple[Any, ...]:
    return tuple((1, int(t)) if t.isdigit() else (0, t) for t in pointer_tokens(pointer))


def _get(doc: Any, pointer: str) -> Any:
    for token in pointer_tokens(pointer):
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def _exists(doc: Any, pointer: str) -> bool:
    try:
        _get(doc, pointer)
    except (KeyError, IndexError, ValueError, TypeError):
        return False
    return True


def _remove(doc: Any, pointer: str) -> None:
    parent, last = _get(doc, pointer.rsplit("/", 1)[0]), pointer_tokens(pointer)[-1]
    del parent[int(last) if isinstance(parent, list) else last]


def _set(doc: Any, pointer: str, value: Any) -> None:
    parent, last = _get(doc, pointer.rsplit("/", 1)[0]), pointer_tokens(pointer)[-1]
    if isinstance(parent, list):
        parent[int(last)] = value
    else:
        parent[last] = value


def _last_leaf(value: Any, at: str = "") -> str:
    """The pointer of the last member in document order (the one a cut was writing)."""
    if isinstance(value, dict) and value:
        key = list(value)[-1]
        return _last_leaf(value[key], join_pointer(at, key)) or join_pointer(at, key)
    if isinstance(value, list) and value:
        inner = _last_leaf(value[-1], join_pointer(at, len(value) - 1))
        return inner or join_pointer(at, len(value) - 1)
    return ""


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    return 1


_content_errors = content_errors  # salvage() shadows the name with the grounded check added
