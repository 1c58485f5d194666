"""Drift gate: the canonical GBNF of every bundled grammar, one file each in snapshots/."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.grammar.gbnf import emit_gbnf


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_grammar_canonical_text(name: str, gbnf_snapshot: SnapshotAssertion) -> None:
    assert gbnf_snapshot(name=name) == emit_gbnf(load_bundled(name))
