"""Schema linter: everything in a JSON Schema that hurts constrained decoding, per target profile.

    from gramwright.lint import lint_schema
    report = lint_schema(schema, profile="openai-strict@2024-08")
    for d in report.diagnostics:
        print(d.severity, d.rule, d.pointer, d.message)

Rules live in :mod:`gramwright.lint.rules` (one small function each), profiles are data files in
``toolchain/lint/profiles/``, renderers in :mod:`gramwright.lint.render`.
"""

from gramwright.lint.context import LintOptions, Tokenizer
from gramwright.lint.diagnostic import (
    SEVERITIES,
    CostEstimate,
    Diagnostic,
    Finding,
    Fix,
    LintReport,
    Severity,
)
from gramwright.lint.linter import lint_schema
from gramwright.lint.profiles import DEFAULT_PROFILE, Profile, ProfileError, available_profiles, load_profile
from gramwright.lint.registry import Rule, all_rules

__all__ = [
    "DEFAULT_PROFILE",
    "SEVERITIES",
    "CostEstimate",
    "Diagnostic",
    "Finding",
    "Fix",
    "LintOptions",
    "LintReport",
    "Profile",
    "ProfileError",
    "Rule",
    "Severity",
    "Tokenizer",
    "all_rules",
    "available_profiles",
    "lint_schema",
    "load_profile",
]
