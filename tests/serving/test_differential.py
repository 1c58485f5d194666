"""Differential acceptance: the recognizer and each engine reading each export agree.

Hypothesis draws documents from the bundled grammars (derivations, and one-character mutants);
each fixture schema gets seeded derivations. bench/export.py runs the same check at scale
(JSONSchemaBench instances included) and lists every disagreement with its cause.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gramwright.grammar.analysis import prepare
from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.serving.differential import PAIRS, LoadedExports, load_exports
from gramwright.serving.samples import mutate, sample_document
from gramwright.sources import load_source

pytest.importorskip("xgrammar")
pytest.importorskip("llguidance")
pytestmark = pytest.mark.bench

FIXTURES = sorted((Path(__file__).parents[1] / "fixtures" / "schemas").glob("*.json"))


@cache
def bundled(name: str) -> tuple[LoadedExports, Recognizer]:
    g = prepare(load_bundled(name))
    return load_exports(g), Recognizer(compile_grammar(g))


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_exports_load_everywhere(name: str) -> None:
    exports, _ = bundled(name)
    assert exports.load_errors == {}
    assert set(exports.engines) == set(PAIRS)


@pytest.mark.parametrize("name", bundled_names())
@settings(max_examples=40, deadline=None)
@given(data=st.data(), mutated=st.booleans())
def test_bundled_documents_agree(name: str, data: st.DataObject, mutated: bool) -> None:
    exports, rec = bundled(name)

    def choose(n: int) -> int:
        return data.draw(st.integers(0, n - 1))

    doc = sample_document(exports.grammar, choose)
    if mutated:
        doc = mutate(doc, choose)
    case = exports.judge(rec, doc.encode())
    assert case.disagreeing() == [], (doc, case.ours, case.theirs)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_schema_exports_agree(path: Path) -> None:
    g = load_source(str(path)).grammar
    exports = load_exports(g)
    assert exports.load_errors == {}
    rec = Recognizer(compile_grammar(g))
    rnd = random.Random(path.stem)
    for i in range(12):
        doc = sample_document(g, lambda n: rnd.randrange(n))
        if i % 2:
            doc = mutate(doc, lambda n: rnd.randrange(n))
        case = exports.judge(rec, doc.encode())
        assert case.disagreeing() == [], (doc, case.ours, case.theirs)


def test_known_lexer_trap_is_avoided() -> None:
    # A date-time: the year and the leap-year branch overlap, so "-" and "-02-29" are lexed
    # together; a naive Lark translation makes llguidance reject "0036-06-30".
    g = load_source(str(Path(__file__).parents[1] / "fixtures" / "schemas" / "format_date.json")).grammar
    exports = load_exports(g)
    case = exports.judge(Recognizer(compile_grammar(g)), b'"0036-06-30"')
    assert case.ours and all(case.theirs.values()), case.theirs
