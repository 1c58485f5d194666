"""The grammar panel: canonical GBNF, rule count, compile time and the compile report's misses."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from gramwright.tui.session import CompiledView

STATUS_STYLE = {"approximated": "yellow", "discarded": "bold red"}


def report_text(view: CompiledView) -> Text:
    """The report lines for keywords the grammar does not enforce exactly (validation checks them)."""
    inexact = view.inexact
    total = len(view.loaded.report)
    if view.loaded.kind != "schema":
        return Text(f"{view.loaded.kind} source: no schema keywords to report", style="dim")
    if not inexact:
        return Text(f"report: all {total} keyword occurrences compiled exactly", style="green")
    text = Text(f"report: {total - len(inexact)} exact, {len(inexact)} not exact (validation checks them)")
    for item in inexact:
        text.append("\n")
        text.append(f"{item.status:<12}", style=STATUS_STYLE.get(item.status, ""))
        text.append(f" {item.pointer or '/'}", style="bold")
        text.append(f"  {item.reason}" if item.reason else "", style="dim")
    return text


class GrammarPanel(Vertical):
    HELP_TOPIC: ClassVar[str] = "grammar"

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.view: CompiledView | None = None

    def compose(self) -> ComposeResult:
        yield Static("compiling…", id="grammar-summary")
        yield Static("", id="grammar-report")
        yield TextArea.code_editor("", read_only=True, id="gbnf", soft_wrap=False)

    def show_busy(self) -> None:
        self.query_one("#grammar-summary", Static).update(Text("compiling…", style="italic"))

    def show_compiled(self, view: CompiledView) -> None:
        self.view = view
        self.remove_class("-stale")
        summary = Text.assemble(
            (f"{view.rule_count} rules", "bold"),
            f" · {view.loaded.compile_ms:.1f} ms · {len(view.gbnf.encode())} bytes GBNF · {view.whitespace}",
        )
        self.query_one("#grammar-summary", Static).update(summary)
        self.query_one("#grammar-report", Static).update(report_text(view))
        gbnf = self.query_one("#gbnf", TextArea)
        if gbnf.text != view.gbnf:
            gbnf.load_text(view.gbnf)

    def mark_stale(self, reason: str) -> None:
        """Keep the last grammar visible, greyed, and say why it is out of date."""
        self.add_class("-stale")
        self.query_one("#grammar-summary", Static).update(Text(reason, style="bold red"))
