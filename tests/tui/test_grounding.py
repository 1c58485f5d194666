"""Grounded values in the pipeline view, driven by real keystrokes: the generation backend is
scripted (as the pipeline's own tests script it); the grounded grammar, the validation and every
span come from the real grounding code (``grounded_values`` over the prompt, the source)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input

from gramwright.pipeline import ScriptedBackend
from gramwright.tui.app import GramwrightApp
from gramwright.tui.pipeline_screen import PipelineScreen
from gramwright.tui.screens import HelpScreen
from gramwright.tui.widgets.grounding import GroundingPanel
from tests.support.tui import screen_text, wait_for

pytestmark = pytest.mark.anyio
SIZE = (120, 40)
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
# the city and the age sit after many wrapped rows: highlighting them must scroll the source
FILLER = "The weather was fine and the train was late again. " * 24
PROMPT = f"Anna Lee wrote: {FILLER}I am 34 and live in Lyon."
ANSWER = {"name": "Anna Lee", "city": "Lyon", "age": 34, "email": None}


def reversed_runs(app: GramwrightApp) -> list[str]:
    """The runs of text the terminal draws in reverse video in the source (the selected span)."""
    region = app.screen.query_one("#grounded-scroll").scrollable_content_region
    runs: list[str] = []
    strips = app.screen._compositor.render_strips()
    for strip in strips[region.y : region.bottom]:
        current = ""
        for segment in strip.crop(region.x, region.right):
            if segment.style is not None and segment.style.reverse:
                current += segment.text
            elif current:
                runs.append(current)
                current = ""
        if current:
            runs.append(current)
    return runs


async def test_grounded_values_are_listed_and_their_spans_highlighted_in_the_source(tmp_path: Path) -> None:
    path = tmp_path / "contact.json"
    path.write_text((EXAMPLES / "contact_grounded.json").read_text(encoding="utf-8"), encoding="utf-8")
    backend = ScriptedBackend.of(json.dumps(ANSWER))
    app = GramwrightApp(path, pipeline_backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.show_workspace("pipeline")
        assert isinstance(screen, PipelineScreen)
        await pilot.pause()
        panel = screen.query_one("#pipe-grounding", GroundingPanel)
        assert not panel.display  # nothing grounded to show before a result
        prompt = screen.query_one("#pipe-prompt", Input)
        prompt.value = PROMPT
        prompt.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.result is not None and panel.display, 60.0)
        result = screen.result
        assert result is not None and result.status == "ok"
        # the spans are the pipeline's (the result's own), the null member is listed without one
        spans = {g.pointer: (g.start, g.end) for g in result.grounded}
        assert spans == {
            "/name": (0, 8),
            "/city": (PROMPT.index("Lyon"), PROMPT.index("Lyon") + 4),
            "/age": (PROMPT.index("34"), PROMPT.index("34") + 2),
        }
        assert [(v.pointer, v.start) for v in panel.values] == [
            ("/name", 0),
            ("/city", spans["/city"][0]),
            ("/age", spans["/age"][0]),
            ("/email", None),
        ]
        await wait_for(pilot, lambda: "Grounded values" in screen_text(app))
        text = screen_text(app)
        assert '/name  "Anna Lee"  at 1:1-1:8' in text
        city = PROMPT.index("Lyon")
        assert f'/city  "Lyon"  at 1:{city + 1}-1:{city + 4}' in text
        assert "/email  null  no value in the source" in text
        # the first value is selected: its span in reverse, at the top of the source
        assert reversed_runs(app) == ["Anna Lee"]
        scroll = panel.query_one("#grounded-scroll")
        assert scroll.scroll_y == 0
        # ↓ to the city: its span in reverse, scrolled into view (it was rows below the panel)
        panel.option_list.focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: reversed_runs(app) == ["Lyon"])
        assert scroll.scroll_y > 0
        assert panel.selected == 1
        # the null member: selected, nothing in reverse, the source's subtitle says why
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: panel.selected == 3 and reversed_runs(app) == [])
        assert "/email no value in the source" in screen_text(app)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "Grounded values" in screen_text(app)


async def test_an_ungrounded_schema_shows_no_grounding_panel(tmp_path: Path) -> None:
    from tests.support.tui import CAT_SCHEMA

    path = tmp_path / "cat.json"
    path.write_text(json.dumps(CAT_SCHEMA), encoding="utf-8")
    backend = ScriptedBackend.of('{"name":"Tom","age":3}')
    app = GramwrightApp(path, pipeline_backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.show_workspace("pipeline")
        assert isinstance(screen, PipelineScreen)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.result is not None, 60.0)
        await pilot.pause()
        assert not screen.query_one("#pipe-grounding", GroundingPanel).display
        assert screen.result is not None and screen.result.grounded == []
