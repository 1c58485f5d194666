"""Modal screens: help for the focused panel, quit with unsaved edits, a path prompt, error detail."""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Markdown, Static

from gramwright.tui.help import GLOBAL_KEYS, HelpTopic
from gramwright.tui.widgets.errors import ErrorRecord

QuitChoice = Literal["save", "discard"]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,q", "dismiss", "Close help")]

    def __init__(self, topic: HelpTopic) -> None:
        super().__init__()
        self.topic = topic

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = f"Help · {self.topic.title}"
            keys = self.topic.keys or GLOBAL_KEYS
            yield Markdown(f"# {self.topic.title}\n\n{self.topic.markdown}\n\n## Keys\n\n{keys}")
            yield Label(Text("escape closes", style="dim"))


class ConfirmQuitScreen(ModalScreen[QuitChoice | None]):
    """Unsaved edits: save and quit, quit without saving, or stay."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "Save and quit"),
        Binding("d", "choose('discard')", "Discard and quit"),
        Binding("escape,c", "choose('')", "Cancel"),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.file_name = name

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body") as body:
            body.border_title = "Unsaved changes"
            yield Static(f"{self.file_name} has unsaved edits. Quit anyway?", id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button("Save and quit (s)", id="save", variant="primary")
                yield Button("Discard (d)", id="discard", variant="error")
                yield Button("Cancel (esc)", id="cancel")

    def action_choose(self, choice: str) -> None:
        self.dismiss("save" if choice == "save" else "discard" if choice == "discard" else None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "")


class ConfirmSaveScreen(ModalScreen[bool]):
    """The buffer is not valid JSON: save it anyway, or go back and fix it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose(True)", "Save anyway"),
        Binding("escape,c", "choose(False)", "Cancel"),
    ]

    def __init__(self, name: str, problem: str) -> None:
        super().__init__()
        self.file_name = name
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body") as body:
            body.border_title = "Not valid JSON"
            yield Static(
                f"{self.file_name} is not valid JSON ({self.problem}). Save it anyway?", id="confirm-question"
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Save anyway (s)", id="save", variant="warning")
                yield Button("Cancel (esc)", id="cancel")

    def action_choose(self, save: bool) -> None:
        self.dismiss(save)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id == "save")


class ConfirmScreen(ModalScreen[bool]):
    """Ask before writing files: the question names every file; ``y`` goes ahead, escape does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose(True)", "Yes"),
        Binding("escape,n", "choose(False)", "Cancel"),
    ]

    def __init__(self, title: str, question: str, yes_label: str = "Yes (y)") -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self.yes_label = yes_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body") as body:
            body.border_title = self.title_text
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes_label, id="yes", variant="warning")
                yield Button("Cancel (esc)", id="cancel")

    def action_choose(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id == "yes")


class PathPrompt(ModalScreen[str | None]):
    """Ask for a file path (load a document, save as, export)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-body") as body:
            body.border_title = self.title_text
            yield Input(self.value, placeholder="path", id="path")
            yield Label(Text("enter accepts · escape cancels", style="dim"))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)


class ErrorsScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f2,q", "dismiss", "Close")]

    def __init__(self, records: list[ErrorRecord]) -> None:
        super().__init__()
        self.records = records

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="errors-body") as body:
            body.border_title = f"Errors ({len(self.records)}) · newest first"
            if not self.records:
                yield Static("no errors in this session")
            for rec in reversed(self.records):
                yield Static(Text(rec.line, style="bold red"), classes="error-line")
                yield Static(Text(rec.detail.rstrip(), style="dim"), classes="error-detail")
