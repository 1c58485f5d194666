"""Fixtures of the TUI tests: the example purchase-order schema, copied where a test may edit it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "purchase_order.json"


@pytest.fixture
def schema_path(tmp_path: Path) -> Path:
    path = tmp_path / "purchase_order.json"
    shutil.copyfile(EXAMPLE, path)
    return path
