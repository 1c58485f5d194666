"""The retry loop and layer 3, driven deterministically through the scripted backend: layers, feedback,
the length branch, budgets, partial / degraded / failed — and the invariants over any attempt
sequence (hypothesis): ok only when valid and rule-clean from a finished attempt, partial only with
every required member valid, never ok after a cut without a later success, budgets never exceeded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gramwright.errors import PipelineError
from gramwright.pipeline import Policy, ScriptedBackend, StructuredResult, run
from gramwright.pipeline.cel_eval import evaluate_rules
from gramwright.pipeline.rules import load_rules
from gramwright.sources import load_source
from gramwright.validate import validate_value

ROOT = Path(__file__).resolve().parents[2]
SOURCE = load_source(str(ROOT / "docs/examples/purchase_order.json"))
RULES = load_rules(ROOT / "docs/examples/purchase_order.rules.json", schema=SOURCE.schema)


def _order(**change: Any) -> str:
    doc: dict[str, Any] = {
        "supplier": "联想",
        "apply_dept": "行政部",
        "urgency": "加急",
        "items": [{"name": "笔记本电脑", "qty": 2, "unit_price": 5999}],
        "total_amount": 11998,
    }
    doc.update(change)
    return json.dumps({k: v for k, v in doc.items() if v is not None}, ensure_ascii=False)


GOOD = _order()
WRONG_TOTAL = _order(total_amount=5999)  # an error rule fails at /total_amount
BAD_OPTIONAL = _order(urgency="very urgent")  # an optional member fails its enum
NO_SUPPLIER = _order(supplier=None)  # a required member is missing
BAD_ITEM = _order(items=[{"name": "笔记本电脑", "qty": 0, "unit_price": 5999}])
TWO_ITEMS_ONE_BAD = _order(
    items=[{"name": "笔记本电脑", "qty": 2, "unit_price": 5999}, {"name": "鼠标", "qty": 0, "unit_price": 99}]
)


def _run(
    *outputs: Any, policy: Policy | None = None, **overrides: Any
) -> tuple[StructuredResult, ScriptedBackend]:
    backend = ScriptedBackend.of(*outputs)
    result = run(SOURCE, "采购两台笔记本电脑", policy=policy, rules=RULES, backend=backend, **overrides)
    return result, backend


def test_a_valid_first_pass_is_layer_1() -> None:
    result, backend = _run(GOOD)
    assert (result.status, result.layer, len(result.attempts), result.cause) == ("ok", 1, 1, "valid")
    assert result.confidence == 1.0 and not result.errors and not result.degraded
    assert backend.requests[0].constrain and backend.requests[0].max_tokens == 256


def test_retry_carries_the_errors_as_data_not_the_failed_output() -> None:
    result, backend = _run(WRONG_TOTAL, GOOD)
    assert (result.status, result.layer, len(result.attempts)) == ("ok", 2, 2)
    first, second = backend.requests
    assert first.prompt == "采购两台笔记本电脑"
    assert second.prompt.startswith("采购两台笔记本电脑") and '"/total_amount"' in second.prompt
    assert "sum of qty × unit_price" in second.prompt and WRONG_TOTAL not in second.prompt
    assert result.attempts[0].errors[0].rule == "total-matches-items" and result.attempts[1].feedback
    assert result.confidence == pytest.approx(0.9)


def test_length_raises_max_tokens_once_with_the_same_prompt() -> None:
    cut = {"text": GOOD, "tokens": 300}  # longer than the first limit: cut there
    result, backend = _run(cut, GOOD)
    assert [r.max_tokens for r in backend.requests] == [256, 512]
    assert backend.requests[0].prompt == backend.requests[1].prompt  # a truncation is not a format error
    assert result.attempts[0].finish_reason == "length" and result.status == "ok" and result.layer == 2


def test_a_second_truncation_goes_to_layer_3_with_the_cause_and_is_never_ok() -> None:
    cut = {"text": GOOD[:-1], "finish_reason": "length", "tokens": 256}
    result, backend = _run(cut, {**cut, "tokens": 512}, GOOD, max_attempts=3)
    assert len(backend.requests) == 2 and result.cause == "truncated"  # raised once, then stopped
    assert result.status == "degraded" and result.degraded and result.layer == 3
    assert any(e.keyword == "finish_reason" and "raising max_tokens once" in e.message for e in result.errors)
    # the member being written at the cut is left out, not completed
    assert result.dropped[0].pointer == "/total_amount" and "cut" in result.dropped[0].reason
    assert result.filled == ["/total_amount"]  # the seed's RULE_ENGINE fallback recomputed it


def test_a_truncation_without_salvage_fails_and_says_why() -> None:
    cut = {"text": GOOD[:30], "finish_reason": "length", "tokens": 256}
    result, _ = _run(cut, cut, fallback="none")
    assert result.status == "failed" and result.value is None and result.confidence == 0.0
    assert result.cause == "truncated" and result.errors


def test_the_token_budget_clips_an_attempt_and_stops_the_loop() -> None:
    result, backend = _run(
        {"text": WRONG_TOTAL, "tokens": 250}, {"text": WRONG_TOTAL, "tokens": 250}, token_budget=300
    )
    assert [r.max_tokens for r in backend.requests] == [256, 50]
    assert result.output_tokens <= 300 and result.cause == "token budget"
    assert any("token budget (300) left no more room" in e.message for e in result.errors)
    # a third attempt is not even started once the budget is spent
    result, backend = _run(
        {"text": WRONG_TOTAL, "tokens": 150}, {"text": WRONG_TOTAL, "tokens": 150}, GOOD, token_budget=300
    )
    assert len(backend.requests) == 2 and result.cause == "token budget" and result.status != "ok"
    assert any("token budget spent: 300 of 300" in e.message for e in result.errors)


def test_the_time_budget_stops_an_attempt_mid_output() -> None:
    slow = {"text": WRONG_TOTAL, "seconds": 3.0}
    result, backend = _run(slow, slow, slow, time_budget_s=5.0)
    assert len(backend.requests) == 2 and backend.requests[1].seconds_left == pytest.approx(2.0)
    assert result.attempts[1].finish_reason == "timeout" and result.seconds <= 5.0
    assert result.cause == "time budget"


def test_greedy_without_feedback_does_not_repeat_itself() -> None:
    result, backend = _run(WRONG_TOTAL, GOOD, feedback_on_fail=False)
    assert len(backend.requests) == 1 and result.cause == "no retry"


def test_a_failed_optional_member_gives_partial() -> None:
    result, _ = _run(BAD_OPTIONAL, BAD_OPTIONAL, BAD_OPTIONAL)
    assert result.status == "partial" and not result.degraded and result.layer == 3
    assert [d.pointer for d in result.dropped] == ["/urgency"] and "urgency" not in result.value
    assert not validate_value(result.value, SOURCE.schema)
    assert 0 < result.confidence < 0.9**2


def test_a_required_member_missing_is_never_returned_as_a_value() -> None:
    # neither partial nor degraded: a degraded value still lacks nothing the schema requires
    result, _ = _run(NO_SUPPLIER, NO_SUPPLIER, NO_SUPPLIER, allow_degrade=True)
    assert result.status == "failed" and result.value is None and not result.degraded
    assert any(e.keyword == "required" for e in result.errors)


def test_a_dropped_array_element_is_degraded() -> None:
    result, _ = _run(TWO_ITEMS_ONE_BAD, max_attempts=1, fallback="partial", allow_degrade=True)
    assert result.status == "degraded" and "/items/1" in [d.pointer for d in result.dropped]
    assert not validate_value(result.value, SOURCE.schema)
    # the only item bad: dropping it leaves the required list empty, so nothing is returned
    alone, _ = _run(BAD_ITEM, max_attempts=1, fallback="partial", allow_degrade=True)
    assert alone.status == "failed" and alone.value is None


def test_high_risk_and_fallback_none_never_salvage() -> None:
    for overrides in ({"high_risk": True}, {"fallback": "none"}):
        result, _ = _run(BAD_OPTIONAL, max_attempts=1, **overrides)
        assert result.status == "failed" and result.value is None and result.layer is None


def test_flag_for_review_marks_every_result_that_is_not_ok() -> None:
    result, _ = _run(TWO_ITEMS_ONE_BAD, max_attempts=1, fallback="flag_for_review")
    assert result.needs_review and result.status == "degraded"
    failed, _ = _run(NO_SUPPLIER, max_attempts=1, fallback="flag_for_review")
    assert failed.needs_review and failed.status == "failed"
    ok, _ = _run(GOOD, fallback="flag_for_review")
    assert not ok.needs_review


def test_warn_rules_are_recorded_on_an_ok_result() -> None:
    big = _order(items=[{"name": "服务器", "qty": 1, "unit_price": 60000}], total_amount=60000)
    result, _ = _run(big)
    assert result.status == "ok" and [w.rule for w in result.warnings] == ["large-order-approval"]
    assert result.confidence == pytest.approx(0.97)


def test_unconstrained_text_is_extracted_and_repaired_with_a_log() -> None:
    fenced = "Here you go:\n```json\n" + GOOD.replace('"total_amount"', "'total_amount'") + "\n```"
    result, backend = _run(fenced, decode_mode="unconstrained")
    assert not backend.requests[0].constrain
    assert result.status == "ok" and result.repaired
    assert (
        result.reading["extracted"] == "fence" and result.reading["repairs"][0]["pointer"] == "/total_amount"
    )


def test_a_backend_that_overspends_is_refused() -> None:
    class Greedy(ScriptedBackend):
        def generate(self, request: Any) -> Any:
            out = super().generate(request)
            out.output_tokens = request.max_tokens + 1
            return out

    with pytest.raises(PipelineError, match="limit was"):
        run(SOURCE, "x", backend=Greedy([{"outputs": [{"text": GOOD}]}]))


def test_a_grammar_source_is_refused() -> None:
    with pytest.raises(PipelineError, match="JSON Schema"):
        run(load_source("json"), "x", backend=ScriptedBackend.of(GOOD))


# --- invariants over any attempt sequence -------------------------------------------------------

TEXTS = [GOOD, WRONG_TOTAL, BAD_OPTIONAL, NO_SUPPLIER, BAD_ITEM, GOOD[:-1], GOOD[:25], "{}", "not json"]


def _output(text: str, reason: str, tokens: int | None, seconds: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"text": text, "finish_reason": reason}
    if tokens is not None:  # else one token per 4 characters (≈ 30 for an order)
        out["tokens"] = tokens
    if seconds is not None:  # else 1 ms per token
        out["seconds"] = seconds
    return out


outputs = st.builds(
    _output,
    st.sampled_from(TEXTS),
    st.sampled_from(["stop", "stop", "stop", "length"]),
    st.none() | st.integers(1, 600),
    st.none() | st.floats(0.0, 4.0),
)
policies = st.builds(
    Policy,
    max_attempts=st.integers(1, 4),
    max_tokens=st.integers(8, 400),
    token_budget=st.integers(1, 100) | st.integers(200, 2000),
    time_budget_s=st.floats(0.5, 12.0),
    feedback_on_fail=st.sampled_from([True, True, False]),
    partial_ok=st.booleans(),
    allow_degrade=st.booleans(),
    high_risk=st.sampled_from([False, False, False, True]),
    fallback=st.sampled_from(["none", "partial", "flag_for_review", "rule_engine"]),
    decode_mode=st.sampled_from(["constrained", "unconstrained"]),
)


@settings(max_examples=300)
@given(script=st.lists(outputs, min_size=1, max_size=5), policy=policies)
def test_invariants_hold_for_any_attempt_sequence(script: list[dict[str, Any]], policy: Policy) -> None:
    _check_invariants(*_run(*script, policy=policy), policy)


@settings(max_examples=150)
@given(
    texts=st.lists(st.sampled_from(TEXTS), min_size=1, max_size=4),
    cuts=st.lists(st.booleans(), min_size=4, max_size=4),
    policy=policies.map(lambda p: p.with_overrides(token_budget=5000, time_budget_s=100.0, max_tokens=256)),
)
def test_invariants_hold_with_room_in_the_budgets(texts: list[str], cuts: list[bool], policy: Policy) -> None:
    script = [
        {"text": t, "finish_reason": "length" if c else "stop"} for t, c in zip(texts, cuts, strict=False)
    ]
    _check_invariants(*_run(*script, policy=policy), policy)


def _check_invariants(result: StructuredResult, backend: ScriptedBackend, policy: Policy) -> None:
    attempts = result.attempts
    # budgets are never exceeded, and every attempt stayed inside its own limit
    assert len(attempts) <= policy.max_attempts
    assert result.output_tokens <= policy.token_budget
    assert result.seconds <= policy.time_budget_s + 1e-9
    assert all(a.output_tokens <= a.max_tokens for a in attempts)
    assert result.status in ("ok", "partial", "degraded", "failed")
    assert result.degraded == (result.status == "degraded") and 0.0 <= result.confidence <= 1.0
    if result.status == "ok":
        # validates, passes every error rule, and came from the last attempt, which finished:
        # never ok after a length finish without a successful later attempt
        assert not validate_value(result.value, SOURCE.schema)
        assert not [o for o in evaluate_rules(RULES, result.value) if o.severity == "error"]
        assert attempts[-1].finish_reason == "stop" and attempts[-1].valid and not result.dropped
    if result.status == "partial":
        # every required member valid (the value validates), nothing computed, from a finished attempt
        assert not validate_value(result.value, SOURCE.schema)
        assert not [o for o in evaluate_rules(RULES, result.value) if o.severity == "error"]
        assert result.dropped and not result.filled and policy.partial_ok
        assert result.source_attempt is not None and attempts[result.source_attempt].finish_reason == "stop"
    if result.status in ("partial", "degraded"):
        assert policy.salvage and result.layer == 3
    if not policy.salvage:
        assert result.status in ("ok", "failed")
    if result.status == "failed":
        assert result.value is None and result.confidence == 0.0 and result.errors and result.cause
    assert len(backend.requests) == len(attempts)


def test_on_attempt_sees_each_attempt_as_it_is_judged_and_can_stop_the_run() -> None:
    seen: list[tuple[int, list[str], str]] = []

    def watch(attempt: Any) -> None:
        # the backend has not been asked for the next attempt yet
        assert len(backend.requests) == attempt.index + 1
        seen.append((attempt.index, [e.keyword for e in attempt.errors], attempt.feedback))

    backend = ScriptedBackend.of(_order(total_amount=-1), GOOD)
    result = run(SOURCE, "x", backend=backend, on_attempt=watch)
    assert result.ok and [s[0] for s in seen] == [0, 1] and seen[1][2]

    class Stop(Exception):
        pass

    def stop(attempt: Any) -> None:
        raise Stop()

    backend = ScriptedBackend.of(_order(total_amount=-1), GOOD)
    with pytest.raises(Stop):
        run(SOURCE, "x", backend=backend, on_attempt=stop)
    assert len(backend.requests) == 1
