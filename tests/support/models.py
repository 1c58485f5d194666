"""The test matrix of real models (``bench/models.py`` locates them): a ``model_name`` parameter
per model, and ``model_arg`` turning it into a ``--model`` value or a skip naming what is missing."""

from __future__ import annotations

import pytest

from bench.models import EMBEDDED, GEMMA, gemma_gguf

# ids only: Gemma is located (and assembled, the first time) when a test asks for it, not when
# the tests are collected
MATRIX = [pytest.param(EMBEDDED, id=EMBEDDED), pytest.param(GEMMA, id=GEMMA)]


def model_arg(name: str) -> str | None:
    """``--model`` for ``name`` (None: the embedded model); skips the test when it is absent."""
    if name == EMBEDDED:
        return None
    found = gemma_gguf()
    if found.path is None:
        pytest.skip(found.why)
    return str(found.path)
