"""Schema linter: everything in a JSON Schema that hurts constrained decoding, per target profile.

    from toolchain.lint import lint_schema
    report = lint_schema(schema, profile="openai-strict@2024-08")
    for d in report.diagnostics:
        print(d.severity, d.rule, d.pointer, d.message)

Rules live in :mod:`toolchain.lint.rules` (one small function each), profiles are data files in
``toolchain/lint/profiles/``, renderers in :mod:`toolchain.lint.render`.
"""

from toolchain.lint.context import LintOptions, Tokenizer
from toolchain.lint.diagnostic import SEVERITIES, CostEstimate, Diagnostic, Finding, Fix, LintReport, Severity
from toolchain.lint.linter import lint_schema
from toolchain.lint.profiles import DEFAULT_PROFILE, Profile, ProfileError, available_profiles, load_profile
from toolchain.lint.registry import Rule, all_rules

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
