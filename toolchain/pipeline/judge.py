"""Layer 2's verdict on one output text: parse, schema, rules — before any decision is taken.

Constrained text is parsed as it is (the mask made it; it is never repaired). Text made without
masks (``decode_mode: unconstrained``, ``gramwright validate``) goes through extraction and, only
when it does not parse, repair — both logged. A cut output (``length``/``timeout``) is not parsed
as complete: its closed prefix is kept for layer 3 only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gramwright.pipeline.cel_eval import evaluate_rules
from gramwright.pipeline.extraction import Reading, read_json_text
from gramwright.pipeline.prefix import close_prefix
from gramwright.pipeline.result import ResultError
from gramwright.pipeline.rules import RuleSet
from gramwright.pipeline.salvage import content_errors, ungrounded_errors
from gramwright.validate import CUT_REASONS, parse_document

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["Judged", "judge_text", "warn_rules"]


@dataclass
class Judged:
    index: int  # the attempt it came from
    value: Any = None
    parsed: bool = False  # a complete value was read (a closed prefix is not one)
    cut: bool = False  # the output stopped before its end (length, timeout, or a cut outside text)
    cut_at: str = ""  # the member being written at the cut
    errors: list[ResultError] = field(default_factory=list)
    reading: Reading | None = None  # how text made elsewhere was read

    @property
    def ok(self) -> bool:
        return self.parsed and not self.cut and not self.errors

    def rank(self) -> tuple[bool, bool, int, int]:
        """Layer 3 salvages from the best attempt: complete over cut, fewer errors, later."""
        return (self.value is not None, not self.cut, -len(self.errors), self.index)


def judge_text(
    text: str,
    finish_reason: str,
    *,
    index: int,
    schema: Any,
    registry: SchemaRegistry | None,
    rules: RuleSet | None,
    made_with_mask: bool,
    source_text: str | None = None,
) -> Judged:
    """``source_text``: the text the schema's ``x-grounded`` values must come from; a value not
    in it is an error (a mask built from it cannot make one, a scripted reply or a server that
    does not carry grounding can)."""
    if finish_reason in CUT_REASONS:
        found = Judged(index, cut=True)
        found.errors.append(
            ResultError("", "finish_reason", f"cut: finish_reason={finish_reason} (not parsed)")
        )
        if made_with_mask:
            closed = close_prefix(text)
            if closed is not None:
                found.value, found.cut_at = closed.value, closed.cut_at
        else:
            reading = read_json_text(text)
            found.reading, found.value = reading, reading.value if reading.parsed else None
        return found
    if made_with_mask:
        try:
            value = parse_document(text)
        except ValueError as exc:  # a grammar that is not JSON-only (a GBNF with prose around)
            return Judged(index, errors=[ResultError("", "json", f"not JSON: {exc}")])
        found = Judged(index, value, parsed=True)
    else:
        reading = read_json_text(text)
        if not reading.parsed:
            return Judged(index, errors=[ResultError("", "json", reading.error)], reading=reading)
        found = Judged(index, reading.value, parsed=True, reading=reading, cut=reading.truncated)
        if reading.truncated:
            found.errors.append(ResultError("", "finish_reason", "the text ends mid-value: it was cut"))
    found.errors.extend(content_errors(found.value, schema, registry, rules))
    if source_text is not None:
        found.errors.extend(ungrounded_errors(found.value, schema, source_text))
    return found


def warn_rules(rules: RuleSet | None, value: Any) -> list[ResultError]:
    """The ``warn`` rules that failed on the returned value (recorded, never rejecting)."""
    if not rules or value is None:
        return []
    return [
        ResultError(o.pointer, "rule", o.message, o.rule_id, o.severity)
        for o in evaluate_rules(rules, value)
        if o.severity == "warn"
    ]
