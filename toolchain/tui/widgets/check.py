"""The check panel: a document, and the recognizer's verdict on it (where and why it stops)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from gramwright.checking import CheckResult
from gramwright.tui.session import CompiledView
from gramwright.tui.widgets.editor import code_area


def verdict_text(verdict: CheckResult, view: CompiledView) -> Text:
    newline = "  (one final newline ignored: the grammar does not accept it)"
    if verdict.accepted:
        text = Text.assemble(("✓ accepted", "bold green"), ("  the grammar accepts this document", "dim"))
        if verdict.final_newline_ignored:
            text.append(newline, style="dim")
        return text
    text = Text.assemble(
        ("✗ ", "bold red"),
        (verdict.reason, "bold red"),
        (f" at line {verdict.line}:{verdict.column}", "bold"),
        f" (byte {verdict.offset})",
    )
    if verdict.final_newline_ignored:
        text.append(newline, style="dim")
    text.append("\nexpected: ", style="bold")
    text.append(verdict.allowed)
    if verdict.note:
        text.append("\nnote:     ", style="bold yellow")
        text.append(verdict.note)
    if verdict.schema_pointers:
        for pointer in verdict.schema_pointers:
            keywords = sorted({item.keyword for item in view.loaded.report if _child(item.pointer, pointer)})
            text.append("\nschema:   ", style="bold")
            text.append(pointer or "/")
            if keywords:
                text.append(f"  keywords: {', '.join(keywords)}", style="yellow")
    if verdict.rules:
        text.append("\nrules:    ", style="bold")
        text.append(", ".join(verdict.rules), style="dim")
    return text


def _child(keyword_pointer: str, schema_pointer: str) -> bool:
    """Report entries name the keyword itself (``…/qty/minimum``); keep those of this subschema."""
    return keyword_pointer.rsplit("/", 1)[0] == schema_pointer


class CheckPanel(Vertical):
    HELP_TOPIC: ClassVar[str] = "check"

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                "paste a JSON document · f5 checks it · ctrl+o loads a file\n"
                "the grammar is compact by default: for pretty-printed documents use "
                "ctrl+p → grammar: Whitespace flexible",
                style="dim",
            ),
            id="check-help",
        )
        yield code_area("", id="check-doc")
        yield Static("", id="check-result")

    @property
    def document(self) -> TextArea:
        return self.query_one("#check-doc", TextArea)

    def show_busy(self) -> None:
        self.query_one("#check-result", Static).update(Text("checking…", style="italic"))

    def show_verdict(self, verdict: CheckResult, view: CompiledView) -> None:
        self.query_one("#check-result", Static).update(verdict_text(verdict, view))
        if not verdict.accepted and verdict.line:
            doc = self.document
            row = max(0, min(verdict.line - 1, doc.document.line_count - 1))
            doc.move_cursor((row, max(0, verdict.column - 1)), center=True)

    def show_message(self, text: Text) -> None:
        self.query_one("#check-result", Static).update(text)
