"""`--dtype auto|float32|bfloat16|float16` (``models/loader.resolve_dtype``): refused early when
unknown, and on the real model the weights in the dtype asked for, with the mask's form kept."""

from __future__ import annotations

import json

import pytest
import torch
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.errors import ModelError
from gramwright.models.loader import DTYPES, resolve_dtype


def test_auto_leaves_the_choice_to_the_device_and_names_pass_through() -> None:
    assert resolve_dtype(None) is None
    assert resolve_dtype("auto") is None
    for name in DTYPES[1:]:
        assert resolve_dtype(name) == name
        assert isinstance(getattr(torch, name), torch.dtype)


def test_an_unknown_dtype_is_refused_with_the_choices() -> None:
    with pytest.raises(ModelError, match="unknown dtype 'fp8'") as info:
        resolve_dtype("fp8")
    assert "auto, float32, bfloat16, float16" in str(info.value.hint)


def test_the_cli_refuses_an_unknown_dtype_in_one_line() -> None:
    result = CliRunner().invoke(app, ["generate", "--grammar", "json", "-p", "x", "--dtype", "fp8"])
    assert result.exit_code == 2
    assert "unknown dtype 'fp8'" in result.output and "bfloat16" in result.output


@pytest.mark.model
def test_bfloat16_weights_generate_a_complete_document_under_the_grammar() -> None:
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import load_for_generation

    generator = Generator(device="cpu", dtype="bfloat16")
    lm = generator.load_model()
    assert lm.dtype == "bfloat16"
    assert all(p.dtype == torch.bfloat16 for p in lm.model.parameters())
    source = load_for_generation("docs/examples/purchase_order.json")
    got = generator.run(source, "Two laptops from Lenovo.", sampling=SamplingOptions(max_tokens=96))
    # form from the mask whatever the arithmetic: finished, and JSON the schema accepts
    assert got.finish_reason == "stop" and got.dtype == "bfloat16"
    assert got.validation is not None and got.validation.valid, got.text
    assert isinstance(json.loads(got.text), dict)
    assert got.to_dict()["dtype"] == "bfloat16"
