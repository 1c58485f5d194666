"""Layer 2's first step: parse and validate a generated document against its schema.

Masks guarantee the form of an output; this checks its content against the schema (the draft named
by ``$schema``, formats on, exact decimals, ``$ref`` resolved through the registry the compile
used). Truncated output (``finish_reason == "length"``) is reported as such and never parsed.
:func:`validate_value` validates an already-parsed value (layer 3 re-validates what it salvaged);
:func:`parse_document` is the one JSON parse every layer uses (exact decimals).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gramwright.pointer import join_pointer

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = [
    "MAX_DOCUMENT_DEPTH",
    "Validation",
    "ValidationIssue",
    "as_floats",
    "parse_document",
    "too_deep",
    "validate_output",
    "validate_value",
]

# finish reasons that mean "the output was cut before the model finished it"
CUT_REASONS = frozenset({"length", "timeout"})

# objects and arrays inside each other that a document may nest: the standard library's parser
# and the validator recurse (json.loads fails near 930 levels, a recursive schema's validation far
# sooner), so a deeper text is refused before either sees it; the schema reader's limit
# (schema/depth.py), 10x the deepest JSONSchemaBench schema
MAX_DOCUMENT_DEPTH = 264


def too_deep(text: str, limit: int = MAX_DOCUMENT_DEPTH) -> str | None:
    """Why ``text`` is not parsed (nested past ``limit``, measured without recursion), or None."""
    from gramwright.schema.depth import json_depth

    depth, _ = json_depth(text, limit)
    if depth <= limit:
        return None
    return f"nested {depth} levels deep (objects and arrays); gramwright validates documents up to {limit}"


@dataclass(frozen=True)
class ValidationIssue:
    """One failed check: where in the document (JSON Pointer), which keyword, what.

    ``members``: the member names the issue is about, where the keyword names some (the missing
    members of ``required``, the unexpected ones of ``additionalProperties``) — layer 3 needs them
    to know what to drop or what is missing."""

    pointer: str
    keyword: str
    message: str
    members: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "keyword": self.keyword, "message": self.message}


@dataclass
class Validation:
    parsed: bool
    valid: bool
    issues: list[ValidationIssue] = field(default_factory=list)
    value: Any = None
    truncated: bool = False

    @property
    def errors(self) -> list[str]:
        return [str(issue) for issue in self.issues]

    def to_dict(self) -> dict[str, Any]:
        return {
            "parsed": self.parsed,
            "valid": self.valid,
            "errors": self.errors,
            "issues": [issue.to_dict() for issue in self.issues],
        }


def parse_document(text: str) -> Any:
    """``json.loads`` with exact decimals (JSON Schema compares numbers mathematically: floats would
    round 1e-400 to 0 and 0.1 + 0.2 style fractions to neighbours). Raises ``ValueError``."""
    try:
        return json.loads(text, parse_float=Decimal)
    except ArithmeticError:  # an exponent beyond Decimal's range: floats are the best we have
        return json.loads(text)


def validate_output(
    text: str, schema: Any, finish_reason: str = "stop", *, registry: SchemaRegistry | None = None
) -> Validation:
    """Parse and validate (formats on). Truncated output is reported as such, not parsed.

    ``registry`` (a compiled source's) resolves ``$ref`` to documents beside the schema file."""
    if finish_reason in CUT_REASONS:
        issue = ValidationIssue("", "finish_reason", f"truncated: finish_reason={finish_reason} (not parsed)")
        return Validation(parsed=False, valid=False, issues=[issue], truncated=True)
    try:
        value = parse_document(text)
    except ValueError as exc:
        return Validation(parsed=False, valid=False, issues=[ValidationIssue("", "json", f"not JSON: {exc}")])
    issues = validate_value(value, schema, registry=registry)
    return Validation(parsed=True, valid=not issues, issues=issues, value=value)


def validate_value(
    value: Any, schema: Any, *, registry: SchemaRegistry | None = None
) -> list[ValidationIssue]:
    """The schema's verdict on a parsed value: every issue, in the validator's order."""
    try:
        found = list(_validator(schema, registry).iter_errors(value))
    except RecursionError:  # a recursive schema over a deep (but not too deep to parse) value
        return [ValidationIssue("", "depth", "nested too deeply to validate against this recursive schema")]
    except TypeError:
        # Decimal against a float keyword (multipleOf 0.1 read as a float): read the schema's
        # floats as the decimals they were written as (repr is the shortest round-trip text), so
        # 0.3 stays a multiple of 0.1; floats only where that fails too (a $ref'd document's floats)
        try:
            found = list(_validator(_as_decimals(schema), registry).iter_errors(value))
        except TypeError:
            found = list(_validator(schema, registry).iter_errors(as_floats(value)))
    return [
        ValidationIssue(join_pointer("", *e.absolute_path), str(e.validator), _short(e.message), _members(e))
        for e in found
    ]


MESSAGE_LIMIT = 400


def _short(message: str) -> str:
    """jsonschema's message quotes the whole instance: a 16 MiB string would become a 16 MiB error
    line. Keep the start (the value's head and the keyword's words are at the ends) and the end."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    cut = len(message) - MESSAGE_LIMIT
    return f"{message[:300]}… ({cut:,} characters left out) …{message[-100:]}"


def _members(error: Any) -> tuple[str, ...]:
    instance = error.instance
    if not isinstance(instance, dict):
        return ()
    if error.validator == "required" and isinstance(error.validator_value, list):
        return tuple(str(k) for k in error.validator_value if k not in instance)
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        patterns = error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
        return tuple(k for k in instance if k not in props and not any(re.search(p, k) for p in patterns))
    return ()


def _as_decimals(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_as_decimals(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_decimals(v) for k, v in value.items()}
    return value


def as_floats(value: Any) -> Any:
    """``value`` with its exact decimals as floats: what JSON writes and CEL reads (it has no
    decimal type)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [as_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: as_floats(v) for k, v in value.items()}
    return value


def _validator(schema: Any, registry: SchemaRegistry | None) -> Any:
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    if registry is None or not registry.root_uri:
        return cls(schema, format_checker=cls.FORMAT_CHECKER)
    # A schema read from a file has no $id, so its relative $refs resolve against the file's URI:
    # validate through a one-$ref wrapper at that URI, in the registry the compiler resolved with.
    wrapper: dict[str, Any] = {"$ref": registry.root_uri}
    if isinstance(schema, dict) and "$schema" in schema:
        wrapper["$schema"] = schema["$schema"]
    return cls(wrapper, registry=registry.registry, format_checker=cls.FORMAT_CHECKER)
