"""`run_batch(concurrency=N)`: never more than N rows in flight, every id written exactly once, and
an error (a server gone) stops new starts, writes the rows in flight, and leaves a file that a
rerun completes without a duplicate."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from gramwright.pipeline import ScriptedBackend, run
from gramwright.pipeline.batch import BatchInput, read_done, run_batch
from gramwright.pipeline.result import StructuredResult
from gramwright.serving import ServerUnavailable
from gramwright.sources import load_source

ROOT = Path(__file__).resolve().parents[2]
SOURCE = load_source(str(ROOT / "docs/examples/purchase_order.json")).for_generation()
GOOD = '{"supplier":"联想","items":[{"name":"笔记本","qty":2,"unit_price":5999}],"total_amount":11998}'


class Counting:
    """A thread-safe solve that records how many rows run at once, and can fail on some rows."""

    def __init__(self, fail: set[str] = frozenset(), sleep: float = 0.02) -> None:  # type: ignore[assignment]
        self.backend = ScriptedBackend.of(GOOD)
        self.fail, self.sleep = fail, sleep
        self.lock = threading.Lock()
        self.running = self.peak = 0
        self.solved: list[str] = []

    def __call__(self, item: BatchInput) -> StructuredResult:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            time.sleep(self.sleep)
            if item.id in self.fail:
                raise ServerUnavailable("the server did not answer", where="http://127.0.0.1:1")
            result = run(SOURCE, item.prompt, backend=self.backend)
            with self.lock:
                self.solved.append(item.id)
            return result
        finally:
            with self.lock:
                self.running -= 1


def _inputs(n: int) -> list[BatchInput]:
    return [BatchInput(f"r{i:03d}", f"order {i}") for i in range(n)]


def test_n_rows_in_flight_at_most_and_each_id_once(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    solve = Counting()
    rows = run_batch(_inputs(40), out, solve, metrics=tmp_path / "m.jsonl", concurrency=4)
    ids = [r["id"] for r in read_done(out)]
    assert sorted(ids) == [f"r{i:03d}" for i in range(40)] and len(set(ids)) == 40
    assert [r["id"] for r in rows] == [f"r{i:03d}" for i in range(40)]  # returned in input order
    assert solve.peak == 4  # bounded: never more, and the pool was used
    assert sorted(r["id"] for r in read_done(tmp_path / "m.jsonl")) == sorted(ids)


def test_an_error_writes_the_rows_in_flight_and_a_rerun_completes_without_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    first = Counting(fail={"r010"})
    with pytest.raises(ServerUnavailable):
        run_batch(_inputs(30), out, first, concurrency=4)
    written = [r["id"] for r in read_done(out)]
    assert "r010" not in written
    assert sorted(written) == sorted(first.solved)  # every row that finished was written, once
    assert len(written) < 30  # new starts stopped at the error
    second = Counting()
    run_batch(_inputs(30), out, second, concurrency=4)
    ids = [r["id"] for r in read_done(out)]
    assert sorted(ids) == [f"r{i:03d}" for i in range(30)] and len(ids) == 30
    assert set(second.solved).isdisjoint(written)  # nothing done twice
