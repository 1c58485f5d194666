"""The command palette (ctrl+p): commands that fit what the session is doing right now."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from gramwright.tui.session import Whitespace

if TYPE_CHECKING:
    from gramwright.tui.app import GramwrightApp


@dataclass(frozen=True)
class PaletteCommand:
    name: str
    run: Callable[[], object]
    help: str
    discover: bool = True


def screen_commands(app: GramwrightApp) -> list[PaletteCommand]:
    """Every other screen, by name."""
    from gramwright.tui.app import SCREEN_TITLES, SCREENS

    here = app.current_workspace
    return [
        PaletteCommand(
            f"screen: {SCREEN_TITLES[name]}",
            partial(app.show_workspace, name),
            f"Show the {SCREEN_TITLES[name].lower()} (f9 cycles the screens)",
        )
        for name in SCREENS
        if name != here
    ]


def review_commands(app: GramwrightApp) -> list[PaletteCommand]:
    from gramwright.tui.review_screen import ReviewScreen

    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    out = [PaletteCommand("review: Open patch…", screen.action_open_patch, "Load a patch file (any format)")]
    if screen.review is not None:
        out += [
            PaletteCommand("review: Accept edit", screen.action_accept, "Accept the selected edit (a)"),
            PaletteCommand("review: Reject edit", screen.action_reject, "Reject the selected edit (x)"),
            PaletteCommand(
                "review: Edit new text", screen.action_edit_text, "Change the edit's new text (e)"
            ),
            PaletteCommand(
                "review: Apply accepted edits", screen.action_apply, "Write them, after a confirmation (w)"
            ),
            PaletteCommand(
                "review: Export accepted edits…", screen.action_export, "Save them as a unified diff (s)"
            ),
            PaletteCommand(
                "review: Re-check", screen.action_recheck, "Re-read the files and check again (r)"
            ),
        ]
    if screen.last_entry is not None:
        out.append(PaletteCommand("review: Undo last apply", screen.action_undo, "Restore the files (u)"))
    if screen.review is not None and screen.on_regenerate is not None:
        out.append(
            PaletteCommand(
                "review: Regenerate edit", screen.action_regenerate, "Same instruction, that file (g)"
            )
        )
    return out


def edit_commands(app: GramwrightApp) -> list[PaletteCommand]:
    from gramwright.tui.edit_screen import EditScreen

    screen = app.screen
    assert isinstance(screen, EditScreen)
    if screen.running:
        return [PaletteCommand("edit: Cancel", screen.action_cancel, "Stop the running generation (escape)")]
    return [
        PaletteCommand(
            "edit: Generate", screen.action_generate, "The model writes a patch for the picked files"
        ),
        PaletteCommand("edit: Unpick all files", screen.action_clear_files, "Start the file choice again"),
    ]


def pipeline_commands(app: GramwrightApp) -> list[PaletteCommand]:
    from gramwright.tui.pipeline_screen import PipelineScreen

    screen = app.screen
    assert isinstance(screen, PipelineScreen)
    if screen.running:
        return [PaletteCommand("pipeline: Cancel", screen.action_cancel, "Stop after the current attempt")]
    return [PaletteCommand("pipeline: Run", screen.action_run, "The workbench's schema on the prompt (f8)")]


def batch_commands(app: GramwrightApp) -> list[PaletteCommand]:
    from gramwright.tui.batch_screen import BatchScreen

    screen = app.screen
    assert isinstance(screen, BatchScreen)
    if screen.running:
        return [PaletteCommand("batch: Cancel", screen.action_cancel, "Stop after the row in progress")]
    return [PaletteCommand("batch: Run / resume", screen.action_run, "Every row not yet in the output (f8)")]


def palette_commands(app: GramwrightApp) -> list[PaletteCommand]:
    """What the palette offers, given the screen and its state (unsaved edits, grammar, work, …)."""
    common = [PaletteCommand("app: Help", app.action_help, "Help for the focused panel")]
    if app.error_bar.records:
        common.insert(
            0, PaletteCommand("app: Show errors", app.action_show_errors, "Every error of this session")
        )
    if app.current_workspace == "review":
        return review_commands(app) + screen_commands(app) + common
    if app.current_workspace == "edit":
        return edit_commands(app) + screen_commands(app) + common
    if app.current_workspace == "pipeline":
        return pipeline_commands(app) + screen_commands(app) + common
    if app.current_workspace == "batch":
        return batch_commands(app) + screen_commands(app) + common
    return schema_commands(app) + screen_commands(app) + common


def schema_commands(app: GramwrightApp) -> list[PaletteCommand]:
    screen = app.schema_screen
    out: list[PaletteCommand] = []
    if app.session.is_dirty(app.editor.text):
        out.append(
            PaletteCommand("file: Save", screen.action_save, f"Save {app.session.name} (atomic write)")
        )
    out.append(
        PaletteCommand("file: Save as…", screen.action_save_as, "Save the schema under another name", False)
    )
    if app.session.is_schema:
        current = app.session.profile.partition("@")[0]
        for name in app.session.profiles():
            if name != current:
                out.append(
                    PaletteCommand(
                        f"lint: Profile {name}",
                        partial(screen.set_profile, name),
                        f"Lint for the {name} target",
                        discover=False,
                    )
                )
    out.append(
        PaletteCommand("grammar: Compile", screen.action_compile, "Compile the schema to the grammar now")
    )
    other: Whitespace = "flexible" if app.session.whitespace == "compact" else "compact"
    out.append(
        PaletteCommand(
            f"grammar: Whitespace {other}",
            partial(screen.set_whitespace, other),
            "compact: no whitespace (as generated); flexible: bounded whitespace between tokens",
            False,
        )
    )
    if app.compiled is not None:
        out.append(
            PaletteCommand(
                "grammar: Export GBNF",
                screen.action_export_gbnf,
                f"Write the canonical GBNF to {app.session.gbnf_path().name}",
            )
        )
    out.append(
        PaletteCommand("check: Check document", screen.action_check, "Check the document in the Check tab")
    )
    out.append(
        PaletteCommand("check: Load document…", screen.action_load_document, "Load a file into the Check tab")
    )
    if app.sample_running:
        out.append(PaletteCommand("sample: Cancel", screen.action_cancel, "Stop the running generation"))
    else:
        out.append(
            PaletteCommand("sample: Generate", screen.action_sample, "Generate from the prompt in Sample")
        )
    return out


class GramwrightCommands(Provider):
    @property
    def gramwright(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    async def discover(self) -> Hits:
        for command in palette_commands(self.gramwright):
            if command.discover:
                yield DiscoveryHit(command.name, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in palette_commands(self.gramwright):
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, help=command.help)
