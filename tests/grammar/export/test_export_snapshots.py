"""Drift gate for the exports: every bundled grammar in each text target, one file each in
snapshots/ (``.gbnf`` for the gbnf target, ``.lark`` for the two Lark targets).

Regenerate after an intended change with
``pytest tests/grammar/export/test_export_snapshots.py --snapshot-update`` and review the diff like
code: a changed export is a changed contract with the servers.
"""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from gramwright.grammar.analysis import prepare
from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.grammar.export import export_grammar


@pytest.mark.parametrize("name", bundled_names())
def test_gbnf_export(name: str, gbnf_snapshot: SnapshotAssertion) -> None:
    assert gbnf_snapshot(name=f"gbnf/{name}") == export_grammar(prepare(load_bundled(name)), "gbnf").text


@pytest.mark.parametrize("target", ["lark", "llamacpp-lark"])
@pytest.mark.parametrize("name", bundled_names())
def test_lark_export(name: str, target: str, lark_snapshot: SnapshotAssertion) -> None:
    assert lark_snapshot(name=f"{target}/{name}") == export_grammar(prepare(load_bundled(name)), target).text
