"""x-grounded: values copied from a source text by construction (``schema.grounding``)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from gramwright.errors import SourceError
from gramwright.grammar.errors import EmptyLanguageError
from gramwright.grammar.ir import Grammar, Ref, literal, seq
from gramwright.grammar.substrings import substring_rules, suffix_automaton, word_occurrences
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.schema.grounding import ground_schema, grounded_values, source_numbers
from gramwright.sources import CompiledSource, load_source

BENCH = Path(__file__).resolve().parents[2] / "bench" / "grounded_soundness.py"


def accepts(grammar: Grammar, text: str) -> bool:
    try:
        compiled = compile_grammar(grammar)
    except EmptyLanguageError:  # no substring of the text fits the bounds
        return False
    rec = Recognizer(compiled)
    return rec.try_feed(text.encode("utf-8")) and rec.is_accepting()


def quoted(text: str, min_len: int = 0, max_len: int | None = None, words: bool = True) -> Grammar:
    sub = substring_rules(text, "s", min_len, max_len, words)
    return Grammar({"root": seq(literal('"'), Ref(sub.start), literal('"')), **sub.rules})


def test_the_suffix_automaton_is_linear_in_the_text() -> None:
    text = "".join(random.Random(1).choice('ab中"\\') for _ in range(2000))
    sam = suffix_automaton(text)
    assert sam.size <= 2 * len(text)
    assert sum(len(t) for t in sam.nxt) <= 3 * len(text)


@pytest.mark.parametrize("words", [False, True])
@pytest.mark.parametrize(("min_len", "max_len"), [(0, None), (2, None), (0, 3), (1, 4)])
def test_substring_rules_accept_exactly_the_substrings(
    min_len: int, max_len: int | None, words: bool
) -> None:
    rng = random.Random(min_len * 10 + (max_len or 0))
    alphabet = 'ab中"\\\n\x01 '

    def occurs(s: str, text: str) -> bool:
        return s in text and (not words or not s or bool(word_occurrences(text, s)))

    for _ in range(8):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
        grammar = quoted(text, min_len, max_len, words)
        for n in range(6):
            for chars in itertools.product(alphabet, repeat=n) if n <= 2 else []:
                s = "".join(chars)
                want = occurs(s, text) and len(s) >= min_len and (max_len is None or len(s) <= max_len)
                assert accepts(grammar, json.dumps(s, ensure_ascii=False)) == want, (text, s)
            for start in range(len(text) - n + 1):
                s = text[start : start + n]
                want = occurs(s, text) and len(s) >= min_len and (max_len is None or len(s) <= max_len)
                assert accepts(grammar, json.dumps(s, ensure_ascii=False)) == want, (text, s)


def test_values_start_and_end_at_word_boundaries() -> None:
    text = "Royal Mail item RM123456789GB, 0.8 kg, 寄往深圳。"
    grammar = quoted(text)
    for value in ["Royal Mail", "RM123456789GB", "0.8", "8 kg", "深圳", "圳", "寄往深圳。", " item", ""]:
        assert accepts(grammar, json.dumps(value, ensure_ascii=False)), value
    for value in ["oyal", "Mai", "123456789", "RM123", "9GB"]:
        assert not accepts(grammar, json.dumps(value, ensure_ascii=False)), value
    assert word_occurrences("Joanna met Ann", "Ann") == [11]


def test_escapes_are_the_canonical_json_ones_only() -> None:
    grammar = quoted('say "hi"\\now\t')
    assert accepts(grammar, r'"\"hi\""')
    assert accepts(grammar, r'"\\now\t"')
    assert not accepts(grammar, r'"\u0022hi"')  # the grammar writes one spelling of each character
    assert not accepts(grammar, r'"hi\" "')


def test_source_numbers_normalisation() -> None:
    text = "共１２件，单价1,299.50元，折扣-3，编号007，日期2024-12-04，1,2 and 0.5kg, v1.2.3"
    got = [n.text for n in source_numbers(text)]
    assert got == ["12", "1299.50", "-3", "7", "2024", "12", "04".lstrip("0"), "1", "2", "0.5", "3"]
    # digits after a Latin letter are a code's: none of RM123GB, A4, v2; 2.5kg is a number
    assert [n.text for n in source_numbers("RM123GB A4 v2 2.5kg")] == ["2.5"]
    first = source_numbers(text)[1]
    assert text[first.start : first.end] == "1,299.50"


def schema_source(schema: dict[str, Any], *, ground: bool = False) -> CompiledSource:
    return load_source("s.json", text=json.dumps(schema), close_objects=None, ground=ground)


ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "supplier": {"type": "string", "x-grounded": True, "minLength": 1},
        "city": {"type": ["string", "null"], "x-grounded": True, "maxLength": 4},
        "qty": {"type": ["integer", "null"], "x-grounded": True, "minimum": 1},
        "price": {"type": ["number", "null"], "x-grounded": True},
        "items": {"type": "array", "x-grounded": True, "items": {"type": "string"}, "maxItems": 3},
        "note": {"type": "string", "maxLength": 5},
    },
    "required": ["supplier", "city", "qty", "price", "items", "note"],
}
TEXT = '向"华东"医药采购 12 盒，单价 1,299.5 元，送北京。'


def doc(**values: object) -> str:
    base: dict[str, object] = {
        "supplier": "华东",
        "city": "北京",
        "qty": 12,
        "price": 1299.5,
        "items": ["医药"],
        "note": "x",
    }
    base.update(values)
    return json.dumps(base, ensure_ascii=False, separators=(",", ":"))


def test_grounded_members_take_only_values_of_the_source() -> None:
    source = schema_source(ORDER)
    assert [g.pointer for g in source.grounded] == [
        "/properties/supplier",
        "/properties/city",
        "/properties/qty",
        "/properties/price",
        "/properties/items/items",
    ]
    # without a source the grammar is the schema's own
    assert accepts(source.grammar, doc(supplier="invented"))
    grounded = source.with_source(TEXT)
    assert grounded.source_text == TEXT
    assert accepts(grounded.grammar, doc())
    assert accepts(grounded.grammar, doc(supplier='"华东"', city=None, qty=None, price=None, items=[]))
    assert accepts(grounded.grammar, doc(note="free!"))  # not grounded
    assert not accepts(grounded.grammar, doc(supplier="华西"))
    assert not accepts(grounded.grammar, doc(supplier=""))  # minLength 1
    assert not accepts(grounded.grammar, doc(city="送北京。元"))  # maxLength 4
    assert not accepts(grounded.grammar, doc(qty=13))
    assert not accepts(grounded.grammar, doc(price=1299))  # 1299.5 is written, 1299 is not
    assert not accepts(grounded.grammar, doc(items=["医药", "x光"]))
    # cached per source: a retry rebuilds nothing
    assert source.with_source(TEXT) is grounded
    assert source.for_generation().with_source(TEXT).grammar == grounded.for_generation().grammar


def test_numbers_are_filtered_by_the_schema_and_a_missing_value_is_refused() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "x-grounded": True, "minimum": 10}},
    }
    schema["required"] = ["n"]
    source = schema_source(schema)
    grounded = source.with_source("3 boxes, 12 each, 2.5 kg")
    assert accepts(grounded.grammar, '{"n":12}')
    assert not accepts(grounded.grammar, '{"n":3}')
    with pytest.raises(SourceError, match="no value in the source fits"):
        source.with_source("3 boxes")


def test_ground_all_grounds_plain_strings_only() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "pattern": "^[A-Z]+$"},
            "c": {"type": "string", "enum": ["x", "y"]},
            "d": {"type": "string", "format": "date"},
        },
    }
    rewritten = ground_schema(schema, ground_all=True)
    assert rewritten["properties"]["a"]["x-grounded"] is True
    assert all("x-grounded" not in rewritten["properties"][k] for k in "bcd")
    assert "x-grounded" not in schema["properties"]["a"]  # the input is not changed
    assert [g.pointer for g in schema_source(schema, ground=True).grounded] == ["/properties/a"]


def test_a_pattern_beside_x_grounded_is_reported_approximated() -> None:
    schema: dict[str, Any] = {"type": "string", "x-grounded": True, "pattern": "^[a-z]+$"}
    source = schema_source(schema)
    entry = next(e for e in source.report if e.keyword == "pattern")
    assert entry.status == "approximated" and "x-grounded" in entry.reason


def test_grounded_values_carry_their_span_in_the_source() -> None:
    schema = ground_schema(ORDER)
    value = json.loads(doc(city=None))
    spans = {g.pointer: g for g in grounded_values(value, schema, TEXT)}
    assert set(spans) == {"/supplier", "/qty", "/price", "/items/0"}
    assert TEXT[spans["/supplier"].start : spans["/supplier"].end] == "华东"
    assert TEXT[spans["/price"].start : spans["/price"].end] == "1,299.5"
    assert not grounded_values({"supplier": "nowhere"}, schema, TEXT)[0].found


def test_grounded_values_list_a_null_member_without_a_span_only_when_asked() -> None:
    schema = ground_schema(ORDER)
    value = json.loads(doc(city=None))
    assert "/city" not in {g.pointer for g in grounded_values(value, schema, TEXT)}
    listed = {g.pointer: g for g in grounded_values(value, schema, TEXT, nulls=True)}
    assert set(listed) == {"/supplier", "/qty", "/price", "/items/0", "/city"}
    assert (listed["/city"].value, listed["/city"].found, listed["/city"].occurrences) == (None, False, 0)
    assert listed["/supplier"] == grounded_values(value, schema, TEXT)[0]


def test_random_walks_over_grounded_schemas() -> None:
    spec = importlib.util.spec_from_file_location("grounded_soundness", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(walks=300, seed=3)
    assert result["empty_masks"] == 0, result["failures"]
    assert result["ended_accepting"] == result["walks"], result["failures"]
    assert result["valid"] == result["walks"], result["failures"]
    assert result["grounded_values"] == result["grounded_in_source"], result["failures"]
    assert result["grounded_values"] >= 300  # the walks do write grounded values


def test_exports_say_plainly_that_grounding_is_not_in_them() -> None:
    from gramwright.grammar.export import export_grammar

    source = schema_source(ORDER)
    pointers = [g.pointer for g in source.grounded]
    for target in ("gbnf", "vllm-request"):
        exported = export_grammar(source.grammar, target, schema=source.schema, grounded=pointers)
        assert any("x-grounded members (/properties/supplier" in n for n in exported.notes)
        if exported.body is not None:
            assert "not in the source text" in exported.text


def test_the_pipeline_grounds_once_and_reports_spans_across_retries() -> None:
    from gramwright.pipeline import ScriptedBackend, run

    source = schema_source(ORDER)
    backend = ScriptedBackend.of(doc(note="too long!"), doc())  # the first fails maxLength
    result = run(source, "extract", backend=backend, source_text=TEXT)
    assert result.status == "ok" and len(result.attempts) == 2
    grounded = {r.source.source_text for r in backend.requests}
    assert grounded == {TEXT}
    assert backend.requests[0].source is backend.requests[1].source  # built once, not per attempt
    assert {g.pointer for g in result.grounded} == {"/supplier", "/city", "/qty", "/price", "/items/0"}
    assert all(g.found for g in result.grounded)
    assert "grounded" in result.to_dict()


def test_batch_rows_carry_their_source(tmp_path: Path) -> None:
    from gramwright.pipeline.batch import read_inputs

    rows = tmp_path / "in.jsonl"
    rows.write_text(
        json.dumps({"id": "a", "text": "Zoe, Oslo"})
        + "\n"
        + json.dumps({"id": "b", "prompt": "Extract: Zoe, Oslo", "source": "Zoe, Oslo"})
        + "\n"
        + json.dumps({"id": "c", "prompt": "no source"})
        + "\n",
        encoding="utf-8",
    )
    got = read_inputs(rows, "Extract: {text}")
    assert [(r.prompt, r.source) for r in got] == [
        ("Extract: Zoe, Oslo", "Zoe, Oslo"),
        ("Extract: Zoe, Oslo", "Zoe, Oslo"),
        ("no source", None),
    ]


def test_budget_aware_masks_see_the_grounded_grammar() -> None:
    from gramwright.engine.budget import shortest_output_tokens
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    schema: dict[str, Any] = {"type": "string", "x-grounded": True, "minLength": 12}
    source = schema_source(schema)
    plain = shortest_output_tokens(source.grammar, vocab)
    grounded = shortest_output_tokens(source.with_source("abcdefghijkl mnopqrstuvwxyz").grammar, vocab)
    # twelve characters and two quotes either way (single-byte tokens bound the closing zone), + EOS
    assert plain == grounded == 15
    # a value ends only where a word does: the shortest is the whole 26-letter word
    whole = shortest_output_tokens(source.with_source("abcdefghijklmnopqrstuvwxyz").grammar, vocab)
    assert whole == 26 + 2 + 1
    with pytest.raises(SourceError):  # no run of 12 characters: refused before generation
        source.with_source("short")
