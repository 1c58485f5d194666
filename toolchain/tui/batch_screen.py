"""The batch view: ``gramwright extract`` over a JSONL file with the workbench's schema — a
progress bar, the summary as it grows (pass rates, attempts histogram, budget closes), cancellable
without losing a finished row, resumable (the rows already in the output are skipped).

A thin adapter over :func:`gramwright.pipeline.batch.run_batch` (each row appended and fsynced as
it finishes) and :func:`gramwright.pipeline.metrics.summarize`; ``on_row`` posts each row from the
worker thread and raises when the worker was cancelled, after the row is on disk. A schema's
``x-grounded`` members copy from each row's source (its ``source``, else its ``text``), as in
``gramwright extract``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from gramwright.pipeline.batch import metrics_row, read_done, read_inputs, run_batch
from gramwright.pipeline.metrics import summarize, summary_lines
from gramwright.tui.sampler import SampleCancelled
from gramwright.tui.widgets.errors import ErrorBar

if TYPE_CHECKING:
    from gramwright.pipeline import Backend
    from gramwright.tui.app import GramwrightApp


@dataclass
class BatchStarted(Message):
    run: int
    total: int
    done: list[dict[str, Any]]


@dataclass
class BatchRow(Message):
    run: int
    row: dict[str, Any]
    grounded: tuple[int, int] = (0, 0)  # grounded values found in the row's source, of all


@dataclass
class BatchStopped(Message):
    """The worker thread has returned (a cancelled thread runs on until its row is on disk)."""

    run: int
    cancelled: bool


@dataclass(frozen=True)
class _Finished:
    run: int
    rows: int


def default_output(input_path: Path) -> Path:
    return input_path.with_name(f"{input_path.stem}.out.jsonl")


def summary_text(rows: list[dict[str, Any]]) -> Text:
    text = Text()
    for label, value in summary_lines(summarize(rows)):
        text.append(f"{label:<24}", style="dim")
        text.append(f"{value}\n")
    return text


class BatchScreen(Screen[None]):
    HELP_TOPIC: ClassVar[str] = "batch"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f8", "run", "Run / resume"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, backend: Backend | None = None) -> None:
        super().__init__(id="batch-screen")
        self.backend = backend
        self.run_id = 0
        self.running = False
        self.rows: list[dict[str, Any]] = []  # metrics rows: the ones found and the new ones
        self.new_rows = 0

    @property
    def gw(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="batch-paths"):
            yield Input(placeholder="input JSONL: {id, prompt} or {id, text} per line", id="batch-input")
            yield Input(placeholder="output JSONL (default: INPUT.out.jsonl)", id="batch-output")
        with Horizontal(id="batch-progress-bar"):
            yield Static("", id="batch-status")
            yield ProgressBar(total=None, show_eta=False, id="batch-progress")
        with VerticalScroll(id="batch-scroll"):
            yield Static("", id="batch-summary")
        yield Static("", id="batch-last")
        yield ErrorBar(id="screen-errors")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#batch-scroll").border_title = "Summary (as gramwright report prints it)"
        self.sub_title = f"batch · {self.gw.session.name}"
        self.show_status("enter (or f8) runs the workbench's schema over every row not yet in the output")
        self.query_one("#batch-input", Input).focus()

    def show_status(self, message: str) -> None:
        self.query_one("#batch-status", Static).update(Text(message, style="italic"))

    def paths(self) -> tuple[Path, Path] | None:
        raw = self.query_one("#batch-input", Input).value.strip()
        if not raw:
            return None
        source = Path(raw).expanduser()
        out = self.query_one("#batch-output", Input).value.strip()
        return source, Path(out).expanduser() if out else default_output(source)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        if self.running:
            return
        paths = self.paths()
        if paths is None:
            self.notify("give the input JSONL file first", severity="warning")
            self.query_one("#batch-input", Input).focus()
            return
        self.run_id += 1
        self.running = True
        self.new_rows = 0
        self.show_status("reading the input…")
        self.batch_worker(self.run_id, self.gw.editor.text, *paths)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="batch", name="batch", exit_on_error=False)
    def batch_worker(self, run_id: int, text: str, source: Path, output: Path) -> _Finished:
        from gramwright.pipeline import GeneratorBackend, run

        worker = get_current_worker()
        inputs = read_inputs(source)
        done = read_done(output)
        self.post_message(BatchStarted(run_id, len(inputs), [metrics_row(r) for r in done]))
        app = self.gw
        view = app.schema_screen.compiled_for(text)

        def on_row(_item: Any, row: dict[str, Any]) -> None:
            spans = row.get("grounded") or []
            found = sum(1 for g in spans if g.get("start") is not None)
            self.post_message(BatchRow(run_id, metrics_row(row), (found, len(spans))))
            if worker.is_cancelled:
                raise SampleCancelled()  # the row is on disk: nothing finished is lost

        def grounding(item: Any) -> str | None:
            # the row's source when the schema has grounded members (`gramwright extract`'s rule)
            return item.source if view.loaded.grounded else None

        lock: threading.Lock = app.sample_lock
        try:
            with lock:
                backend = self.backend or GeneratorBackend(app.sampler.generator)
                rows = run_batch(
                    inputs,
                    output,
                    lambda item: run(view.loaded, item.prompt, backend=backend, source_text=grounding(item)),
                    on_row=on_row,
                )
        finally:
            self.post_message(BatchStopped(run_id, worker.is_cancelled))
        return _Finished(run_id, len(rows))

    @on(BatchStarted)
    def _started(self, event: BatchStarted) -> None:
        event.stop()
        if event.run != self.run_id:
            return
        self.rows = list(event.done)
        bar = self.query_one("#batch-progress", ProgressBar)
        bar.update(total=event.total, progress=len(self.rows))
        resumed = f"resuming: {len(self.rows)} row(s) already done, " if self.rows else ""
        self.show_status(f"{resumed}{event.total - len(self.rows)} to go")
        self._show_summary()

    @on(BatchRow)
    def _row(self, event: BatchRow) -> None:
        event.stop()
        if event.run != self.run_id:
            return
        self.rows.append(event.row)
        self.new_rows += 1
        self.query_one("#batch-progress", ProgressBar).advance(1)
        row = event.row
        found, total = event.grounded
        grounded = f" · grounded {found}/{total} in its source" if total else ""
        self.query_one("#batch-last", Static).update(
            Text(
                f"last row: {row['id']} · {row.get('status')} · layer {row.get('layer')}{grounded}",
                style="dim",
            )
        )
        self._show_summary()

    def _show_summary(self) -> None:
        self.query_one("#batch-summary", Static).update(summary_text(self.rows))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "run":
            return not self.running
        return True

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "batch")
        self.show_status("cancelling after the row in progress…")

    @on(BatchStopped)
    def _stopped(self, event: BatchStopped) -> None:
        """Only now is the run over: Textual marks a cancelled thread worker cancelled at once, while
        its thread finishes the row in progress (and writes it)."""
        event.stop()
        if event.run != self.run_id:
            return
        self.running = False
        if event.cancelled:
            self.show_status(
                f"cancelled: {len(self.rows)} row(s) on disk; f8 resumes with the rest (no row twice)"
            )
        self.refresh_bindings()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        event.stop()  # this screen's own workers: handled here only
        worker: Worker[Any] = event.worker
        if event.state == WorkerState.SUCCESS:
            done = worker.result
            assert isinstance(done, _Finished)
            self.show_status(f"done: {done.rows} row(s) in the output, {self.new_rows} new")
        elif (
            event.state == WorkerState.ERROR
            and worker.error is not None
            and not isinstance(worker.error, SampleCancelled)  # a cancel, raised after a row
        ):
            self.gw.report_error("batch", worker.error)
            self.show_status("failed: see the error line (f2 for detail)")
        self.refresh_bindings()
