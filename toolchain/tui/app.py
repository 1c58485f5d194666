"""The gramwright TUI: edit a schema, lint it as you type, see its grammar, check documents, sample;
run it through the pipeline; review a patch edit by edit and apply it.

The app is the shell: what the screens share (the schema session, the sampler and its lock), which
screen is shown, the one error log, help and quit. Each screen is a module of its own: the schema
workbench (:mod:`gramwright.tui.schema_screen`) is the default screen; the others (pipeline, batch,
edit, patch review) are installed once and pushed over it, so each keeps its state while another is
shown (``f9`` and the palette move between them). Errors from every screen go to one log (``f2``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from gramwright.lint import DEFAULT_PROFILE
from gramwright.tui.commands import GramwrightCommands
from gramwright.tui.help import topic
from gramwright.tui.messages import GotoPointer
from gramwright.tui.sampler import Sampler
from gramwright.tui.schema_screen import SchemaScreen
from gramwright.tui.screens import ConfirmQuitScreen, ErrorsScreen, HelpScreen, QuitChoice
from gramwright.tui.session import CompiledView, SchemaSession
from gramwright.tui.styles import CSS
from gramwright.tui.widgets.check import CheckPanel
from gramwright.tui.widgets.diagnostics import DiagnosticsPanel
from gramwright.tui.widgets.editor import SchemaEditor
from gramwright.tui.widgets.errors import ErrorBar, ErrorRecord, record
from gramwright.tui.widgets.grammar import GrammarPanel
from gramwright.tui.widgets.sample import SamplePanel

if TYPE_CHECKING:
    from gramwright.editors.generate.edit import EditResult
    from gramwright.editors.patch.review import Review
    from gramwright.pipeline import Backend

SCREENS = ("schema", "pipeline", "batch", "edit", "review")
SCREEN_TITLES = {
    "schema": "Schema workbench",
    "pipeline": "Pipeline view",
    "batch": "Batch view",
    "edit": "Edit (generate a patch)",
    "review": "Patch review",
}


class GramwrightApp(App[None]):
    TITLE = "gramwright"
    CSS = CSS
    COMMANDS = App.COMMANDS | {GramwrightCommands}
    # The keys of every screen; the workbench's own (save, compile, check, sample, …) are its
    # screen's (SchemaScreen.BINDINGS).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", priority=True),
        Binding("f2", "show_errors", "Errors", show=False, priority=True),
        Binding("f9", "next_screen", "Next screen", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        schema: Path | None = None,
        *,
        model: str | None = None,
        profile: str = DEFAULT_PROFILE,
        max_tokens: int = 256,
        patch: Path | None = None,
        sources: Sequence[Path] = (),
        root: Path | None = None,
        fuzzy: bool = False,
        start: str = "schema",
        pipeline_backend: Backend | None = None,
    ) -> None:
        super().__init__()
        self.session, self._initial_text = SchemaSession.open(schema, profile)
        self.root = (root or Path.cwd()).resolve()
        self.patch = patch
        self.sources = tuple(sources)
        self.model = model
        self.fuzzy = fuzzy
        self.pipeline_backend = pipeline_backend  # None: the model; a ScriptedBackend in tests
        self.start = "review" if patch is not None else "edit" if sources else start
        self.sampler = Sampler(model)
        self.sample_lock = threading.Lock()  # one generation at a time, even after a cancel
        self.max_tokens = max_tokens

    def get_default_screen(self) -> Screen[Any]:
        return SchemaScreen(self._initial_text, self.max_tokens)

    # -- the schema workbench, which the other screens read -------------------------------------------

    @property
    def schema_screen(self) -> SchemaScreen:
        """The default screen: the schema workbench, under whichever screen is shown."""
        screen = self.screen_stack[0]
        assert isinstance(screen, SchemaScreen)
        return screen

    @property
    def editor(self) -> SchemaEditor:
        return self.schema_screen.editor

    @property
    def diagnostics(self) -> DiagnosticsPanel:
        return self.schema_screen.diagnostics

    @property
    def grammar_panel(self) -> GrammarPanel:
        return self.schema_screen.grammar_panel

    @property
    def check_panel(self) -> CheckPanel:
        return self.schema_screen.check_panel

    @property
    def sample_panel(self) -> SamplePanel:
        return self.schema_screen.sample_panel

    @property
    def compiled(self) -> CompiledView | None:
        """The last compile of the workbench's schema."""
        return self.schema_screen.compiled

    @property
    def sample_running(self) -> bool:
        return self.schema_screen.sample_running

    @property
    def error_bar(self) -> ErrorBar:
        """The schema workbench's error line: it also keeps the log of every screen's errors (f2)."""
        return self.schema_screen.error_bar

    def report_error(self, source: str, exc: BaseException) -> ErrorRecord:
        """The one error place: logged for f2, shown on the error line of the screen in view."""
        rec = record(source, exc)
        self.error_bar.add(rec)
        for screen in self.screen_stack[1:]:
            for bar in screen.query("#screen-errors").results(ErrorBar):
                bar.records = self.error_bar.records[:-1]
                bar.add(rec)
        return rec

    def clear_error(self, source: str) -> None:
        """``source``'s work has since succeeded: its error leaves every error line (f2 keeps it)."""
        self.error_bar.clear_source(source)
        for screen in self.screen_stack[1:]:
            for bar in screen.query("#screen-errors").results(ErrorBar):
                bar.clear_source(source)

    # -- screens --------------------------------------------------------------------------------------

    def workspace(self, name: str) -> Screen[Any]:
        """The screen ``name`` (``schema``, ``review``), created and installed the first time."""
        if name == "schema":
            return self.schema_screen
        if not self.is_screen_installed(name):
            from gramwright.tui.batch_screen import BatchScreen
            from gramwright.tui.edit_screen import EditScreen
            from gramwright.tui.pipeline_screen import PipelineScreen
            from gramwright.tui.review_screen import ReviewScreen

            screen: Screen[Any]
            if name == "review":
                screen = ReviewScreen(self.root, self.patch, fuzzy=self.fuzzy)
            elif name == "edit":
                screen = EditScreen(self.root, self.sources, model=self.model)
            elif name == "batch":
                screen = BatchScreen(self.pipeline_backend)
            else:
                screen = PipelineScreen(self.pipeline_backend)
            self.install_screen(screen, name)
        return self.get_screen(name)

    def open_generated(self, review: Review, instruction: str) -> None:
        """A patch the edit screen generated: into the review, with regenerate wired to the edit screen."""
        from gramwright.tui.edit_screen import EditScreen
        from gramwright.tui.review_screen import ReviewScreen

        screen = self.workspace("review")
        editor = self.workspace("edit")
        assert isinstance(screen, ReviewScreen) and isinstance(editor, EditScreen)
        screen.on_regenerate = editor.regenerate
        screen.show_review(review, f"generated · {instruction}")
        self.show_workspace("review")

    def regenerated(self, index: int, result: EditResult) -> None:
        """A regenerated edit, from the edit screen, for the review (which stays in front)."""
        from gramwright.tui.review_screen import ReviewScreen

        screen = self.workspace("review")
        assert isinstance(screen, ReviewScreen)
        screen.take_regenerated(index, result)

    def show_workspace(self, name: str) -> Screen[Any]:
        """Bring screen ``name`` to the front (over the schema workbench, which stays underneath)."""
        screen = self.workspace(name)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if name != "schema":
            self.push_screen(screen)
        self.refresh_bindings()
        return screen

    @property
    def current_workspace(self) -> str:
        top = self.screen
        for name in SCREENS[1:]:
            if self.is_screen_installed(name) and self.get_screen(name) is top:
                return name
        return "schema"

    def action_next_screen(self) -> None:
        names = list(SCREENS)
        here = self.current_workspace
        self.show_workspace(names[(names.index(here) + 1) % len(names)])

    def on_mount(self) -> None:
        if self.start != "schema":
            self.show_workspace(self.start)

    def goto_schema(self, pointer: str) -> None:
        """Show the schema workbench with the editor's cursor at ``pointer`` (a schema location)."""
        self.show_workspace("schema")
        self.editor.focus()
        self.schema_screen.goto_pointer(GotoPointer(pointer))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Over a dialog (help, quit prompt, path prompt, palette) the app's keys step aside, so the
        # dialog's own keys (escape, f1, f2, …) work and no second dialog opens on top.
        return not self.screen.is_modal

    # -- quit -----------------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        text = self.editor.text
        untouched = self.session.path is None and text == self._initial_text  # the unsaved template
        if untouched or not self.session.is_dirty(text):
            self.exit()
            return

        def chosen(choice: QuitChoice | None) -> None:
            if choice == "discard" or (choice == "save" and self.schema_screen.save()):
                self.exit()

        self.push_screen(ConfirmQuitScreen(self.session.name), chosen)

    # -- help and errors ------------------------------------------------------------------------------

    def focused_topic(self) -> str:
        node: Widget | None = self.focused or self.screen
        while node is not None:
            name = getattr(node, "HELP_TOPIC", None)
            if isinstance(name, str):
                return name
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return "editor"

    def action_help(self) -> None:
        self.push_screen(HelpScreen(topic(self.focused_topic())))

    def action_show_errors(self) -> None:
        self.push_screen(ErrorsScreen(self.error_bar.records))
