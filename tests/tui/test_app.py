"""The TUI driven by real keystrokes (``App.run_test`` + pilot) on the seed's purchase-order schema."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TextArea

from gramwright.grammar.gbnf import emit_gbnf
from gramwright.sources import load_source
from gramwright.tui.app import GramwrightApp
from gramwright.tui.commands import palette_commands
from gramwright.tui.sampler import SampleCancelled, SampleOutcome
from gramwright.tui.screens import ConfirmQuitScreen, ErrorsScreen, HelpScreen, PathPrompt
from gramwright.tui.widgets.sample import shade
from gramwright.validate import validate_output
from tests.support.tui import screen_text, static_text, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "purchase_order.json"

SIZE = (120, 40)
pytestmark = pytest.mark.anyio
# The first lint imports jsonschema's format checkers (seconds on a busy machine); later ones take ms.
FIRST_RESULT_S = 90.0

VALID_DOC = (
    '{"supplier":"Lenovo","total_amount":10000,"items":[{"name":"ThinkPad","qty":2,"unit_price":5000}]}'
)
INVALID_DOC = '{"supplier":"Lenovo","total_amount":1,"items":[{"name":"x","qty":0,"unit_price":1}]}'


async def ready(pilot: Pilot[Any]) -> GramwrightApp:
    """Wait for the first lint and compile of the opened schema."""
    app = pilot.app
    assert isinstance(app, GramwrightApp)
    await wait_for(pilot, lambda: None not in (app.diagnostics.report, app.compiled), FIRST_RESULT_S)
    await pilot.pause()
    return app


def rules_at(app: GramwrightApp, pointer: str) -> list[str]:
    report = app.diagnostics.report
    assert report is not None
    return [d.rule for d in report.diagnostics if d.pointer == pointer]


async def test_startup_shows_editor_diagnostics_grammar_and_report(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        assert app.editor.text == schema_path.read_text(encoding="utf-8")
        assert app.focused is app.editor
        expected = emit_gbnf(load_source(str(schema_path)).grammar)
        assert app.query_one("#gbnf", TextArea).text == expected
        assert "rules" in static_text(app, "#grammar-summary")
        assert "keyword occurrences compiled exactly" in static_text(app, "#grammar-report")
        assert app.diagnostics.option_list.option_count == len(app.diagnostics.report.diagnostics)  # type: ignore[union-attr]
        assert app.sub_title == "purchase_order.json"
        # At 120×40 one screen holds the editor, the diagnostics, the GBNF, the report and the keys.
        screen = screen_text(app)
        panels = ['"supplier": {"type": "string"', "Diagnostics", "exit/missing-refusal", "root ::="]
        keys = ["Save", "Help", "Compile", "Check", "Sample", "palette"]
        for seen in [*panels, "report: all", "Grammar", *keys]:
            assert seen in screen, seen


async def test_error_diagnostic_appears_jumps_to_pointer_and_goes_away(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        pointer = "/properties/supplier/maxLength"
        assert "meta/invalid-schema" not in rules_at(app, pointer)
        # Line 6 is `    "supplier": {"type": "string", "maxLength": 64},`: replace 64 by -1.
        await pilot.press(*["down"] * 5, "end", "left", "left")
        await pilot.press("backspace", "backspace", "minus", "1")
        assert '"maxLength": -1}' in app.editor.text
        assert app.sub_title.endswith("● modified")
        await wait_for(pilot, lambda: "meta/invalid-schema" in rules_at(app, pointer), 5.0)
        report = app.diagnostics.report
        assert report is not None
        error = next(d for d in report.diagnostics if d.pointer == pointer)
        assert error.severity == "error"

        # Choose that diagnostic with the keyboard: the editor cursor lands on the pointer's key.
        await pilot.press("escape", "tab")  # editor → profile selector → diagnostics list
        olist = app.query_one("#diag-list", OptionList)
        assert app.focused is olist
        await pilot.press("home")
        index = report.diagnostics.index(error)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is app.editor)
        row, col = app.editor.cursor_location
        assert row == 5
        assert app.editor.document.get_line(row)[col:].startswith('"maxLength"')

        # Fix it: the diagnostic goes away.
        await pilot.press("end", "left", "left", "backspace", "backspace", "6", "4")
        await wait_for(pilot, lambda: "meta/invalid-schema" not in rules_at(app, pointer), 5.0)
        assert app.editor.text == schema_path.read_text(encoding="utf-8")
        assert app.sub_title == "purchase_order.json"


async def test_invalid_json_shows_position_and_keeps_last_results_greyed(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        before = app.diagnostics.report
        gbnf_before = app.query_one("#gbnf", TextArea).text
        await pilot.press("down", "end", "backspace")  # line 2 loses its trailing comma
        await wait_for(pilot, lambda: app.diagnostics.parse_error is not None, 5.0)
        parse = app.diagnostics.parse_error
        assert parse is not None
        assert (parse.line, parse.column) == (3, 3)
        assert "invalid JSON at 3:3" in static_text(app, "#diag-summary")
        assert app.diagnostics.has_class("-stale")
        assert app.grammar_panel.has_class("-stale")
        assert app.diagnostics.report is before  # the last good results stay, greyed
        assert app.diagnostics.option_list.option_count == 1 + len(before.diagnostics)  # type: ignore[union-attr]
        assert app.query_one("#gbnf", TextArea).text == gbnf_before
        # Choosing the parse error moves the cursor there.
        await pilot.press("escape", "tab", "home", "enter")
        await wait_for(pilot, lambda: app.focused is app.editor)
        assert app.editor.cursor_location == (2, 2)
        # Undo: valid again, fresh results, nothing greyed.
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: app.diagnostics.report is not before, 5.0)
        await wait_for(pilot, lambda: not app.grammar_panel.has_class("-stale"), 5.0)
        assert not app.diagnostics.has_class("-stale")
        assert app.diagnostics.parse_error is None


async def test_compile_then_check_valid_and_invalid_documents(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("f4")
        await wait_for(pilot, lambda: "rules" in static_text(app, "#grammar-summary"), 10.0)
        rules = len(load_source(str(schema_path)).grammar.rules)
        assert f"{rules} rules" in static_text(app, "#grammar-summary")

        await pilot.press("f5")  # nothing to check yet: the Check tab opens with its document focused
        doc = app.check_panel.document
        await wait_for(pilot, lambda: app.focused is doc)
        app.post_message(events.Paste(VALID_DOC + "\n"))
        await wait_for(pilot, lambda: doc.text == VALID_DOC + "\n")
        await pilot.press("f5")
        await wait_for(pilot, lambda: "accepted" in static_text(app, "#check-result"), 10.0)
        assert "✓ accepted" in static_text(app, "#check-result")

        await pilot.press("ctrl+z")  # undo the paste, then paste the invalid one
        app.post_message(events.Paste(INVALID_DOC))
        await wait_for(pilot, lambda: doc.text == INVALID_DOC)
        await pilot.press("f5")
        await wait_for(pilot, lambda: "rejected" in static_text(app, "#check-result"), 10.0)
        result = static_text(app, "#check-result")
        column = INVALID_DOC.index('"qty":0') + len('"qty":') + 1
        assert f"rejected at line 1:{column}" in result
        assert "expected: '1'-'9'" in result
        assert "/properties/items/items/properties/qty" in result
        assert "minimum" in result
        assert doc.cursor_location == (0, column - 1)


async def test_save_writes_atomically(schema_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        replaced.append((str(src), str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("end", "enter", *'"title": "PO",')
        assert app.session.is_dirty(app.editor.text)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.session.is_dirty(app.editor.text))
        saved = schema_path.read_text(encoding="utf-8")
        assert saved == app.editor.text
        assert json.loads(saved)["title"] == "PO"
        # temp file in the same folder, renamed over the schema
        assert replaced and replaced[-1][1] == str(schema_path)
        assert Path(replaced[-1][0]).parent == schema_path.parent
        assert not [p for p in schema_path.parent.iterdir() if p.name.endswith(".tmp")]
        assert app.sub_title == "purchase_order.json"


async def test_quit_with_unsaved_edits_asks_first(schema_path: Path) -> None:
    original = schema_path.read_text(encoding="utf-8")
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("space")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        await pilot.press("escape")  # stay
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmQuitScreen))
        assert app.is_running
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        await pilot.press("d")  # discard and quit
        await wait_for(pilot, lambda: not app.is_running)
    assert schema_path.read_text(encoding="utf-8") == original


async def test_quit_with_unsaved_edits_can_save_first(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("end", "space")
        edited = app.editor.text
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        await pilot.press("s")
        await wait_for(pilot, lambda: not app.is_running)
    assert schema_path.read_text(encoding="utf-8") == edited


async def test_quit_without_edits_does_not_ask(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_command_palette_switches_profile(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        names = [c.name for c in palette_commands(app)]
        assert "file: Save" not in names  # nothing to save
        assert "lint: Profile gramwright" not in names  # the current one
        assert "grammar: Export GBNF" in names
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"profile openai")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.profile == "openai-strict", 5.0)
        await wait_for(pilot, lambda: "openai" in getattr(app.diagnostics.report, "profile", ""))
        await pilot.press("f3")  # next profile in the list
        await wait_for(pilot, lambda: app.session.profile != "openai-strict")
        await pilot.press("space")
        assert "file: Save" in [c.name for c in palette_commands(app)]


async def test_f1_help_is_for_the_focused_panel(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.topic.title == "Schema editor"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        app.diagnostics.option_list.focus()
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.topic.title == "Diagnostics"


async def test_compile_error_is_one_line_with_detail_on_demand(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"type": "string", "minLength": 5, "maxLength": 2}\n', encoding="utf-8")
    async with GramwrightApp(path).run_test(size=SIZE) as pilot:
        app = await ready_or_failed(pilot)
        bar = app.error_bar
        assert bar.records and bar.records[-1].source == "compile"
        assert "\n" not in bar.records[-1].message
        assert "compile failed" in static_text(app, "#grammar-summary")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorsScreen))


async def ready_or_failed(pilot: Pilot[Any]) -> GramwrightApp:
    app = pilot.app
    assert isinstance(app, GramwrightApp)
    await wait_for(pilot, lambda: bool(app.diagnostics.report and app.error_bar.records), FIRST_RESULT_S)
    return app


async def test_new_file_is_created_on_save(tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    async with GramwrightApp(path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        assert app.session.is_dirty(app.editor.text)  # a new schema is unsaved until saved
        await pilot.press("ctrl+s")
        await wait_for(pilot, path.exists)
    assert json.loads(path.read_text(encoding="utf-8"))["type"] == "object"


async def test_untitled_schema_asks_where_to_save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    async with GramwrightApp(None).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        await pilot.press("ctrl+s")  # the app's keys step aside while a dialog is open
        assert len(app.screen_stack) == 2
        await pilot.press("enter")  # the suggested name, schema.json
        await wait_for(pilot, (tmp_path / "schema.json").exists)
        assert app.session.path == Path("schema.json")
        assert not app.session.is_dirty(app.editor.text)


async def test_export_gbnf(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("ctrl+g")
        target = schema_path.with_suffix(".gbnf")
        await wait_for(pilot, target.exists)
        assert target.read_text(encoding="utf-8") == app.query_one("#gbnf", TextArea).text


@dataclass
class FakeStep:
    text: bytes
    clipped_mass: float | None


class FakeSampler:
    """Stands in for the model: streams fixed tokens through the same callbacks, or until cancelled."""

    def __init__(self, pieces: list[bytes], *, forever: bool = False) -> None:
        self.pieces = pieces
        self.forever = forever
        self.stopped = threading.Event()

    def run(
        self,
        loaded_grammar: Any,
        prompt: str,
        *,
        max_tokens: int,
        progress: Callable[[str], None],
        on_token: Callable[[Any], None],
    ) -> SampleOutcome:
        progress("fake model")
        try:
            while True:
                for i, piece in enumerate(self.pieces):
                    on_token(FakeStep(piece, i / len(self.pieces)))
                    time.sleep(0.01)
                if not self.forever:
                    break
        except SampleCancelled:
            self.stopped.set()
            raise
        text = b"".join(self.pieces).decode()
        validation = validate_output(text, loaded_grammar.schema, "stop")
        return SampleOutcome(text, "stop", len(self.pieces), {"tokens_per_s": 1.0}, "fake", validation)


async def test_sample_panel_streams_shaded_tokens_and_validates(schema_path: Path) -> None:
    doc = VALID_DOC.encode()
    pieces = [doc[i : i + 7] for i in range(0, len(doc), 7)]
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        app.sampler = FakeSampler(pieces)  # type: ignore[assignment]
        await pilot.press("f8")
        panel = app.sample_panel
        await wait_for(pilot, lambda: not panel.running and panel.tokens == len(pieces), 20.0)
        assert panel.output_text == VALID_DOC
        result = static_text(app, "#sample-result")
        assert "finish: stop" in result
        assert "✓ parsed and valid" in result
        # each token is shaded by its clipped mass (the fake's masses grow 0 → 1 over the run)
        shades = {str(span.style) for span in panel.output.spans}
        assert {shade(0.3), shade(0.7), shade(0.95)} <= shades


async def test_escape_cancels_a_running_sample(schema_path: Path) -> None:
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        fake = FakeSampler([b"{", b'"a"'], forever=True)
        app.sampler = fake  # type: ignore[assignment]
        await pilot.press("f8")
        panel = app.sample_panel
        await wait_for(pilot, lambda: panel.tokens > 5)
        assert "sample: Cancel" in [c.name for c in palette_commands(app)]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not panel.running)
        assert "cancelled" in static_text(app, "#sample-status")
        await wait_for(pilot, fake.stopped.is_set)  # the generation thread itself stopped
        assert not app.sample_running


@pytest.fixture
def fresh_engine_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines built from scratch (this tests the TUI, not the engine cache), the converted model
    weights still shared: the model cache folder is linked into a temporary cache root."""
    from gramwright.models.loader import CACHE_ENV, cache_root

    root = tmp_path / "cache"
    root.mkdir()
    models = cache_root() / "models"
    models.mkdir(parents=True, exist_ok=True)
    (root / "models").symlink_to(models, target_is_directory=True)
    monkeypatch.setenv(CACHE_ENV, str(root))


@pytest.mark.model
@pytest.mark.usefixtures("fresh_engine_cache")
async def test_sample_streams_tokens_and_keeps_the_ui_responsive(schema_path: Path) -> None:
    async with GramwrightApp(schema_path, max_tokens=100).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        panel = app.sample_panel
        await pilot.press("f8")
        await wait_for(pilot, lambda: panel.tokens >= 3, 600.0)
        assert app.sample_running
        # The UI answers while tokens stream: an edit is linted before the run ends.
        app.editor.focus()
        await pilot.press(*["down"] * 5, "end", "left", "left", "backspace", "backspace", "minus", "1")
        pointer = "/properties/supplier/maxLength"
        await wait_for(pilot, lambda: "meta/invalid-schema" in rules_at(app, pointer), 30)
        assert app.sample_running or 0 < panel.tokens <= 100  # or it already ended, closed in time
        await wait_for(pilot, lambda: not panel.running, 600.0)
        result = static_text(app, "#sample-result")
        errors = [r.detail for r in app.error_bar.records]
        assert "finish:" in result, (static_text(app, "#sample-status"), errors)
        assert 0 < panel.tokens <= 100
        # the budget (100 tokens; this schema's shortest output is 78) closes the document in time
        assert "finish: stop" in result, result
        json.loads(panel.output_text)
        assert "schema validation" in result


async def test_quit_stops_a_long_compile(tmp_path: Path) -> None:
    # ~2,000 subschemas: the compile takes seconds; quitting must not wait for it (a worker thread
    # cannot be killed, so the compiler asks the worker whether it was cancelled)
    n = 2000
    props = {
        f"p{i}": {"type": "object", "properties": {"x": {"type": "string", "pattern": f"^a{i}[0-9]+$"}}}
        for i in range(n)
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"type": "object", "properties": props}), encoding="utf-8")
    app = GramwrightApp(path)
    started, ended, quit_pressed = threading.Event(), threading.Event(), threading.Event()
    ends: list[str] = []
    real_compile = app.session.compile

    def observed(text: str, cancelled: Callable[[], bool] | None = None) -> Any:
        assert cancelled is not None

        def asked() -> bool:
            # the compiler's first question waits until the user has quit, so a fast machine cannot
            # finish the compile before the key is pressed (the bounded wait keeps a broken app from
            # hanging the test)
            quit_pressed.wait(30)
            return cancelled()

        started.set()  # the real compile runs; the test only sees how it ends
        try:
            got = real_compile(text, cancelled=asked)
        except BaseException as exc:
            ends.append(type(exc).__name__)
            raise
        else:
            ends.append("finished")
            return got
        finally:
            ended.set()

    app.session.compile = observed  # type: ignore[method-assign]  # an observer around the real call
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, started.is_set, FIRST_RESULT_S)
        await pilot.press("ctrl+q")
    quit_pressed.set()
    assert ended.wait(60)
    # stopped between subschemas, not run to its end (a timing comparison is flaky on a busy machine)
    assert ends == ["CompileCancelled"], ends


async def test_a_new_files_template_is_selected_and_typing_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    async with GramwrightApp(path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        assert app.editor.selected_text == app.editor.text != ""
        await pilot.press(*'{"type": "string"}')
        assert app.editor.text == '{"type": "string"}'
    async with GramwrightApp(schema_path_copy(tmp_path)).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        assert app.editor.selected_text == ""  # an existing file opens with nothing selected


def schema_path_copy(tmp_path: Path) -> Path:
    path = tmp_path / "existing.json"
    shutil.copyfile(EXAMPLE, path)
    return path


async def test_saving_invalid_json_asks_first(schema_path: Path) -> None:
    from gramwright.tui.screens import ConfirmSaveScreen

    original = schema_path.read_text(encoding="utf-8")
    async with GramwrightApp(schema_path).run_test(size=SIZE) as pilot:
        app = await ready(pilot)
        await pilot.press("down", "end", "backspace")  # line 2 loses its trailing comma
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSaveScreen))
        assert "not valid JSON (line 3" in str(app.screen.query_one("#confirm-question", Static).render())
        await pilot.press("escape")  # go back: nothing written
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmSaveScreen))
        assert schema_path.read_text(encoding="utf-8") == original
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSaveScreen))
        await pilot.press("s")  # save anyway
        await wait_for(pilot, lambda: not app.session.is_dirty(app.editor.text))
        assert schema_path.read_text(encoding="utf-8") == app.editor.text != original
