"""The pipeline view driven by real keystrokes: a schema whose first attempt fails an x-rules rule
(the generation backend scripted, as the pipeline's own tests script it; the validation, the rules,
the retry with feedback and the result are the real pipeline's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.pipeline import ScriptedBackend
from gramwright.tui.app import GramwrightApp
from gramwright.tui.commands import palette_commands
from gramwright.tui.pipeline_screen import PipelineScreen
from gramwright.tui.screens import HelpScreen
from tests.support.tui import CAT_SCHEMA, screen_text, wait_for

pytestmark = pytest.mark.anyio
SIZE = (120, 40)


async def test_pipeline_view_shows_each_attempt_its_rule_error_feedback_and_result(tmp_path: Path) -> None:
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(CAT_SCHEMA, indent=2) + "\n", encoding="utf-8")
    backend = ScriptedBackend.of('{"name":"Tom","age":0}', '{"name":"Tom","age":3}')
    app = GramwrightApp(path, pipeline_backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")  # the next screen after the workbench
        await wait_for(pilot, lambda: isinstance(app.screen, PipelineScreen))
        screen = app.screen
        assert isinstance(screen, PipelineScreen)
        assert "pipeline: Run" in [c.name for c in palette_commands(app)]
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "Pipeline view" in screen_text(app)
        await pilot.press("escape")
        screen.query_one("#pipe-prompt").focus()
        await pilot.press(*"Tom, a three-year-old cat", "enter")
        await wait_for(pilot, lambda: screen.result is not None, 120.0)
        result = screen.result
        assert result is not None
        assert (result.status, result.layer, len(result.attempts)) == ("ok", 2, 2)
        assert "age must be at least 1" in backend.requests[1].prompt  # the feedback went along
        await wait_for(pilot, lambda: "result: ok" in screen_text(app))  # the frame after the result
        text = screen_text(app)
        assert "attempt 1 · layer 1 · stop" in text and "✗ 1 error(s)" in text
        assert "/age · rule adult · age must be at least 1" in text
        assert "attempt 2 · layer 2 · stop" in text and "✓ valid" in text
        assert "result: ok · layer 2 · confidence" in text
        assert "feedback this attempt's prompt carried" in text  # the last attempt is shown
        assert "age must be at least 1" in screen.attempts[1].feedback
        # attempt 1's error, highlighted: attempt 1 with the feedback it caused
        screen.attempt_list.focus()
        await pilot.press("up")  # from attempt 2 to attempt 1's error
        assert "feedback sent to the next attempt" in screen_text(app)
        # … and selected: the schema editor's cursor on /properties/age
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current_workspace == "schema")
        row = app.editor.cursor_location[0]
        assert '"age"' in app.editor.text.splitlines()[row]
