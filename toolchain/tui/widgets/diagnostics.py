"""The diagnostics panel: lint results for one profile; choosing one moves the editor cursor."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Select, Static
from textual.widgets.option_list import Option

from gramwright.lint import Diagnostic, LintReport
from gramwright.tui.messages import GotoPointer, GotoPosition, ProfileChosen
from gramwright.tui.session import ParseResult

SEVERITY_STYLE: dict[str, tuple[str, str]] = {
    "error": ("✗", "bold red"),
    "warn": ("▲", "yellow"),
    "info": ("●", "cyan"),
}
PARSE_ERROR_ID = "parse-error"


def diagnostic_prompt(d: Diagnostic, *, stale: bool = False) -> Text:
    icon, style = SEVERITY_STYLE.get(d.severity, ("·", ""))
    text = Text()
    text.append(f"{icon} {d.severity:<5} ", style=style)
    text.append(d.pointer or "/", style="bold")
    text.append(" · ", style="dim")
    text.append(d.rule, style="dim")
    text.append(f"\n   {d.message}")
    if stale:
        text.stylize("dim")
    return text


class DiagnosticsPanel(Vertical):
    """Profile selector, one option per diagnostic, and the highlighted diagnostic's hint."""

    HELP_TOPIC: ClassVar[str] = "diagnostics"

    def __init__(self, profiles: list[str], profile: str, *, id: str) -> None:
        super().__init__(id=id)
        self._profiles = profiles
        self._profile = profile
        self.report: LintReport | None = None
        self.parse_error: ParseResult | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="diag-bar"):
            current = self._profile.partition("@")[0]
            yield Select(
                [(name, name) for name in self._profiles],
                value=current if current in self._profiles else Select.NULL,
                allow_blank=current not in self._profiles,
                id="profile",
                compact=True,
            )
            yield Static("linting…", id="diag-summary")
        yield OptionList(id="diag-list")
        yield Static("", id="diag-hint")

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#diag-list", OptionList)

    def set_profile(self, profile: str) -> None:
        select = self.query_one("#profile", Select)
        name = profile.partition("@")[0]
        if name in self._profiles and select.value != name:
            with self.prevent(Select.Changed):
                select.value = name

    def show_busy(self, message: str) -> None:
        self.query_one("#diag-summary", Static).update(Text(message, style="italic"))

    def show_report(self, report: LintReport) -> None:
        self.report = report
        self.parse_error = None
        counts = report.counts()
        summary = Text.assemble(
            (f"{counts['error']} error", "bold red" if counts["error"] else "dim"),
            " · ",
            (f"{counts['warn']} warn", "yellow" if counts["warn"] else "dim"),
            " · ",
            (f"{counts['info']} info", "cyan" if counts["info"] else "dim"),
            (f"  {report.profile} · {report.lint_ms:.0f} ms", "dim"),
        )
        self.query_one("#diag-summary", Static).update(summary)
        self._rebuild()

    def show_parse_error(self, parse: ParseResult) -> None:
        self.parse_error = parse
        where = f"{parse.line}:{parse.column}"
        self.query_one("#diag-summary", Static).update(
            Text.assemble(
                ("invalid JSON at ", "bold red"), (where, "bold red"), (" — last good results greyed", "dim")
            )
        )
        self._rebuild()

    def _rebuild(self) -> None:
        stale = self.parse_error is not None
        self.set_class(stale, "-stale")
        options: list[Option] = []
        if self.parse_error is not None:
            p = self.parse_error
            prompt = Text.assemble(
                ("✗ json  ", "bold red"), (f"line {p.line}, column {p.column}", "bold"), f"\n   {p.error}"
            )
            options.append(Option(prompt, id=PARSE_ERROR_ID))
        diagnostics = self.report.diagnostics if self.report else []
        options.extend(
            Option(diagnostic_prompt(d, stale=stale), id=f"d{i}") for i, d in enumerate(diagnostics)
        )
        olist = self.option_list
        highlighted = olist.highlighted
        olist.clear_options()
        olist.add_options(options)
        if options:
            olist.highlighted = min(highlighted or 0, len(options) - 1)
            # the same index may now be another diagnostic: no highlight event says so
            self._update_hint(options[olist.highlighted].id)
        else:
            self.query_one("#diag-hint", Static).update(Text("no findings for this profile", style="green"))

    def _diagnostic(self, option_id: str | None) -> Diagnostic | None:
        if not option_id or not option_id.startswith("d") or self.report is None:
            return None
        index = int(option_id[1:])
        return self.report.diagnostics[index] if index < len(self.report.diagnostics) else None

    @on(OptionList.OptionHighlighted, "#diag-list")
    def _show_hint(self, event: OptionList.OptionHighlighted) -> None:
        self._update_hint(event.option.id)

    def _update_hint(self, option_id: str | None) -> None:
        d = self._diagnostic(option_id)
        hint = self.query_one("#diag-hint", Static)
        if d is None:
            hint.update(Text("enter: go to the parse error", style="dim"))
            return
        text = Text.assemble(("hint: ", "bold"), d.hint or "—")
        if d.fix is not None:
            text.append(f"  (fix: {d.fix.description})", style="dim")
        hint.update(text)

    @on(OptionList.OptionSelected, "#diag-list")
    def _goto(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == PARSE_ERROR_ID and self.parse_error is not None:
            self.post_message(GotoPosition(self.parse_error.line, self.parse_error.column))
            return
        d = self._diagnostic(event.option.id)
        if d is not None:
            self.post_message(GotoPointer(d.pointer))

    @on(Select.Changed, "#profile")
    def _profile_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.post_message(ProfileChosen(event.value))
