"""Batch extraction over a JSONL file: exactly one output row per input row, failures included,
each appended and flushed as it finishes, and resumable.

A crash loses at most the row in flight: every row is one ``write`` of one line, flushed and
fsynced before the next row starts. A rerun reads the output first — a torn last line (the process
died mid-write) is cut off — and skips every id already there. Metrics rows (one per output row,
a projection of it) go to a second file the same way; rows missing there after a crash between
the two writes are re-derived from the output, so the two files always describe the same rows.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gramwright.errors import PipelineError
from gramwright.fsutil import STREAM, is_stream, output_kind
from gramwright.pipeline.result import StructuredResult
from gramwright.readlimit import read_limited
from gramwright.validate import as_floats

__all__ = [
    "BatchInput",
    "JsonlAppender",
    "SolveMany",
    "metrics_row",
    "output_row",
    "read_done",
    "read_inputs",
    "run_batch",
]


# all the rows to do, and the callback each row's result goes to as it finishes
SolveMany = Callable[[list["BatchInput"], Callable[["BatchInput", StructuredResult], None]], None]


@dataclass(frozen=True)
class BatchInput:
    id: str
    prompt: str
    # the text x-grounded values are copied from: a row's ``source``, else its ``text`` (None: the
    # prompt itself, as ``pipeline.run`` grounds a run given no source text)
    source: str | None = None


def read_inputs(path: Path, template: str = "{text}") -> list[BatchInput]:
    """Rows ``{id, prompt}`` or ``{id, text}`` (``text`` goes through ``template``); ids unique.
    The source of grounded values is the row's ``source`` (a string) when it has one, else its
    ``text`` (the prompt still shows the text; only grounded values are held to it), else — a
    ``{id, prompt}`` row — the prompt itself."""
    rows: list[BatchInput] = []
    seen: set[str] = set()
    try:
        lines = read_limited(path, "input").decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise PipelineError(f"the input is not UTF-8 (byte {exc.start})", where=str(path)) from None
    except OSError as exc:
        raise PipelineError(f"cannot read the input: {exc.strerror or exc}", where=str(path)) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise PipelineError(f"not a JSON line: {exc}", where=where) from None
        if not isinstance(row, dict) or "id" not in row or ("prompt" in row) == ("text" in row):
            raise PipelineError("an input row is {id, prompt} or {id, text}", where=where)
        rid = str(row["id"])
        if rid in seen:
            raise PipelineError(
                f"duplicate id {rid!r}", where=where, hint="ids name output rows: keep them unique"
            )
        seen.add(rid)
        prompt = str(row["prompt"]) if "prompt" in row else _fill(template, str(row["text"]), where)
        source = row.get("source", row.get("text"))
        if source is not None and not isinstance(source, str):
            raise PipelineError(
                "a row's source is a string (the text grounded values come from)", where=where
            )
        rows.append(BatchInput(rid, prompt, source))
    return rows


def _fill(template: str, text: str, where: str) -> str:
    try:
        return template.format(text=text)
    except (KeyError, IndexError, ValueError) as exc:
        raise PipelineError(
            f"bad --prompt-template: {exc}", where=where, hint="use {text} for the row's text"
        ) from None


def read_done(path: Path) -> list[dict[str, Any]]:
    """The complete rows of a JSONL output (a torn last line is cut off the file). A stream (a
    pipe, a terminal, ``/dev/null``) holds nothing to resume from, and reading one would block or
    never end: it has no rows."""
    if not path.exists() or is_stream(path):
        return []
    data = path.read_bytes()
    rows: list[dict[str, Any]] = []
    good = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # the process died mid-write: this row is redone
        try:
            rows.append(json.loads(line))
        except ValueError:
            break
        good += len(line)
    if good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
    return rows


class JsonlAppender:
    """Appends one JSON line per call, flushed and fsynced: a row is on disk or not at all."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            # a pipe or a device is written as a stream; a directory or a socket is refused
            self._stream = output_kind(path)[0] == STREAM
            self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise PipelineError(f"cannot write: {exc.strerror or exc}", where=str(path)) from None

    def append(self, row: dict[str, Any]) -> None:
        try:
            self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            self._fh.flush()
            if not self._stream:  # a device or a pipe has nothing to sync (and says EINVAL)
                os.fsync(self._fh.fileno())
        except OSError as exc:
            raise PipelineError(f"cannot write: {exc.strerror or exc}", where=str(self.path)) from None

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a failed flush was already reported by append()
            self._fh.close()


def output_row(rid: str, result: StructuredResult) -> dict[str, Any]:
    return {"id": rid, **result.to_dict()}


def metrics_row(row: dict[str, Any]) -> dict[str, Any]:
    """The metrics line of an output row (what ``gramwright report`` reads)."""
    m = dict(row.get("metrics", {}))
    return {
        "id": row["id"],
        "status": row.get("status"),
        "layer": row.get("layer"),
        "confidence": row.get("confidence"),
        **m,
    }


def run_batch(
    inputs: list[BatchInput],
    output: Path,
    solve: Callable[[BatchInput], StructuredResult],
    *,
    metrics: Path | None = None,
    on_row: Callable[[BatchInput, dict[str, Any]], None] | None = None,
    concurrency: int = 1,
    solve_many: SolveMany | None = None,
) -> list[dict[str, Any]]:
    """Run every input whose id is not in ``output`` yet; returns all output rows (old and new).
    ``concurrency`` > 1 runs that many rows at once (``solve`` must be thread-safe); the output
    file is then in the order rows finish, each id once. ``solve_many`` replaces ``solve`` with
    one call for all the rows to do, which reports each row's result as it finishes (the
    batched rounds of :mod:`gramwright.pipeline.rounds`); the file is again in finishing order."""
    done = read_done(output)
    by_id = {str(r.get("id")): r for r in done}
    if metrics is not None:
        _sync_metrics(metrics, done)
    out = JsonlAppender(output)
    side = JsonlAppender(metrics) if metrics is not None else None

    def write(item: BatchInput, result: StructuredResult) -> None:
        row = output_row(item.id, result)
        out.append(as_floats(row))
        if side is not None:
            side.append(metrics_row(row))
        by_id[item.id] = row
        if on_row is not None:
            on_row(item, row)

    try:
        todo = list(_todo(inputs, by_id))
        if solve_many is not None:
            solve_many(todo, write)
        elif concurrency <= 1:
            for item in todo:
                write(item, solve(item))
        else:
            _run_concurrently(todo, solve, write, concurrency)
    finally:
        out.close()
        if side is not None:
            side.close()
    return [by_id[i.id] for i in inputs if i.id in by_id]


def _run_concurrently(
    todo: list[BatchInput],
    solve: Callable[[BatchInput], StructuredResult],
    write: Callable[[BatchInput, StructuredResult], None],
    concurrency: int,
) -> None:
    """At most ``concurrency`` rows in flight; a new one starts only when one has finished (the
    backpressure: an input of a million rows holds N futures, not a million). Rows are written by
    this thread alone, as they finish. The first error stops new starts; the rows already in
    flight finish and are written, then the error is raised — so a rerun redoes exactly the rows
    that have no output line, none twice."""
    pending: dict[Future[StructuredResult], BatchInput] = {}
    queue = iter(todo)
    failure: BaseException | None = None
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="extract") as pool:
        while True:
            while failure is None and len(pending) < concurrency:
                item = next(queue, None)
                if item is None:
                    break
                pending[pool.submit(solve, item)] = item
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                item = pending.pop(future)
                try:
                    result = future.result()
                except BaseException as exc:  # noqa: BLE001 - re-raised once the others are written
                    failure = failure or exc
                    continue
                write(item, result)
    if failure is not None:
        raise failure


def _todo(inputs: list[BatchInput], done: dict[str, Any]) -> Iterator[BatchInput]:
    return (item for item in inputs if item.id not in done)


def _sync_metrics(path: Path, done: list[dict[str, Any]]) -> None:
    have = {str(r.get("id")) for r in read_done(path)}
    missing = [r for r in done if str(r.get("id")) not in have]
    if missing:
        side = JsonlAppender(path)
        try:
            for row in missing:
                side.append(metrics_row(row))
        finally:
            side.close()
