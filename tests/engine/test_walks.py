"""Soundness by random constrained walks over the fixture schemas (the full 10,000-walk run is
`python -m bench.soundness`): no empty mask, every ended walk accepting, exact grammars valid."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soundness.py"


def test_random_walks_over_fixture_schemas() -> None:
    spec = importlib.util.spec_from_file_location("soundness", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(walks=400, budget=40, seed=1)
    assert result["schemas"] >= 40
    assert result["empty_masks"] == 0, result["failures"]
    assert result["ended"] == result["ended_accepting"], result["failures"]
    assert result["invalid_exact"] == 0, result["failures"]
    assert result["ended"] >= 100  # the walks do finish documents, so the checks above bite
