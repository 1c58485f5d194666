"""`validate` on a hand-written corpus of broken outputs (tests/data/broken_outputs.jsonl: trailing
commas, single quotes, fences, prose around, truncated, Chinese quotes, comments, Python literals):
every repaired output reported ok validates; a cut text is never ok; text that already parses is
never changed by repair (also over generated JSON: hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gramwright.errors import PipelineError
from gramwright.pipeline import validate_text
from gramwright.pipeline.cel_eval import evaluate_rules
from gramwright.pipeline.extraction import read_json_text
from gramwright.pipeline.repair import repair
from gramwright.pipeline.rules import load_rules
from gramwright.sources import load_source
from gramwright.validate import parse_document, validate_value

ROOT = Path(__file__).resolve().parents[1]
SOURCE = load_source(str(ROOT / "docs/examples/purchase_order.json"))
RULES = load_rules(ROOT / "docs/examples/purchase_order.rules.json", schema=SOURCE.schema)
CORPUS = [
    json.loads(line) for line in (ROOT / "tests/data/broken_outputs.jsonl").read_text("utf-8").splitlines()
]


def test_the_corpus_covers_the_kinds_of_breakage() -> None:
    kinds = {case["kind"] for case in CORPUS}
    assert {"trailing-comma", "single-quotes", "fence", "prose", "truncated", "chinese-quotes"} <= kinds
    assert len(CORPUS) >= 20


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_each_corpus_output(case: dict[str, Any]) -> None:
    result = validate_text(case["text"], SOURCE, rules=RULES)
    assert (result.status == "ok") == (case["expect"] == "ok"), (result.status, result.errors)
    if result.status == "ok":
        # reported ok ⇒ the value validates and passes every error rule, repaired or not
        assert not validate_value(result.value, SOURCE.schema)
        assert not [o for o in evaluate_rules(RULES, result.value) if o.severity == "error"]
        assert result.layer == 2
    if result.repaired:
        assert result.reading["repairs"], "a repair without a log"
        for change in result.reading["repairs"]:
            assert set(change) == {"pointer", "op", "before", "after", "offset"}
            assert change["before"] != change["after"]
    if case["kind"] == "truncated":
        assert result.status != "ok" and result.reading["truncated"]
        assert result.degraded or result.status == "failed"
    if case["kind"] == "as-is":
        assert result.reading["as_is"] and not result.repaired
        assert result.value == parse_document(case["text"])  # exactly what was written


def test_fences_and_prose_are_extraction_not_repair() -> None:
    fenced = next(c for c in CORPUS if c["id"] == "fence-json")
    reading = read_json_text(fenced["text"])
    assert reading.extracted == "fence" and not reading.repaired and not reading.changes
    around = read_json_text(next(c for c in CORPUS if c["id"] == "prose-around")["text"])
    assert (
        around.extracted == "prose"
        and around.dropped_before == "好的，以下是采购单："
        and not around.repaired
    )


def test_the_repair_log_names_pointers_and_both_sides() -> None:
    reading = read_json_text("{'a': 1, 'b': [True, 2,],}")
    changes = {(c.pointer, c.op, c.before, c.after) for c in reading.changes}
    assert ("/a", "quote", "'a'", '"a"') in changes
    assert ("/b/0", "replace", "True", "true") in changes
    assert any(c.op == "delete" and c.before == "," for c in reading.changes)
    assert reading.value == {"a": 1, "b": [True, 2]}


def test_repair_refuses_text_that_parses() -> None:
    with pytest.raises(PipelineError, match="already parses"):
        repair('{"a": 1}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(value=json_values, indent=st.sampled_from([None, 1, 2]), pad=st.sampled_from(["", " ", "\n", " \n\t"]))
def test_text_that_parses_is_never_changed(value: Any, indent: int | None, pad: str) -> None:
    text = pad + json.dumps(value, ensure_ascii=False, indent=indent) + pad
    reading = read_json_text(text)
    assert reading.as_is and not reading.repaired and not reading.changes and not reading.extracted
    assert reading.value == parse_document(text.strip())
