"""Layer 2's first step: parse and validate a generated document against its schema.

Masks guarantee the form of an output; this checks its content against the schema (formats on).
Truncated output (``finish_reason == "length"``) is reported as such and never parsed.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def validate_output(text: str, schema: Any, finish_reason: str) -> dict[str, Any]:
    """Parse and validate (formats on). Truncated output is reported as such, not parsed."""
    import jsonschema

    if finish_reason == "length":
        return {"parsed": False, "valid": False, "errors": ["truncated: finish_reason=length"]}
    try:
        # exact decimals, as JSON Schema compares numbers mathematically (floats would round
        # 1e-400 to 0 and 0.1 + 0.2 style fractions to neighbours)
        try:
            value = json.loads(text, parse_float=Decimal)
        except ArithmeticError:  # an exponent beyond Decimal's range: floats are the best we have
            value = json.loads(text)
    except ValueError as exc:
        return {"parsed": False, "valid": False, "errors": [f"not JSON: {exc}"]}
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    try:
        found = list(validator.iter_errors(value))
    except TypeError:  # Decimal against a float keyword (e.g. multipleOf 0.01): validate floats
        found = list(validator.iter_errors(json.loads(text)))
    errors = [f"{'/' + '/'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in found]
    return {"parsed": True, "valid": not errors, "errors": errors}
