"""Target profiles: data files load, versions select, severities differ where the targets differ."""

from __future__ import annotations

import ast
import json
from importlib import resources
from typing import Any

import pytest

from gramwright.lint import (
    LintOptions,
    ProfileError,
    all_rules,
    available_profiles,
    lint_schema,
    load_profile,
)
from tests.support.lint import PURCHASE_ORDER

TARGETS = {"gramwright", "openai-strict", "anthropic", "gemini", "llguidance", "xgrammar", "llama-cpp"}


def _deep(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"type": "string", "maxLength": 4}
    for i in range(levels):
        inner = {
            "type": "object",
            "properties": {f"l{i}": inner},
            "required": [f"l{i}"],
            "additionalProperties": False,
        }
    return inner


def test_all_targets_exist() -> None:
    assert set(available_profiles()) == TARGETS
    assert load_profile().name == "gramwright"


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_profile_files_reference_known_rules(name: str) -> None:
    profile = load_profile(name)
    rules = all_rules()
    for key in profile.severity:
        assert key.split("#", 1)[0] in rules, f"{name}: unknown rule {key}"
    assert profile.compile_supersedes <= set(rules)
    assert profile.version and profile.date


def test_openai_keeps_both_dated_limit_versions() -> None:
    old, new = load_profile("openai-strict@2024-08"), load_profile("openai-strict")
    assert (old.limit("max_total_properties"), old.limit("max_nesting_depth")) == (100, 5)
    assert (old.limit("max_total_string_chars"), old.limit("max_enum_values")) == (15000, 500)
    assert (new.limit("max_total_properties"), new.limit("max_nesting_depth")) == (5000, 10)
    assert (new.limit("max_total_string_chars"), new.limit("max_enum_values")) == (120000, 1000)
    assert load_profile("openai-strict@current") == new
    assert old.label == "openai-strict@2024-08" and len(new.versions) == 2


def test_unknown_profile_and_version() -> None:
    with pytest.raises(ProfileError, match="known:"):
        load_profile("nope")
    with pytest.raises(ProfileError, match="versions: 2024-08"):
        load_profile("openai-strict@1999")


def test_no_provider_limits_in_code() -> None:
    """The limits the providers publish are in the data files, not numeric constants in the rules."""
    folder = resources.files("gramwright.lint") / "rules"
    published = {5000, 15000, 120000, 7500, 250, 500, 1024}
    for path in folder.iterdir():
        if path.name.endswith(".py"):
            tree = ast.parse(path.read_text("utf-8"))
            numbers = {
                n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int
            }
            assert not numbers & published, (path.name, numbers & published)


def test_depth_limit_depends_on_openai_version() -> None:
    schema = _deep(6)
    old = [
        d
        for d in lint_schema(schema, profile="openai-strict@2024-08").diagnostics
        if d.rule == "size/nesting-depth"
    ]
    new = [
        d for d in lint_schema(schema, profile="openai-strict").diagnostics if d.rule == "size/nesting-depth"
    ]
    assert [d.severity for d in old] == ["error"] and "limit of 5" in old[0].message
    assert [d.severity for d in new] == ["warn"]


def test_severity_depends_on_profile() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}

    def severity(profile: str, rule: str) -> list[str]:
        return [d.severity for d in lint_schema(schema, profile=profile).diagnostics if d.rule == rule]

    assert severity("openai-strict", "object/additional-properties-missing") == ["error"]
    assert severity("llama-cpp", "object/additional-properties-missing") == ["warn"]
    assert severity("gramwright", "object/additional-properties-missing") == ["info"]
    assert severity("openai-strict", "object/optional-property") == ["error"]
    assert severity("anthropic", "object/optional-property") == ["warn"]
    assert severity("gramwright", "object/optional-property") == []
    assert severity("anthropic", "string/length-unsupported") == ["error"]
    assert severity("gemini", "string/length-unsupported") == ["warn"]
    assert severity("gramwright", "string/length-unsupported") == []


def test_unknown_keyword_is_an_error_for_llguidance_only() -> None:
    schema = {"type": "integer", "mininum": 1}
    by_profile = {
        p: [
            d.severity for d in lint_schema(schema, profile=p).diagnostics if d.rule == "meta/unknown-keyword"
        ]
        for p in ("gramwright", "llguidance", "xgrammar")
    }
    assert by_profile == {"gramwright": ["warn"], "llguidance": ["error"], "xgrammar": ["warn"]}


def test_unsupported_keyword_for_target() -> None:
    schema = {"type": "object", "propertyNames": {"maxLength": 3}, "additionalProperties": {"type": "string"}}
    found = [
        d
        for d in lint_schema(schema, profile="openai-strict").diagnostics
        if d.rule == "meta/unknown-keyword"
    ]
    assert [(d.pointer, d.severity) for d in found] == [("/propertyNames", "error")]
    assert not [d for d in lint_schema(schema).diagnostics if d.rule == "meta/unknown-keyword"]


def test_purchase_order_has_no_errors_under_gramwright() -> None:
    report = lint_schema(PURCHASE_ORDER, profile="gramwright", options=LintOptions(compile=False))
    assert report.counts()["error"] == 0, report.diagnostics
    assert report.dialect == "draft-07"
    assert not [
        d for d in report.diagnostics if d.rule == "meta/unknown-keyword"
    ]  # x-runtime is an extension
    assert (
        report.cost.max_depth == 3 and report.cost.optional_properties == 3 and report.cost.largest_enum == 3
    )
    json.dumps([d.to_dict() for d in report.diagnostics], ensure_ascii=False)


def test_purchase_order_is_rejected_by_strict_providers() -> None:
    report = lint_schema(PURCHASE_ORDER, profile="openai-strict", options=LintOptions(compile=False))
    assert report.counts()["error"] > 0
