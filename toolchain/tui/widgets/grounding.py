"""A result's grounded values beside the source text they were copied from (``x-grounded``,
docs/grounding.md): every value's span underlined in the source, the highlighted value's span in
reverse and scrolled into view; a value with no span (``null``, or not found) says so.

The spans are the core's (:func:`gramwright.schema.grounding.grounded_values`); this panel only
draws them. Offsets are code points, shown as 1-based line:column (:mod:`gramwright.positions`).
"""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from gramwright.positions import LineIndex
from gramwright.schema.grounding import GroundedValue

SPAN_STYLE = "underline cyan"
SELECTED_STYLE = "bold reverse"


def where(value: GroundedValue, lines: LineIndex) -> str:
    """``line 1:5-1:13`` (the end is the last character's column), or why there is no span."""
    if value.value is None:
        return "no value in the source"
    if value.start is None or value.end is None:
        return "NOT in the source"
    line, col = lines.line_col(value.start)
    end_line, end_col = lines.line_col(max(value.start, value.end - 1))
    span = f"{line}:{col}" if value.end - value.start <= 1 else f"{line}:{col}-{end_line}:{end_col}"
    more = f" · {value.occurrences} occurrences, the first" if value.occurrences > 1 else ""
    return f"at {span}{more}"


def value_line(value: GroundedValue, lines: LineIndex) -> Text:
    """``/city  "Lyon"  at 1:24-1:27``: pointer, value (as JSON), and where it sits in the source."""
    text = Text(value.pointer or "/", style="bold")
    text.append("  " + json.dumps(value.value, ensure_ascii=False)[:60])
    if value.value is None:
        text.append(f"  {where(value, lines)}", style="dim")
    elif value.found:
        text.append(f"  {where(value, lines)}", style="cyan")
    else:
        text.append(f"  {where(value, lines)}", style="bold red")
    return text


def source_text(source: str, values: list[GroundedValue], selected: int | None = None) -> Text:
    """The source with every found value's span underlined; the ``selected`` one in reverse."""
    text = Text(source)
    for index, value in enumerate(values):
        if value.start is not None and value.end is not None:
            text.stylize(SELECTED_STYLE if index == selected else SPAN_STYLE, value.start, value.end)
    return text


def wrapped_row(source: str, offset: int, width: int) -> int:
    """The row (0-based) on which ``offset`` is drawn when ``source`` wraps at ``width`` columns."""
    if width <= 0:
        return 0
    return max(0, len(Content(source[:offset]).wrap(width)) - 1)


class GroundingPanel(Horizontal):
    """Grounded values (left; ``↑``/``↓`` highlights one) and the source (right)."""

    HELP_TOPIC: ClassVar[str] = "grounding"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = ""
        self.values: list[GroundedValue] = []
        self.selected: int | None = None

    def compose(self) -> ComposeResult:
        yield OptionList(id="grounded-values")
        with VerticalScroll(id="grounded-scroll"):
            yield Static("", id="grounded-source")

    def on_mount(self) -> None:
        self.option_list.border_title = "Grounded values · ↑/↓: its span in the source"
        self.query_one("#grounded-scroll").border_title = "Source"

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#grounded-values", OptionList)

    @property
    def source_view(self) -> Static:
        return self.query_one("#grounded-source", Static)

    def show(self, source: str, values: list[GroundedValue]) -> None:
        """A new result: its values listed, the first with a span selected."""
        self.source = source
        self.values = list(values)
        self.selected = None
        lines = LineIndex(source)
        options = self.option_list
        options.clear_options()
        options.add_options(Option(value_line(v, lines), id=f"g{i}") for i, v in enumerate(self.values))
        if not self.values:
            options.add_option(Option(Text("no grounded value in the result", style="dim"), disabled=True))
        self.source_view.update(source_text(source, self.values))
        first = next((i for i, v in enumerate(self.values) if v.found), None)
        if first is not None:
            options.highlighted = first  # posts OptionHighlighted: select() follows
            self.select(first)

    def select(self, index: int) -> None:
        """Highlight value ``index``'s span (in reverse) and scroll the source to it."""
        if not 0 <= index < len(self.values):
            return
        self.selected = index
        value = self.values[index]
        self.source_view.update(source_text(self.source, self.values, index))
        scroll = self.query_one("#grounded-scroll", VerticalScroll)
        scroll.border_subtitle = f"{value.pointer or '/'} {where(value, LineIndex(self.source))}"
        start = value.start
        if start is not None:
            self.call_after_refresh(self._reveal, start)

    def _reveal(self, offset: int) -> None:
        view = self.source_view
        row = wrapped_row(self.source, offset, view.content_size.width)
        scroll = self.query_one("#grounded-scroll", VerticalScroll)
        top = scroll.scroll_y
        height = scroll.scrollable_content_region.height
        if not top <= row < top + height:  # already in view: keep the page still
            scroll.scroll_to(y=max(0, row - 1), animate=False)

    @on(OptionList.OptionHighlighted, "#grounded-values")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        option_id = event.option.id
        if option_id and option_id.startswith("g") and int(option_id[1:]) != self.selected:
            self.select(int(option_id[1:]))
