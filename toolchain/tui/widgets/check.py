"""The check panel: a document, and the recognizer's verdict on it (where and why it stops)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from gramwright.tui.session import CompiledView
from gramwright.tui.widgets.editor import code_area


def verdict_text(verdict: dict[str, object], view: CompiledView) -> Text:
    if verdict.get("accepted"):
        return Text.assemble(("✓ accepted", "bold green"), ("  the grammar accepts this document", "dim"))
    text = Text.assemble(
        ("✗ ", "bold red"),
        (str(verdict.get("reason")), "bold red"),
        (f" at line {verdict.get('line')}:{verdict.get('column')}", "bold"),
        f" (byte {verdict.get('offset')})",
    )
    text.append("\nexpected: ", style="bold")
    text.append(str(verdict.get("allowed", "")))
    pointers = verdict.get("schema_pointers") or []
    if isinstance(pointers, list) and pointers:
        for pointer in pointers:
            keywords = sorted({item.keyword for item in view.loaded.report if _child(item.pointer, pointer)})
            text.append("\nschema:   ", style="bold")
            text.append(pointer or "/")
            if keywords:
                text.append(f"  keywords: {', '.join(keywords)}", style="yellow")
    rules = verdict.get("rules") or []
    if isinstance(rules, list) and rules:
        text.append("\nrules:    ", style="bold")
        text.append(", ".join(str(r) for r in rules), style="dim")
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

    def show_verdict(self, verdict: dict[str, object], view: CompiledView) -> None:
        self.query_one("#check-result", Static).update(verdict_text(verdict, view))
        line, column = verdict.get("line"), verdict.get("column")
        if not verdict.get("accepted") and isinstance(line, int) and isinstance(column, int):
            doc = self.document
            row = max(0, min(line - 1, doc.document.line_count - 1))
            doc.move_cursor((row, max(0, column - 1)), center=True)

    def show_message(self, text: Text) -> None:
        self.query_one("#check-result", Static).update(text)
