"""``--backend llama-cpp``: the embedded GGUF run in-process by llama.cpp under gramwright's own
masks (its logits-processor hook). Outputs are accepted by the recognizer, a tight token budget
closes the output in time (as the transformers backend does, and as no server can), and the
pipeline runs on it unchanged. Skipped when llama_cpp is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="needs llama-cpp-python (the test extra)")

from gramwright.api import check_document
from gramwright.generation import SamplingOptions
from gramwright.llamacpp_generation import LlamaCppGenerator
from gramwright.pipeline import GeneratorBackend, run
from gramwright.sources import load_source

pytestmark = pytest.mark.model

SCHEMA = str(Path(__file__).resolve().parents[1] / "fixtures/serving/contact.json")
PROMPT = "Extract the person: Lena Berg is 55 years old and lives in Oslo."


@pytest.fixture(scope="module")
def generator() -> LlamaCppGenerator:
    return LlamaCppGenerator()


def test_outputs_under_our_masks_are_accepted_by_the_recognizer(generator: LlamaCppGenerator) -> None:
    source = load_source(SCHEMA).for_generation()
    gen = generator.run(source, PROMPT, sampling=SamplingOptions(max_tokens=96))
    assert gen.finish_reason == "stop", gen.text
    assert check_document(source, gen.text, form="bytes").accepted, gen.text
    assert gen.validation is not None and gen.validation.valid, gen.validation
    assert gen.metrics["backend"] == "llama-cpp" and gen.metrics["tokens_per_s"] > 0
    assert 0.0 <= gen.metrics["clipped_mass_avg"] <= 1.0 and gen.metrics["mask_us_p50"] > 0


def test_a_tight_budget_closes_the_output_in_time(generator: LlamaCppGenerator) -> None:
    source = load_source(SCHEMA).for_generation()
    generator.check_budget(source, 33)  # the shortest output's bound is 32 tokens
    gen = generator.run(source, PROMPT, sampling=SamplingOptions(max_tokens=33))
    assert gen.finish_reason == "stop" and gen.tokens <= 33
    assert gen.closed_by_budget and gen.metrics["closing_steps"] > 0
    assert check_document(source, gen.text, form="bytes").accepted, gen.text
    json.loads(gen.text)


def test_the_pipeline_runs_on_it(generator: LlamaCppGenerator) -> None:
    source = load_source(SCHEMA).for_generation()
    result = run(source, PROMPT, backend=GeneratorBackend(generator))
    assert result.attempts and all(a.finish_reason == "stop" for a in result.attempts)
    assert all(check_document(source, a.text, form="bytes").accepted for a in result.attempts)
    assert all(a.clipped_mass is not None for a in result.attempts)  # measured in the hook
    assert result.ok == (not result.attempts[-1].errors)
