"""Property: the linter never crashes and its output always serialises, whatever the document."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.linter import INTERNAL_RULE
from gramwright.lint.render import render_json, render_sarif

KEYWORDS = [
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "enum", "const",
    "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref", "$defs", "definitions", "minimum",
    "maximum", "exclusiveMinimum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
    "uniqueItems", "patternProperties", "default", "examples", "mininum", "x-dynamic-enum", "$id",
]  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 300),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(
        ["string", "object", "array", "integer", "#", "#/$defs/a", "#/properties/x", "^a+$", "(", "date"]
    ),
    st.text(max_size=6),
)


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.sampled_from(KEYWORDS), children, max_size=5),
            st.dictionaries(st.text(max_size=4), children, max_size=3),
        ),
        max_leaves=25,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas(), st.sampled_from(["gramwright", "openai-strict@2024-08", "anthropic", "llguidance"]))
def test_never_crashes(schema: Any, profile: str) -> None:
    report = lint_schema(schema, profile=profile, options=LintOptions(compile=False, max_tokens=50))
    assert not [d.message for d in report.diagnostics if d.rule == INTERNAL_RULE]
    json.loads(render_json([report]))
    json.loads(render_sarif([report], {"<schema>": json.dumps(schema)}))
