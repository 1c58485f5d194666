"""The edit screen driven by real keystrokes: the project tree respects .gitignore (real git); on the
embedded model (``model``-marked) a generated edit streams, the UI answers keys while it does
(key-to-render latency measured), the patch opens in the review and applies; undo restores it."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from gramwright.tui.app import GramwrightApp
from gramwright.tui.commands import palette_commands
from gramwright.tui.edit_screen import EditScreen
from gramwright.tui.review_screen import ReviewScreen
from gramwright.tui.screens import ConfirmScreen, HelpScreen
from tests.support.tui import screen_text, wait_for

pytestmark = pytest.mark.anyio
SIZE = (120, 40)
CONFIG = b'NAME = "demo"\nPORT = 8000\nDEBUG = False\n'


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "app" / "config.py").write_bytes(CONFIG)
    (root / "app" / "main.py").write_text("from app.config import PORT\n\nprint(PORT)\n", encoding="utf-8")
    (root / "build").mkdir()
    (root / "build" / "generated.py").write_text("X = 1\n", encoding="utf-8")
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    return root


async def edit_screen(pilot: Pilot[Any]) -> EditScreen:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, EditScreen)
    return screen


async def test_tree_picks_files_and_respects_gitignore(project: Path) -> None:
    app = GramwrightApp(None, sources=(project / "app" / "config.py",), root=project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await edit_screen(pilot)
        assert screen.picked == ["app/config.py"]
        assert set(screen._picker_nodes) == {".gitignore", "app/config.py", "app/main.py"}  # build/ ignored
        text = screen_text(app)
        assert "☑ config.py" in text and "☐ main.py" in text and "build" not in text
        assert "files: app/config.py" in text
        # no instruction: generating asks for one, nothing starts
        await pilot.press("enter")
        assert not screen.running
        # pick main.py with the keyboard: the tree, down to it, enter
        screen.file_tree.focus()
        for _ in range(10):
            node = screen.file_tree.cursor_node
            if node is not None and node.data == "app/main.py":
                break
            await pilot.press("down")
        await pilot.press("enter")
        assert screen.picked == ["app/config.py", "app/main.py"]
        assert "edit: Generate" in [c.name for c in palette_commands(app)]
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "Edit: a local model writes a patch" in screen_text(app)
        await pilot.press("escape")
        await pilot.press("f9")  # edit → review (empty) → schema → pipeline → batch → edit
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen))
        assert "No patch loaded" in screen_text(app)
        for name in ("schema", "pipeline", "batch"):
            await pilot.press("f9")
            await wait_for(pilot, lambda n=name: app.current_workspace == n)  # type: ignore[misc]
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.picked == ["app/config.py", "app/main.py"]


@pytest.mark.model
async def test_generate_on_the_embedded_model_stream_review_apply_undo(
    project: Path, monkeypatch: Any
) -> None:
    from gramwright.decode import batch
    from gramwright.models.threads import ThreadPolicy, Threads

    # one torch thread, as with --threads 1: on a quiet machine's two cores the ~30-token patch
    # is written in well under a second, too soon to time keys while it runs
    monkeypatch.setattr(batch, "current_threads", lambda: Threads(ThreadPolicy(1, "option")))
    app = GramwrightApp(None, sources=(project / "app" / "config.py",), root=project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await edit_screen(pilot)
        screen.query_one("#edit-max-tokens", Input).value = "64"
        # the 135M model repeats itself in a free REPLACE: two new lines, then the marker
        screen.query_one("#edit-max-lines", Input).value = "2"
        screen.query_one("#edit-instruction", Input).focus()
        await pilot.press(*"Change PORT to 9000.", "enter")
        await wait_for(pilot, lambda: screen.tokens >= 2 or not screen.running, 600.0)
        assert screen.running, [r.detail for r in app.error_bar.records]

        # while it generates: move in the tree and time each key until its render is done
        screen.file_tree.focus()
        latencies: list[float] = []
        for key in ("down", "up") * 4:
            if not screen.running:
                break
            before = screen.file_tree.cursor_line
            # the key goes in as the terminal driver sends it (pilot.press also waits for the
            # process to go idle, which it never is while the model runs: that would time the model)
            start = time.perf_counter()
            app.post_message(events.Key(key, None))
            while screen.file_tree.cursor_line == before:
                assert time.perf_counter() - start < 10.0, "the key was not handled within 10 s"
                await asyncio.sleep(0.005)
            screen_text(app)  # the frame with the moved cursor
            latencies.append(time.perf_counter() - start)
            await pilot.pause(0.2)
        assert latencies, "the generation ended before a key could be timed"
        print(f"key-to-render during generation: median {statistics.median(latencies) * 1000:.0f} ms,"
              f" max {max(latencies) * 1000:.0f} ms over {len(latencies)} keys")  # fmt: skip
        # bounds for a shared, loaded machine (the generation thread and the UI share the GIL)
        assert statistics.median(latencies) < 0.5 and max(latencies) < 2.0, latencies

        review = app.workspace("review")
        assert isinstance(review, ReviewScreen)
        await wait_for(pilot, lambda: not screen.running, 600.0)
        assert screen.last is not None, [r.detail for r in app.error_bar.records]
        result = screen.last.result
        assert "PORT" in screen.output_text  # what streamed is the patch the model wrote
        shown = screen_text(app) if app.screen is screen else ""
        # the budget-aware masks close a constrained patch within its 64 tokens: never cut
        assert result.finish_reason == "stop", shown
        # a finished constrained patch parses and applies: straight into the review
        await wait_for(pilot, lambda: app.screen is review and review.review is not None)
        assert review.review is not None and review.review.accepted
        assert review.on_regenerate is not None
        assert "✓ exact" in screen_text(app)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "app/config.py" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: review.last_entry is not None)
        after = (project / "app" / "config.py").read_bytes()
        assert after != CONFIG
        assert result.report is not None
        assert after == result.report.files[0].after  # what the check computed, byte for byte
        assert git(project, "status", "--porcelain").strip() == "M app/config.py"
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: (project / "app" / "config.py").read_bytes() == CONFIG)
        assert git(project, "status", "--porcelain") == ""


async def test_the_focused_field_is_named_and_marked_and_first_focus_fits(project: Path) -> None:
    """Keys typed on the edit screen went into the model and budget fields unseen: every field
    is named on its border, the focused one marked, and the first focus is what to do first."""
    app = GramwrightApp(None, sources=(project / "app" / "config.py",), root=project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await edit_screen(pilot)
        await pilot.pause()
        # a file is picked: the instruction comes first, and the screen says so
        assert app.focused is screen.query_one("#edit-instruction", Input)
        text = screen_text(app)
        assert "▸ instruction" in text, text
        for name in ("format", "model", "tokens", "new lines"):
            assert f"─ {name} ─" in text, (name, text)
        assert "256" in text  # the whole budget is visible, not its last digits
        # tab to the model field: the mark moves with the focus, so what a key changes is visible
        await pilot.press("tab", "tab")
        assert app.focused is screen.query_one("#edit-model", Input)
        text = screen_text(app)
        assert "▸ model" in text and "▸ instruction" not in text, text
        await pilot.press("tab")
        assert "▸ tokens" in screen_text(app)
        assert text.count("▸ ") == 1
    # no file picked: the tree comes first (an instruction alone generates nothing)
    app = GramwrightApp(None, sources=(project,), root=project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await edit_screen(pilot)
        await pilot.pause()
        assert app.focused is screen.file_tree
        text = screen_text(app)
        assert "▸ Project" in text and "▸ instruction" not in text, text
