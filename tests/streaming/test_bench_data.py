"""Streaming on JSONSchemaBench (bench/streaming.py): value events never retract and come when
the rule says, byte by byte and token by token (real SmolLM2 tokenizer); ``check --stream`` names
the whole-document check's first infeasible byte on mutated documents.

The sample tests run by default (a few dozen instances, a few hundred mutations: seconds). The
full run (600 instances across the splits, 1,200 mutated documents) runs only when the ``data``
marker is selected: ``pytest -m data``; ``python -m bench.streaming --json`` prints its numbers.
"""

from __future__ import annotations

import random

import pytest

from bench import streaming as bench
from bench.masks import DATA, SPLITS

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def tokenizer_and_vocab() -> tuple[object, object]:
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    tok = load_tokenizer()
    return tok, TokenVocabulary.from_tokenizer(tok)


def _require_data() -> None:
    if not DATA.is_dir():
        pytest.skip(f"{DATA} not present")


def test_the_independent_reader_lists_every_member() -> None:
    doc = b'{"a":[1,{"b/c":"x\\""}],"d":-2.5e3,"e":null}'
    assert [(p, k) for p, k, *_ in bench.members(doc)] == [
        ("/a/0", "number"),
        ("/a/1/b~1c", "string"),
        ("/a/1", "object"),
        ("/a", "array"),
        ("/d", "number"),
        ("/e", "null"),
        ("", "object"),
    ]


def test_a_sample_of_every_split_byte_by_byte_and_token_by_token(
    tokenizer_and_vocab: tuple[object, object],
) -> None:
    _require_data()
    tok, vocab = tokenizer_and_vocab
    splits: set[str] = set()
    count = tokens = 0
    for name, _source, compiled, doc in bench.instances(35, every=40):
        splits.add(name.split("/")[0])
        bytewise = [doc[i : i + 1] for i in range(len(doc))]
        assert bench.stream_problems(compiled, doc, bytewise) == [], name
        pieces = bench.token_pieces(tok, vocab, doc)
        assert pieces is not None, name
        assert bench.stream_problems(compiled, doc, pieces) == [], name
        count += 1
        tokens += len(pieces)
    assert count == 35 and len(splits) == len(SPLITS) and tokens > count


def test_the_rule_offsets_the_bench_expects() -> None:
    # maximum 5: "3" cannot grow and is due at its own byte; "10" is due at the byte after it
    from gramwright.api import compile_source
    from gramwright.recognizer import compile_grammar

    schema = '{"type":"object","properties":{"n":{"type":"integer","maximum":5},"m":{"type":"integer"}}}'
    compiled = compile_grammar(compile_source("s.json", text=schema).grammar)
    doc = b'{"n":3,"m":10}'
    assert bench.stream_problems(compiled, doc, [doc]) == []
    assert bench.rule_final_at(compiled, doc, "number", doc.index(b"3") + 1) == doc.index(b"3") + 1
    assert bench.rule_final_at(compiled, doc, "number", doc.index(b"10") + 2) == doc.index(b"10") + 3


def test_check_stream_on_mutated_documents_of_every_split() -> None:
    _require_data()
    rng = random.Random(37)
    texts = [(name, source, doc) for name, source, _, doc in bench.instances(30, every=40)]
    rejected = 0
    for n in range(240):
        name, source, doc = texts[n % len(texts)]
        data = bench.mutate(doc, rng)
        pieces = [data[i : i + 1] for i in range(len(data))] if n % 2 else bench.random_pieces(data, rng)
        problems, was_rejected = bench.check_problems(source, data, pieces)
        assert problems == [], (name, data)
        rejected += was_rejected
    assert rejected > 60  # most single-byte mutations break the document somewhere


def test_the_full_run(request: pytest.FixtureRequest) -> None:
    if "data" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("600 instances and 1,200 mutated documents take minutes: select with `pytest -m data`")
    _require_data()
    result = bench.run(600, 1200, every=4)
    assert result["failures"] == 0, result["first_failures"]
    assert result["instances"] >= 500 and result["mutated"] >= 1000
    assert len(result["splits"]) == len(SPLITS)
