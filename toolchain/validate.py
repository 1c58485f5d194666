"""Layer 2's first step: parse and validate a generated document against its schema.

Masks guarantee the form of an output; this checks its content against the schema (formats on,
exact decimals, ``$ref`` resolved through the registry the compile used). Truncated output
(``finish_reason == "length"``) is reported as such and never parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gramwright.pointer import join_pointer

if TYPE_CHECKING:
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["Validation", "ValidationIssue", "validate_output"]


@dataclass(frozen=True)
class ValidationIssue:
    """One failed check: where in the document (JSON Pointer), which keyword, what."""

    pointer: str
    keyword: str
    message: str

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


def validate_output(
    text: str, schema: Any, finish_reason: str = "stop", *, registry: SchemaRegistry | None = None
) -> Validation:
    """Parse and validate (formats on). Truncated output is reported as such, not parsed.

    ``registry`` (a compiled source's) resolves ``$ref`` to documents beside the schema file."""
    if finish_reason == "length":
        issue = ValidationIssue("", "finish_reason", "truncated: finish_reason=length (not parsed)")
        return Validation(parsed=False, valid=False, issues=[issue], truncated=True)
    try:
        # exact decimals, as JSON Schema compares numbers mathematically (floats would round
        # 1e-400 to 0 and 0.1 + 0.2 style fractions to neighbours)
        try:
            value = json.loads(text, parse_float=Decimal)
        except ArithmeticError:  # an exponent beyond Decimal's range: floats are the best we have
            value = json.loads(text)
    except ValueError as exc:
        return Validation(parsed=False, valid=False, issues=[ValidationIssue("", "json", f"not JSON: {exc}")])
    validator = _validator(schema, registry)
    try:
        found = list(validator.iter_errors(value))
    except TypeError:  # Decimal against a float keyword (e.g. multipleOf 0.01): validate floats
        found = list(validator.iter_errors(json.loads(text)))
    issues = [ValidationIssue(join_pointer("", *e.absolute_path), str(e.validator), e.message) for e in found]
    return Validation(parsed=True, valid=not issues, issues=issues, value=value)


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
