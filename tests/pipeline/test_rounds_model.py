"""Batched rounds on the real embedded model (few rows, short outputs): every row's attempts,
retries and result equal the one-row pipeline's for greedy decoding (``--batch 1`` vs
``--batch 4``), grounded rows included, and a row past its time limit leaves the batch alone."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from gramwright.generation import BatchItem, Generator, SamplingOptions
from gramwright.pipeline import GeneratorBackend, StructuredResult, run
from gramwright.pipeline.rounds import Row, run_rows
from gramwright.sources import CompiledSource, load_source

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[2]
CAT = {
    "type": "object",
    "required": ["name", "age"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 12, "description": "the cat's name"},
        "age": {"type": "integer", "minimum": 0, "maximum": 30, "description": "age in years"},
    },
    # some rows pass, the others are retried with the rule's message as feedback
    "x-rules": [
        {"id": "old", "rule": "self.age >= 5", "message": "age must be at least 5", "fieldPath": "/age"}
    ],
}
CATS = [
    "A cat named Tom, 3 years old.",
    "Felix is a cat aged 7.",
    "Our kitten Mia is 1 year old.",
    "Whiskers, an old cat of 12 years.",
    "A cat called Bob, 2.",
]


@lru_cache(maxsize=1)
def generator() -> Generator:
    return Generator(device="cpu")


def _cat(tmp: Path) -> CompiledSource:
    path = tmp / "cat.json"
    path.write_text(json.dumps(CAT), encoding="utf-8")
    return load_source(str(path))


def _same(result: StructuredResult | dict[str, Any]) -> dict[str, Any]:
    """What greedy decoding decides: every attempt's text, cause and feedback, the value (of a
    result, or of an output row of ``extract``)."""
    data = result if isinstance(result, dict) else result.to_dict()
    return {
        "status": data["status"],
        "layer": data["layer"],
        "value": data["value"],
        "cause": data["cause"],
        "errors": data["errors"],
        "grounded": data.get("grounded"),
        "attempts": [
            {
                k: a[k]
                for k in ("text", "finish_reason", "output_tokens", "prompt_tokens", "max_tokens", "feedback")
            }
            for a in data["attempts"]
        ],
    }


def test_batch_4_gives_every_row_the_one_row_pipelines_attempts_and_result(tmp_path: Path) -> None:
    source = _cat(tmp_path)
    policy: dict[str, Any] = {"max_attempts": 2, "max_tokens": 24, "token_budget": 60}
    one = [run(source, p, backend=GeneratorBackend(generator()), **policy) for p in CATS]
    batched = run_rows(
        source,
        [Row(str(i), p) for i, p in enumerate(CATS)],
        backend=GeneratorBackend(generator(), batch_size=4),
        window=8,
        **policy,
    )
    assert [_same(r) for r in batched.results] == [_same(r) for r in one]
    retried = sum(len(r.attempts) > 1 for r in one)
    assert 0 < retried < len(CATS)  # both kinds of row: the retry round is exercised
    assert batched.attempts_per_round == [len(CATS), retried]
    for row in batched.results:  # the batch's own numbers: time in the batch, prompt tokens
        assert all(a.seconds > 0 and a.prompt_tokens > 50 for a in row.attempts)
        assert row.output_tokens <= 60


def test_grounded_rows_are_batched_each_with_its_own_source(tmp_path: Path) -> None:
    source = load_source(str(ROOT / "docs/examples/contact_grounded.json"))
    texts = ["Li Wei lives in Shanghai, age 34, li.wei@example.com.", "Anna (29) from Berlin."]
    policy: dict[str, Any] = {"max_attempts": 1, "max_tokens": 48}
    one = [
        run(
            source,
            f"Extract the contact: {t}",
            backend=GeneratorBackend(generator()),
            source_text=t,
            **policy,
        )
        for t in texts
    ]
    batched = run_rows(
        source,
        [Row(str(i), f"Extract the contact: {t}", t) for i, t in enumerate(texts)],
        backend=GeneratorBackend(generator(), batch_size=2),
        **policy,
    )
    assert [_same(r) for r in batched.results] == [_same(r) for r in one]
    assert all(r.grounded for r in batched.results)  # spans in each row's own text, compared above


def test_a_row_past_its_time_limit_leaves_with_timeout_and_the_others_finish(tmp_path: Path) -> None:
    source = _cat(tmp_path).for_generation()
    sampling = SamplingOptions(max_tokens=24)
    items = [BatchItem(source, CATS[0], sampling), BatchItem(source, CATS[1], sampling, time_limit_s=1e-6)]
    alone = generator().run(source, CATS[0], sampling=sampling)
    first, stopped = generator().run_batch(items, batch_size=2)
    assert not isinstance(first, Exception) and not isinstance(stopped, Exception)
    assert first.text == alone.text and first.finish_reason == "stop"
    assert stopped.finish_reason == "timeout" and 0 < stopped.tokens < 24


def test_extract_batch_4_writes_the_rows_of_batch_1(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gramwright.cli.main import app

    _cat(tmp_path)
    rows = tmp_path / "in.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": f"c{i}", "text": t}) + "\n" for i, t in enumerate(CATS[:4])), "utf-8"
    )

    def extract(out: str, *more: str) -> dict[str, dict[str, Any]]:
        args = ["extract", "--schema", str(tmp_path / "cat.json"), "--input", str(rows),
                "--output", str(tmp_path / out), "--max-attempts", "2", "--max-tokens", "24",
                "--format", "json", *more]  # fmt: skip
        got = CliRunner().invoke(app, args)
        assert got.exit_code in (0, 1), got.output
        lines = (tmp_path / out).read_text("utf-8").splitlines()
        return {r["id"]: r for r in map(json.loads, lines)}

    one, four = extract("one.jsonl"), extract("four.jsonl", "--batch", "4")
    assert sorted(four) == sorted(one) == [f"c{i}" for i in range(4)]
    assert {k: _same(v) for k, v in four.items()} == {k: _same(v) for k, v in one.items()}
