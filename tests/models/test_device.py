"""`--device auto|cpu|cuda` (``models/loader.resolve_device``) and its CLI option."""

from __future__ import annotations

import pytest
import torch
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.errors import ModelError
from gramwright.models.loader import resolve_device


def test_auto_is_cuda_when_torch_sees_a_gpu_else_the_cpu() -> None:
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device(None) == resolve_device("auto")
    assert resolve_device("cpu") == "cpu"


def test_an_unknown_device_is_refused_with_the_choices() -> None:
    with pytest.raises(ModelError, match="unknown device 'tpu'") as info:
        resolve_device("tpu")
    assert "auto, cpu or cuda" in str(info.value.hint)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present here")
def test_cuda_without_a_gpu_is_refused_not_run_on_the_cpu() -> None:
    with pytest.raises(ModelError, match="no CUDA GPU"):
        resolve_device("cuda")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present here")
def test_the_cli_says_so_in_one_line() -> None:
    result = CliRunner().invoke(app, ["generate", "--grammar", "json", "-p", "x", "--device", "cuda"])
    assert result.exit_code == 2
    assert "no CUDA GPU" in result.output and "--device auto" in result.output
