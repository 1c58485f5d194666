"""The pipeline on the real embedded model (few, short): the result never lies about form or
content, and the token and time budgets hold with a real generation loop."""

from __future__ import annotations

import pytest

from gramwright.generation import Generator
from gramwright.pipeline import GeneratorBackend, run
from gramwright.pipeline.cel_eval import evaluate_rules
from gramwright.pipeline.rules import load_rules
from gramwright.sources import CompiledSource, load_source
from gramwright.validate import validate_value

pytestmark = pytest.mark.model

SCHEMA = {
    "type": "object",
    "required": ["name", "age"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 20, "description": "the cat's name"},
        "age": {"type": "integer", "minimum": 0, "maximum": 30, "description": "age in years"},
    },
    "x-rules": [
        {"id": "adult", "rule": "self.age >= 1", "message": "age must be at least 1", "fieldPath": "/age"}
    ],
}


@pytest.fixture(scope="module")
def backend() -> GeneratorBackend:
    return GeneratorBackend(Generator())


def _source(tmp_path_factory: pytest.TempPathFactory) -> CompiledSource:
    import json

    path = tmp_path_factory.mktemp("schema") / "cat.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return load_source(str(path))


def test_a_real_run_reports_its_attempts_and_never_claims_ok_falsely(
    backend: GeneratorBackend,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    source = _source(tmp_path_factory)
    result = run(source, "A cat named Tom, 3 years old.", backend=backend, max_tokens=40, token_budget=100)
    assert result.attempts and result.output_tokens <= 100
    first = result.attempts[0]
    assert first.prompt_tokens > 50 and 0 < first.output_tokens <= 40 and first.seconds > 0
    assert first.clipped_mass is not None and 0.0 <= first.clipped_mass <= 1.0
    if result.status == "ok":
        assert not validate_value(result.value, source.schema)
        assert not evaluate_rules(load_rules(schema=source.schema), result.value)
        assert result.attempts[-1].finish_reason == "stop"
    else:
        assert result.errors and result.cause != "valid"


def test_budgets_hold_on_the_real_model(
    backend: GeneratorBackend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = _source(tmp_path_factory)
    # the grammar's shortest output is 20 tokens: every attempt ends complete inside its limit (the
    # masks close it), and no attempt gets more than the token budget has left
    tight = run(source, "A cat named Tom, 3 years old.", backend=backend, max_tokens=24, token_budget=40,
                max_attempts=3, fallback="none")  # fmt: skip
    assert tight.output_tokens <= 40
    assert all(a.finish_reason == "stop" for a in tight.attempts), tight.attempts
    left = 40
    for attempt in tight.attempts:
        assert attempt.max_tokens <= left and attempt.output_tokens <= attempt.max_tokens
        left -= attempt.output_tokens
    timed = run(source, "Describe a cat named Tom at length.", backend=backend, max_tokens=100,
                time_budget_s=0.5, decode_mode="unconstrained", fallback="none")  # fmt: skip
    assert timed.attempts[0].finish_reason in ("timeout", "stop")
    # checked at every token: at most one token's latency past the budget (generous on a busy CPU);
    # the first token (the prompt's prefill with it) cannot be interrupted, however long it takes
    assert timed.seconds <= 0.5 + 3.0 or timed.attempts[0].output_tokens <= 1, timed.attempts[0]
