"""The pipeline view: the schema in the workbench and a prompt through ``run`` (constrain →
validate, rules and retry with feedback → salvage), each attempt shown as it is judged; for a
schema with ``x-grounded`` members, the prompt is their source (as ``gramwright generate`` without
``--source``) and the result's grounded values are shown with their spans in it.

A thin adapter over :func:`gramwright.pipeline.run` (``gramwright run``): ``on_attempt`` posts each
attempt from the worker thread; the final :class:`StructuredResult` arrives in
:meth:`on_worker_state_changed`. Selecting an error moves the schema editor's cursor to the
subschema of its JSON Pointer. The run stops between attempts when cancelled.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from gramwright.pipeline import Attempt, Backend, StructuredResult
from gramwright.pointer import schema_location
from gramwright.schema.grounding import GroundedValue
from gramwright.tui.sampler import SampleCancelled
from gramwright.tui.widgets.errors import ErrorBar
from gramwright.tui.widgets.grounding import GroundingPanel

if TYPE_CHECKING:
    from gramwright.tui.app import GramwrightApp

DEFAULT_PROMPT = "Order two ThinkPad laptops from Lenovo at 5000 each, urgent."
STATUS_STYLE = {"ok": "bold green", "partial": "yellow", "degraded": "yellow", "failed": "bold red"}


@dataclass
class AttemptJudged(Message):
    """One attempt, judged (posted from the pipeline's thread)."""

    run: int
    attempt: Attempt


@dataclass(frozen=True)
class _Finished:
    run: int
    result: StructuredResult
    source: str | None = None  # the text grounded values were copied from (None: not grounded)
    grounded: tuple[GroundedValue, ...] = ()  # every grounded member of the value, nulls included


def attempt_line(attempt: Attempt) -> Text:
    """``attempt 1 · layer 1 · stop · 42/256 tokens · ✗ 2 errors``."""
    layer = 1 if attempt.index == 0 else 2
    text = Text(f"attempt {attempt.index + 1}", style="bold")
    text.append(
        f" · layer {layer} · {attempt.finish_reason} · {attempt.output_tokens}/{attempt.max_tokens} tokens"
    )
    if attempt.closed_by_budget:
        text.append(" · closed by budget", style="yellow")
    if attempt.valid:
        text.append(" · ✓ valid", style="green")
    else:
        errors = [e for e in attempt.errors if e.severity == "error"]
        text.append(f" · ✗ {len(errors)} error(s)", style="red")
    return text


def error_line(error: Any) -> Text:
    text = Text("   ")
    text.append(error.pointer or "/", style="bold")
    what = f"rule {error.rule}" if error.rule else error.keyword
    text.append(f" · {what}", style="dim")
    text.append(f" · {error.message}", style="yellow" if error.severity == "warn" else "")
    return text


def result_text(result: StructuredResult) -> Text:
    text = Text("result: ", style="bold")
    text.append(result.status, style=STATUS_STYLE.get(result.status, ""))
    layer = "—" if result.layer is None else str(result.layer)
    text.append(f" · layer {layer} · confidence {result.confidence:.2f} · {len(result.attempts)} attempt(s)")
    text.append(f" · {result.output_tokens} tokens · {result.seconds:.1f} s", style="dim")
    if result.value is not None:
        text.append("\n" + json.dumps(result.value, ensure_ascii=False)[:400])
    for error in result.errors[:4]:
        text.append(f"\n✗ {error.pointer or '/'} · {error.message}", style="red")
    return text


class PipelineScreen(Screen[None]):
    HELP_TOPIC: ClassVar[str] = "pipeline"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f8", "run", "Run"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, backend: Backend | None = None) -> None:
        super().__init__(id="pipeline-screen")
        self.backend = backend  # None: the embedded model (or --model), shared with Sample
        self.run_id = 0
        self.running = False
        self.attempts: list[Attempt] = []
        self.result: StructuredResult | None = None

    @property
    def gw(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(DEFAULT_PROMPT, placeholder="the prompt; enter runs the pipeline", id="pipe-prompt")
        with Horizontal(id="pipe-main"):
            yield OptionList(id="pipe-attempts")
            with Vertical(id="pipe-right"), VerticalScroll(id="pipe-scroll"):
                yield Static("", id="pipe-detail")
        yield GroundingPanel(id="pipe-grounding")
        yield Static("", id="pipe-result")
        yield ErrorBar(id="screen-errors")
        yield Footer()

    @property
    def attempt_list(self) -> OptionList:
        return self.query_one("#pipe-attempts", OptionList)

    def on_mount(self) -> None:
        self.attempt_list.border_title = "Attempts · enter on an error: the schema there"
        self.query_one("#pipe-scroll").border_title = "Attempt"
        self.sub_title = f"pipeline · {self.gw.session.name}"
        self.query_one("#pipe-detail", Static).update(
            Text("enter (or f8) runs the schema in the workbench on the prompt above", style="dim")
        )
        self.query_one("#pipe-prompt", Input).focus()
        self.grounding.display = False  # until a result of a grounded schema

    @property
    def grounding(self) -> GroundingPanel:
        return self.query_one("#pipe-grounding", GroundingPanel)

    # -- run ------------------------------------------------------------------------------------------

    @on(Input.Submitted, "#pipe-prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        if self.running:
            return
        prompt = self.query_one("#pipe-prompt", Input).value.strip() or DEFAULT_PROMPT
        self.run_id += 1
        self.running = True
        self.attempts = []
        self.result = None
        self.grounding.display = False
        self.attempt_list.clear_options()
        self.query_one("#pipe-result", Static).update(Text("running…", style="italic"))
        self.pipeline_worker(self.run_id, self.gw.editor.text, prompt)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="pipeline", name="pipeline", exit_on_error=False)
    def pipeline_worker(self, run_id: int, text: str, prompt: str) -> _Finished:
        from gramwright.pipeline import GeneratorBackend, run

        worker = get_current_worker()

        def on_attempt(attempt: Attempt) -> None:
            self.post_message(AttemptJudged(run_id, attempt))
            if worker.is_cancelled:
                raise SampleCancelled()

        app = self.gw
        view = app.schema_screen.compiled_for(text)
        # grounded members copy from the prompt, as `gramwright generate` does without --source
        source = prompt if view.loaded.grounded else None
        lock: threading.Lock = app.sample_lock
        with lock:
            backend = self.backend or GeneratorBackend(app.sampler.generator)
            result = run(view.loaded, prompt, backend=backend, on_attempt=on_attempt, source_text=source)
        grounded: tuple[GroundedValue, ...] = ()
        if source is not None and result.value is not None:
            from gramwright.schema.grounding import grounded_values

            grounded = tuple(grounded_values(result.value, view.loaded.schema, source, nulls=True))
        return _Finished(run_id, result, source, grounded)

    @on(AttemptJudged)
    def _judged(self, event: AttemptJudged) -> None:
        event.stop()
        if event.run != self.run_id:
            return
        attempt = event.attempt
        self.attempts.append(attempt)
        options = self.attempt_list
        options.add_option(Option(attempt_line(attempt), id=f"a{attempt.index}"))
        for number, error in enumerate(attempt.errors):
            options.add_option(Option(error_line(error), id=f"e{attempt.index}-{number}"))
        # the newest attempt, highlighted: the detail follows the highlight
        options.highlighted = options.get_option_index(f"a{attempt.index}")
        self._show_attempt(attempt.index)

    def _show_attempt(self, index: int) -> None:
        attempt = next((a for a in self.attempts if a.index == index), None)
        if attempt is None:
            return
        text = attempt_line(attempt)
        if attempt.feedback:
            text.append("\n\nfeedback this attempt's prompt carried:\n", style="bold")
            text.append(attempt.feedback, style="cyan")
        text.append("\n\noutput:\n", style="bold")
        text.append(attempt.text or "(empty)")
        if attempt.errors:
            text.append("\n\nerrors:\n", style="bold")
            for error in attempt.errors:
                text.append_text(error_line(error))
                text.append("\n")
        following = next((a for a in self.attempts if a.index == index + 1), None)
        if following is not None and following.feedback:
            text.append("\nfeedback sent to the next attempt:\n", style="bold")
            text.append(following.feedback, style="cyan")
        self.query_one("#pipe-detail", Static).update(text)

    def _option_parts(self, option_id: str | None) -> tuple[int, int | None] | None:
        if not option_id:
            return None
        if option_id.startswith("a"):
            return int(option_id[1:]), None
        attempt, _, number = option_id[1:].partition("-")
        return int(attempt), int(number)

    @on(OptionList.OptionHighlighted, "#pipe-attempts")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        parts = self._option_parts(event.option.id)
        if parts is not None:
            self._show_attempt(parts[0])

    @on(OptionList.OptionSelected, "#pipe-attempts")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        parts = self._option_parts(event.option.id)
        if parts is None or parts[1] is None:
            return
        attempt = next(a for a in self.attempts if a.index == parts[0])
        error = attempt.errors[parts[1]]
        schema = self.gw.compiled.loaded.schema if self.gw.compiled is not None else None
        self.gw.goto_schema(schema_location(schema, error.pointer) if schema is not None else "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "run":
            return not self.running
        return True

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "pipeline")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        event.stop()  # this screen's own workers: handled here only
        worker: Worker[Any] = event.worker
        if event.state == WorkerState.SUCCESS:
            done = worker.result
            assert isinstance(done, _Finished)
            if done.run == self.run_id:
                self.running = False
                self.result = done.result
                self.query_one("#pipe-result", Static).update(result_text(done.result))
                self.grounding.display = done.source is not None
                if done.source is not None:
                    self.grounding.show(done.source, list(done.grounded))
        elif event.state == WorkerState.CANCELLED or isinstance(worker.error, SampleCancelled):
            self.running = False
            self.query_one("#pipe-result", Static).update(
                Text(f"cancelled after {len(self.attempts)} attempt(s)", style="yellow")
            )
        elif event.state == WorkerState.ERROR and worker.error is not None:
            self.running = False
            self.gw.report_error("pipeline", worker.error)
            self.query_one("#pipe-result", Static).update(Text("failed: see the error line", style="red"))
        self.refresh_bindings()
