"""The schema workbench: edit a schema, lint it as you type, see its grammar, check documents, sample.

The app's default screen (:meth:`GramwrightApp.get_default_screen`); the other screens are pushed
over it, so it keeps its state (the buffer, the last compile) while they are shown, and they read
the schema from it. A thin layer: every result comes from the toolchain's core through the app's
:class:`SchemaSession` and :class:`Sampler`. Long work runs in cancellable thread workers; their
results and their errors are handled in one place, :meth:`SchemaScreen.on_worker_state_changed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerState, get_current_worker

from gramwright.checking import CheckResult
from gramwright.lint import LintReport
from gramwright.schema.errors import CompileCancelled
from gramwright.tui.messages import (
    GotoPointer,
    GotoPosition,
    ProfileChosen,
    SampleProgress,
    SampleRequested,
    TokenSampled,
)
from gramwright.tui.sampler import SampleCancelled, SampleOutcome
from gramwright.tui.screens import ConfirmSaveScreen, PathPrompt
from gramwright.tui.session import CompiledView, SchemaSession, Whitespace, parse_schema_text
from gramwright.tui.widgets.check import CheckPanel
from gramwright.tui.widgets.diagnostics import DiagnosticsPanel
from gramwright.tui.widgets.editor import SchemaEditor
from gramwright.tui.widgets.errors import ErrorBar, record
from gramwright.tui.widgets.grammar import GrammarPanel
from gramwright.tui.widgets.sample import SamplePanel

if TYPE_CHECKING:
    from gramwright.tui.app import GramwrightApp

LINT_DELAY_S = 0.3  # lint and compile this long after the last keystroke


@dataclass(frozen=True)
class _Linted:
    generation: int
    report: LintReport


@dataclass(frozen=True)
class _Compiled:
    generation: int
    view: CompiledView


@dataclass(frozen=True)
class _Checked:
    verdict: CheckResult
    view: CompiledView


@dataclass(frozen=True)
class _Sampled:
    run: int
    outcome: SampleOutcome
    source: str | None = None  # the text grounded values were copied from (None: not grounded)


# every widget the worker-result handler may touch
_PANELS = ("editor", "diagnostics", "grammar", "check", "sample", "error-bar")


class SchemaScreen(Screen[None]):
    # The workbench's keys are priority keys: the editor would otherwise take ctrl+s, f-keys and
    # escape first. They are this screen's, so they step aside while another screen is shown.
    BINDINGS: ClassVar[list[BindingType]] = [
        # The app's ctrl+q and f1, listed here too: the footer shows a screen's keys before the
        # app's, and these keep their places (quit first, help beside save).
        Binding("ctrl+q", "app.quit", "Quit", priority=True),
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("f1", "app.help", "Help", priority=True),
        Binding("f3", "next_profile", "Profile", priority=True),
        Binding("f4", "compile", "Compile", priority=True),
        Binding("f5", "check", "Check", priority=True),
        Binding("f8", "sample", "Sample", priority=True),
        # Priority, but only while a sample runs (check_action): otherwise escape keeps its meaning
        # (the editor hands focus on, modal screens close).
        Binding("escape", "cancel", "Cancel", priority=True),
        Binding("ctrl+o", "load_document", "Load doc", show=False, priority=True),
        Binding("ctrl+g", "export_gbnf", "Export GBNF", show=False, priority=True),
    ]

    def __init__(self, initial_text: str, max_tokens: int) -> None:
        super().__init__(id="schema-screen")
        self.initial_text = initial_text
        self.max_tokens = max_tokens
        self.compiled: CompiledView | None = None
        self._generation = 0  # bumped on every edit: results of older text are dropped
        self._sample_run = 0
        self._debounce: Timer | None = None

    @property
    def gw(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    @property
    def session(self) -> SchemaSession:
        return self.gw.session

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield SchemaEditor(self.initial_text, id="editor")
                yield DiagnosticsPanel(self.session.profiles(), self.session.profile, id="diagnostics")
            with TabbedContent(id="tools", initial="tab-grammar"):
                with TabPane("Grammar", id="tab-grammar"):
                    yield GrammarPanel(id="grammar")
                with TabPane("Check", id="tab-check"):
                    yield CheckPanel(id="check")
                with TabPane("Sample", id="tab-sample"):
                    yield SamplePanel(id="sample", max_tokens=self.max_tokens)
        yield ErrorBar(id="error-bar")
        yield Footer()

    @property
    def editor(self) -> SchemaEditor:
        return self.query_one("#editor", SchemaEditor)

    @property
    def diagnostics(self) -> DiagnosticsPanel:
        return self.query_one("#diagnostics", DiagnosticsPanel)

    @property
    def grammar_panel(self) -> GrammarPanel:
        return self.query_one("#grammar", GrammarPanel)

    @property
    def check_panel(self) -> CheckPanel:
        return self.query_one("#check", CheckPanel)

    @property
    def sample_panel(self) -> SamplePanel:
        return self.query_one("#sample", SamplePanel)

    @property
    def error_bar(self) -> ErrorBar:
        """The workbench's error line: it also keeps the log of every screen's errors (f2)."""
        return self.query_one("#error-bar", ErrorBar)

    def on_mount(self) -> None:
        self.diagnostics.border_title = "Diagnostics"
        self.show_file_state()
        if not self.session.is_schema:
            self.diagnostics.show_busy("lint applies to JSON Schemas only")
        self.editor.focus()
        if not self.session.saved_text and self.editor.text:
            # a new file starts from a template, selected: the first key typed replaces it
            self.editor.select_all()
        self.analyse()

    def show_file_state(self) -> None:
        dirty = self.session.is_dirty(self.editor.text)
        self.app.sub_title = f"{self.session.name}{' ● modified' if dirty else ''}"
        self.editor.border_title = f"Schema · {self.session.path or self.session.name}"
        self.editor.border_subtitle = "● unsaved edits" if dirty else ""

    # -- lint and compile as you type -----------------------------------------------------------------

    @on(TextArea.Changed, "#editor")
    def _edited(self) -> None:
        self._generation += 1
        self.show_file_state()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(LINT_DELAY_S, self.analyse)

    def analyse(self) -> None:
        """Parse the buffer; lint and compile it when it is JSON, else show where the parse stopped."""
        if not self.is_attached or not self.query("#editor"):
            return  # the debounce timer fired while the app was closing: its screen is gone
        text = self.editor.text
        if not self.session.is_schema:
            self._start_compile(text)
            return
        parsed = parse_schema_text(text)
        if not parsed.ok:
            self.diagnostics.show_parse_error(parsed)
            self.grammar_panel.mark_stale(f"invalid JSON at {parsed.line}:{parsed.column}: last good grammar")
            return
        self.diagnostics.show_busy("linting…" if self.diagnostics.report else "linting… (first run loads)")
        self.grammar_panel.show_busy()
        # The compile starts when this lint is done (see _apply): two threads at once would share
        # the GIL and make the diagnostics, the thing a typist waits for, arrive later.
        self.lint_worker(self._generation, parsed.value, self.session.profile)

    def _start_compile(self, text: str) -> None:
        self.grammar_panel.show_busy()
        self.compile_worker(self._generation, text)

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False)
    def lint_worker(self, generation: int, schema: Any, profile: str) -> _Linted:
        return _Linted(generation, self.session.lint(schema, profile))

    @work(thread=True, exclusive=True, group="compile", exit_on_error=False)
    def compile_worker(self, generation: int, text: str) -> _Compiled:
        # A thread cannot be killed: the compiler asks the worker between subschemas, so a newer
        # keystroke or ctrl+q (Textual cancels every worker on exit) stops a long compile.
        worker = get_current_worker()
        return _Compiled(generation, self.session.compile(text, cancelled=lambda: worker.is_cancelled))

    def compiled_for(self, text: str) -> CompiledView:
        """The current compile when it is of ``text``, else compile now (called from workers, also
        the pipeline and batch screens')."""
        view = self.compiled
        if view is not None and view.text == text and view.whitespace == self.session.whitespace:
            return view
        worker = get_current_worker()
        return self.session.compile(text, cancelled=lambda: worker.is_cancelled)

    # -- the one place where worker results and errors arrive -----------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        event.stop()  # the workbench's own workers: nothing above handles them
        worker: Worker[Any] = event.worker
        group = worker.group
        if not self.is_attached or not all(self.query(f"#{name}") for name in _PANELS):
            # The app is closing and its widgets are going (a worker finished or failed during
            # shutdown): the result has nowhere to go, and querying the panels would raise.
            return
        if event.state == WorkerState.SUCCESS:
            self._apply(worker.result)
            self.error_bar.clear_source(group)
        elif isinstance(worker.error, CompileCancelled):
            pass  # a newer compile replaced it, or the app is quitting: nothing to show
        elif event.state == WorkerState.ERROR and worker.error is not None:
            self.error_bar.add(record(group, worker.error))
            self._failed(group)
        elif event.state == WorkerState.CANCELLED and group == "sample":
            self.sample_panel.stop(f"cancelled after {self.sample_panel.tokens} tokens")
        if group == "sample":
            self.refresh_bindings()  # the footer shows escape (cancel) only while a sample runs

    def _apply(self, result: object) -> None:
        if isinstance(result, _Linted):
            if result.generation == self._generation:
                self.diagnostics.show_report(result.report)
                self._start_compile(self.editor.text)
        elif isinstance(result, _Compiled):
            self.compiled = result.view
            if result.generation == self._generation:
                self.grammar_panel.show_compiled(result.view)
        elif isinstance(result, _Checked):
            self.check_panel.show_verdict(result.verdict, result.view)
        elif isinstance(result, _Sampled) and result.run == self._sample_run:
            self.sample_panel.finish(result.outcome, result.source)

    def _failed(self, group: str) -> None:
        line = self.error_bar.records[-1].message
        if group == "compile":
            self.grammar_panel.mark_stale(f"compile failed: {line}")
        elif group == "lint":
            self.diagnostics.show_busy(f"lint failed: {line}")
            self._start_compile(self.editor.text)
        elif group == "check":
            self.check_panel.show_message(Text(f"✗ {line}", style="red"))
        elif group == "sample":
            self.sample_panel.stop(f"failed: {line}")

    # -- actions --------------------------------------------------------------------------------------

    def action_compile(self) -> None:
        self.query_one("#tools", TabbedContent).active = "tab-grammar"
        self.analyse()

    def set_whitespace(self, whitespace: Whitespace) -> None:
        self.session.whitespace = whitespace
        self.notify(f"grammar whitespace: {whitespace}")
        self._start_compile(self.editor.text)

    def action_check(self) -> None:
        self.query_one("#tools", TabbedContent).active = "tab-check"
        data = self.check_panel.document.text
        if not data.strip():
            self.check_panel.document.focus()
            self.notify("paste a JSON document into the Check tab first (or ctrl+o to load one)")
            return
        self.check_panel.show_busy()
        self.check_worker(self.editor.text, data.encode("utf-8"))

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def check_worker(self, text: str, data: bytes) -> _Checked:
        view = self.compiled_for(text)
        return _Checked(self.session.check(view, data), view)

    def action_load_document(self) -> None:
        def load(path: str | None) -> None:
            if not path:
                return
            try:
                text = Path(path).expanduser().read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.error_bar.add(record("load", exc))
                return
            self.check_panel.document.load_text(text)
            self.action_check()

        self.app.push_screen(PathPrompt("Load a document to check", ""), load)

    @property
    def sample_running(self) -> bool:
        return any(
            w.group == "sample" and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.app.workers
        )

    def action_sample(self) -> None:
        self.post_message(self.sample_panel.request)

    @on(SampleRequested)
    def _sample(self, event: SampleRequested) -> None:
        self.query_one("#tools", TabbedContent).active = "tab-sample"
        self._sample_run += 1
        self.sample_panel.start(event.max_tokens)
        self.sample_worker(self._sample_run, self.editor.text, event.prompt, event.max_tokens)

    @work(thread=True, exclusive=True, group="sample", exit_on_error=False)
    def sample_worker(self, run: int, text: str, prompt: str, max_tokens: int) -> _Sampled:
        worker = get_current_worker()

        def progress(message: str) -> None:
            if worker.is_cancelled:
                raise SampleCancelled()
            self.post_message(SampleProgress(run, message))

        def on_token(step: Any) -> None:
            if worker.is_cancelled:
                raise SampleCancelled()
            self.post_message(TokenSampled(run, step.text, step.clipped_mass))

        lock = self.gw.sample_lock
        progress("waiting for the previous run to stop" if lock.locked() else "compiling")
        with lock:
            view = self.compiled_for(text)
            # grounded members copy from the prompt, as `gramwright generate` does without --source
            source = prompt if view.loaded.grounded else None
            loaded = view.loaded if source is None else view.loaded.with_source(source)
            outcome = self.gw.sampler.run(
                loaded, prompt, max_tokens=max_tokens, progress=progress, on_token=on_token
            )
        return _Sampled(run, outcome, source)

    @on(SampleProgress)
    def _sample_progress(self, event: SampleProgress) -> None:
        if event.run == self._sample_run and self.sample_panel.running:
            self.sample_panel.show_status(event.message)

    @on(TokenSampled)
    def _token(self, event: TokenSampled) -> None:
        if event.run == self._sample_run and self.sample_panel.running:
            self.sample_panel.add_token(event.text, event.clipped_mass)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.app.screen is not self:
            return False  # under a dialog: its keys, not the workbench's (nor in the footer)
        if action == "cancel":
            return self.sample_running
        return True

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "sample")

    # -- profile --------------------------------------------------------------------------------------

    def set_profile(self, profile: str) -> None:
        self.session.profile = profile
        self.diagnostics.set_profile(profile)
        self.analyse()

    def action_next_profile(self) -> None:
        if self.session.is_schema:
            self.set_profile(self.session.next_profile())

    @on(ProfileChosen)
    def _profile_chosen(self, event: ProfileChosen) -> None:
        if event.profile != self.session.profile.partition("@")[0]:
            self.set_profile(event.profile)

    # -- navigation -----------------------------------------------------------------------------------

    @on(GotoPointer)
    def goto_pointer(self, event: GotoPointer) -> None:
        """The editor's cursor on ``event.pointer`` (a schema location)."""
        from gramwright.lint.render.locate import locate, pointer_positions

        where = locate(pointer_positions(self.editor.text), event.pointer)
        if where is None:
            self.notify(f"{event.pointer or '/'}: not found in the text", severity="warning")
            return
        self.editor.goto(*where)

    @on(GotoPosition)
    def _goto_position(self, event: GotoPosition) -> None:
        self.editor.goto(event.line, event.column)

    # -- files ----------------------------------------------------------------------------------------

    def save(self, path: Path | None = None) -> bool:
        try:
            written = self.session.save(self.editor.text, path)
        except (OSError, ValueError) as exc:
            self.error_bar.add(record("save", exc))
            return False
        self.show_file_state()
        self.notify(f"saved {written}")
        return True

    def action_save(self) -> None:
        def go(save: bool | None = True) -> None:
            if not save:
                return
            if self.session.path is None:
                self.action_save_as()
            else:
                self.save()

        parsed = parse_schema_text(self.editor.text) if self.session.is_schema else None
        if parsed is not None and not parsed.ok:  # a schema file that is not JSON: ask first
            where = f"line {parsed.line}, column {parsed.column}: {parsed.error}"
            self.app.push_screen(ConfirmSaveScreen(self.session.name, where), go)
            return
        go()

    def action_save_as(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.save(Path(path).expanduser())

        self.app.push_screen(PathPrompt("Save schema as", str(self.session.path or "schema.json")), chosen)

    def action_export_gbnf(self) -> None:
        if self.compiled is None:
            self.notify("nothing compiled yet", severity="warning")
            return
        try:
            written = self.session.export_gbnf(self.compiled)
        except OSError as exc:
            self.error_bar.add(record("export", exc))
            return
        self.notify(f"wrote {written}")
