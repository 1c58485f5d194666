"""The verdict on a JSON document *as written*: its value, not the one form the grammar generates.

A schema's grammar writes each value one way (compact, members in schema order, numbers and
strings canonical), and a model under its mask only ever writes that form. A document another
tool wrote is judged on its value instead: ``check`` (document form, the default for schemas)
parses it and asks the same grammar whether it accepts the value written canonically in *some*
member order (:func:`gramwright.schema.canonical.accepts`, an exact search over the recognizer's
states). So the grammar decides, and spelling (``100.0``, ``1e2``, ``1e-5``), member order and
whitespace between tokens do not.

Who decides what:

* The grammar, wherever the compile report says it is exact.
* Where the report lists an approximated or discarded keyword, the grammar accepts a superset,
  so its acceptance may rest on that keyword: the validator (``jsonschema``, formats on, exact
  decimals) is the referee there, and the verdict line says so. A grammar rejection needs no
  referee (a superset never rejects a valid value).
* When the member-order search runs out of budget the grammar has no verdict; the validator's
  verdict is given and the reason says so (``validator``).

The validator runs on every parsed document and its verdict is part of the result either way;
a disagreement where the grammar is exact is said in a note (it would be a bug of one of them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gramwright.recognizer import Recognizer
from gramwright.sources import CompiledSource

__all__ = ["SEARCH_BUDGET", "ValueVerdict", "approximations", "judge_value", "validator_verdict"]

# feeds the member-order search may spend on one document before it says "undecided"
SEARCH_BUDGET = 200_000


@dataclass
class ValueVerdict:
    """The grammar's verdict on a parsed document's value (``accepted`` None: undecided)."""

    accepted: bool | None
    text: str = ""  # the value as the grammar accepts it (when accepted)


@dataclass
class ValidatorVerdict:
    valid: bool | None  # None: the validator could not run (its reason in ``errors``)
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"name": "jsonschema", "valid": self.valid, "errors": list(self.errors)}


def judge_value(loaded: CompiledSource, rec: Recognizer, value: Any) -> ValueVerdict:
    """Does ``loaded``'s grammar accept ``value`` (canonical spelling, some member order)?"""
    from gramwright.schema.canonical import KeyOrder, SearchBudgetExceeded, recorded_text

    rec.reset()
    try:
        found = recorded_text(rec, value, budget=SEARCH_BUDGET, key_order=KeyOrder(loaded.member_orders))
    except SearchBudgetExceeded:
        return ValueVerdict(None)
    except (ValueError, TypeError, RecursionError):  # not writable as JSON (nan, a lone surrogate)
        return ValueVerdict(False)
    if found is None:
        return ValueVerdict(False)
    return ValueVerdict(True, found.decode("utf-8"))


def parse_value(data: bytes) -> tuple[bool, Any]:
    """(parsed, value) with floats, as the grammar's canonical text is written from them."""
    try:
        return True, json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False, None


def validator_verdict(loaded: CompiledSource, data: bytes) -> ValidatorVerdict | None:
    """jsonschema's verdict on the document (exact decimals); None when it is not JSON."""
    from gramwright.validate import parse_document, too_deep, validate_value

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    deep = too_deep(text)
    if deep is not None:
        return ValidatorVerdict(None, [deep])
    try:
        value = _integral_as_int(parse_document(text))
    except (ValueError, RecursionError):
        return None
    import re

    import referencing.exceptions

    try:
        issues = validate_value(value, loaded.schema, registry=loaded.registry)
    # the validator's own refusals: a $ref it cannot resolve, a pattern Python's re cannot read
    except (referencing.exceptions.Unresolvable, re.error, LookupError, ValueError, TypeError) as exc:
        return ValidatorVerdict(None, [f"the validator could not run: {type(exc).__name__}: {exc}"])
    return ValidatorVerdict(not issues, [str(issue) for issue in issues])


def _integral_as_int(value: Any) -> Any:
    """Decimals with no fraction (``9998.0``, ``1e2``) as ints: JSON Schema counts them as integers,
    and the validator's type check only knows ints and floats."""
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, list):
        return [_integral_as_int(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral_as_int(v) for k, v in value.items()}
    return value


def approximations(loaded: CompiledSource) -> list[dict[str, str]]:
    """The keywords the grammar does not enforce exactly (the compile report's other entries)."""
    return [
        {"pointer": e.pointer, "keyword": e.keyword, "status": e.status, "reason": e.reason}
        for e in loaded.inexact()
    ]


def approximation_words(approx: list[dict[str, str]], limit: int = 3) -> str:
    """'/minProperties, /properties/n/multipleOf (+2 more)' (a report entry's pointer ends in its keyword)."""
    shown = [a["pointer"] or "#" for a in approx[:limit]]
    more = f" (+{len(approx) - limit} more)" if len(approx) > limit else ""
    return ", ".join(shown) + more
