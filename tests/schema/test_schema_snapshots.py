"""Golden grammars: every fixture schema compiles to the GBNF in snapshots/ (the drift gate).

Regenerate after an intended change with ``pytest tests/schema/test_schema_snapshots.py --snapshot-update``
and review the diff like code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from gramwright.grammar.gbnf import emit_gbnf, parse_gbnf
from gramwright.recognizer import compile_grammar
from gramwright.schema import compile_schema

FIXTURES = sorted((Path(__file__).parents[1] / "fixtures" / "schemas").glob("*.json"))


def test_there_are_enough_fixtures() -> None:
    assert len(FIXTURES) >= 40


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_schema_snapshot(path: Path, gbnf_snapshot: SnapshotAssertion) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    compiled = compile_schema(schema, base_uri=path.resolve().as_uri())
    text = emit_gbnf(compiled.grammar)
    assert parse_gbnf(text) == compiled.grammar  # the text is the grammar, nothing lost
    compile_grammar(compiled.grammar)  # and it runs on the recognizer
    assert gbnf_snapshot(name=f"schemas/{path.stem}") == text
