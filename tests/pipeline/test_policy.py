"""The policy: defaults ← the schema's x-runtime ← overrides; unknown keys are notes (and a lint
warning), invalid values refuse to run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.errors import PipelineError
from gramwright.lint import LintOptions, lint_schema
from gramwright.pipeline.policy import Policy, parse_runtime

ROOT = Path(__file__).resolve().parents[2]
PO = json.loads((ROOT / "docs/examples/purchase_order.json").read_text(encoding="utf-8"))


def test_the_seed_block_reads_with_its_own_spellings() -> None:
    policy = Policy.from_schema(PO)
    # retry.max is the number of retries after the first attempt
    assert policy.max_attempts == 3 and policy.feedback_on_fail
    assert policy.partial_ok and policy.fallback == "rule_engine" and policy.decode_mode == "constrained"
    assert policy.may_degrade and policy.may_be_partial and not policy.notes


def test_defaults_without_a_block_are_conservative() -> None:
    policy = Policy.from_schema({"type": "object"})
    assert policy == Policy()
    assert not policy.allow_degrade and not policy.may_degrade  # degraded values need an opt-in


def test_overrides_win_and_none_means_unset() -> None:
    policy = Policy.from_schema(PO, max_attempts=1, partial_ok=None, high_risk=True)
    assert policy.max_attempts == 1 and policy.partial_ok  # None did not override
    assert (
        not policy.salvage and not policy.may_be_partial and not policy.may_degrade
    )  # high risk: no layer 3
    with pytest.raises(PipelineError, match="unknown policy field"):
        policy.with_overrides(retries=3)


def test_budget_block() -> None:
    fields, problems = parse_runtime({"budget": {"tokens": 900, "seconds": 12.5, "max_tokens": 300}})
    assert fields == {"token_budget": 900, "time_budget_s": 12.5, "max_tokens": 300} and not problems


def test_unknown_keys_are_notes_not_silence() -> None:
    policy = Policy.from_schema({"x-runtime": {"partail_ok": False, "retry": {"max": 1, "backoff": 2}}})
    assert policy.max_attempts == 2
    assert policy.partial_ok == Policy().partial_ok  # the misspelt key set nothing …
    assert any("partail_ok" in n for n in policy.notes) and any(
        "backoff" in n for n in policy.notes
    )  # … and says so


@pytest.mark.parametrize(
    ("block", "pointer"),
    [
        ({"retry": {"max": -1}}, "/x-runtime/retry/max"),
        ({"max_attempts": "3"}, "/x-runtime/max_attempts"),
        ({"fallback": "retry_forever"}, "/x-runtime/fallback"),
        ({"decode_mode": "fast"}, "/x-runtime/decode_mode"),
        ({"partial_ok": "yes"}, "/x-runtime/partial_ok"),
        ({"budget": {"seconds": 0}}, "/x-runtime/budget/seconds"),
        ({"max_attempts": 2, "retry": {"max": 1}}, "/x-runtime"),
        ("fast", "/x-runtime"),
    ],
)
def test_invalid_values_refuse_to_run_and_name_the_pointer(block: object, pointer: str) -> None:
    with pytest.raises(PipelineError) as info:
        Policy.from_schema({"x-runtime": block})
    assert info.value.where == pointer


def test_the_linter_reads_the_block_with_the_same_parser() -> None:
    schema = {"type": "object", "x-runtime": {"partail_ok": True, "fallback": "nope", "mask_cache": False}}
    found = {
        (d.pointer, d.severity)
        for d in lint_schema(schema, options=LintOptions(compile=False)).diagnostics
        if d.rule == "runtime/x-runtime"
    }
    assert found == {
        ("/x-runtime/partail_ok", "warn"),
        ("/x-runtime/fallback", "error"),
        ("/x-runtime/mask_cache", "info"),
    }
    clean = lint_schema(PO, options=LintOptions(compile=False)).diagnostics
    assert not [d for d in clean if d.rule == "runtime/x-runtime"]
