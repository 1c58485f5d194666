"""Write the README's screenshots of the TUI: ``python -m gramwright.tui.screenshot OUT.svg``.

``--screen schema`` (the default) opens a schema at a fixed terminal size, waits for the first lint
and compile, highlights the first error diagnostic and saves Textual's SVG export of the screen.
``--screen review`` writes a small project and a three-file patch (one edit of which does not
match) to a temporary folder, opens the patch review and selects the failed edit, so its nearest
lines show. ``--screen edit`` writes the same project, picks ``app/config.py`` and has the
embedded model write a patch for it (it loads the model: a minute or more), captured once the
patch is written, with its tokens shaded by clipped mass and the budget line.
``--screen pipeline`` opens a small schema with an ``x-rules`` rule in the pipeline view, its
generation backend scripted to answer first with a value the rule rejects, then a valid one (the
validation, rules, retry feedback and result are the pipeline's own). ``--screen batch`` runs
that schema over eight input rows (the same scripted backend, slowed down) and cancels after three.
``--screen grounding`` runs ``docs/examples/contact_grounded.json`` in the pipeline view on a
front-desk note (the backend scripted to answer with the note's name, city and age, and ``null``
for the e-mail it lacks; the grounded grammar and the spans are the real ones) and highlights the
city's span.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gramwright.tui.app import GramwrightApp

DEFAULT_SCHEMA = Path("docs/examples/purchase_order.json")

DEMO_FILES = {
    "app/totals.py": "def total(items):\n    return sum(item.price for item in items)\n\n\nLIMIT = 10\n",
    "app/config.toml": '[server]\nhost = "localhost"\nport = 8080\nworkers = 4\n',
    "README.md": "# Shop\n\nRun `make serve` to start.\nTotals are computed per order.\n",
}
DEMO_PATCH = """\
app/totals.py
<<<<<<< SEARCH
    return sum(item.price for item in items)
=======
    return sum(item.price * item.qty for item in items)
>>>>>>> REPLACE
app/config.toml
<<<<<<< SEARCH
host = "localhost"
port = 8000
workers = 4
=======
host = "0.0.0.0"
port = 8000
workers = 8
>>>>>>> REPLACE
README.md
<<<<<<< SEARCH
Totals are computed per order.
=======
Totals are computed per order, quantities included.
>>>>>>> REPLACE
"""


async def _until(pilot: Pilot[Any], done: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within {timeout:.0f} s")
        await pilot.pause(0.1)


async def capture(schema: Path, out: Path, *, profile: str, size: tuple[int, int] = (120, 40)) -> Path:
    app = GramwrightApp(schema, profile=profile)
    async with app.run_test(size=size) as pilot:
        await _until(pilot, lambda: app.diagnostics.report is not None and app.compiled is not None, "lint")
        await pilot.pause(0.3)
        report = app.diagnostics.report
        assert report is not None
        first_error = next((i for i, d in enumerate(report.diagnostics) if d.severity == "error"), 0)
        app.diagnostics.option_list.highlighted = first_error
        app.diagnostics.option_list.focus()
        await pilot.pause(1.0)  # the footer recomposes its bindings after a focus change
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(app.export_screenshot(title="gramwright tui"), encoding="utf-8")
    return out


async def capture_review(out: Path, *, size: tuple[int, int] = (120, 40)) -> Path:
    from gramwright.tui.review_screen import ReviewScreen

    with tempfile.TemporaryDirectory() as tmp:
        root = _demo_project(tmp)
        patch = Path(tmp) / "fix.patch"
        patch.write_text(DEMO_PATCH, encoding="utf-8")
        app = GramwrightApp(None, patch=patch, root=root)
        async with app.run_test(size=size) as pilot:

            def loaded() -> bool:
                return isinstance(app.screen, ReviewScreen) and app.screen.review is not None

            await _until(pilot, loaded, "review")
            await pilot.press("down", "down")  # the config edit, which does not match
            await pilot.pause(1.0)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(app.export_screenshot(title="gramwright tui fix.patch"), encoding="utf-8")
    return out


def _demo_project(tmp: str) -> Path:
    root = Path(tmp) / "shop"
    for name, text in DEMO_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


async def capture_edit(out: Path, *, size: tuple[int, int] = (120, 40)) -> Path:
    from textual.widgets import Input

    from gramwright.tui.edit_screen import EditScreen

    with tempfile.TemporaryDirectory() as tmp:
        root = _demo_project(tmp)
        app = GramwrightApp(None, sources=(root / "app" / "config.toml",), root=root)
        async with app.run_test(size=size) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, EditScreen), "edit screen")
            screen = app.screen
            assert isinstance(screen, EditScreen)
            screen.query_one("#edit-max-tokens", Input).value = "96"
            screen.query_one("#edit-max-lines", Input).value = "2"
            screen.query_one("#edit-instruction", Input).focus()
            await pilot.press(*"Use port 9000.", "enter")
            await _until(pilot, lambda: screen.last is not None, "generation", timeout=900)
            app.show_workspace("edit")
            await pilot.pause(1.0)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(app.export_screenshot(title="gramwright tui app/config.toml"), encoding="utf-8")
    return out


PIPELINE_SCHEMA = {
    "type": "object",
    "required": ["name", "age"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"type": "integer", "minimum": 0, "maximum": 30},
    },
    "x-rules": [
        {"id": "adult", "rule": "self.age >= 1", "message": "age must be at least 1", "fieldPath": "/age"}
    ],
}


async def capture_pipeline(out: Path, *, size: tuple[int, int] = (120, 40)) -> Path:
    import json

    from gramwright.pipeline import ScriptedBackend
    from gramwright.tui.pipeline_screen import PipelineScreen

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cat.json"
        path.write_text(json.dumps(PIPELINE_SCHEMA, indent=2) + "\n", encoding="utf-8")
        backend = ScriptedBackend.of('{"name":"Tom","age":0}', '{"name":"Tom","age":3}')
        app = GramwrightApp(path, pipeline_backend=backend)
        async with app.run_test(size=size) as pilot:
            screen = app.show_workspace("pipeline")
            assert isinstance(screen, PipelineScreen)
            await pilot.pause(0.5)
            screen.query_one("#pipe-prompt").focus()
            await pilot.press("ctrl+a", "ctrl+k", *"Tom, a cat, three years old", "enter")
            await _until(pilot, lambda: screen.result is not None, "pipeline result")
            screen.attempt_list.focus()
            await pilot.press("up")  # attempt 1's error: its output and the feedback it caused
            await pilot.pause(1.0)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(
                app.export_screenshot(title="gramwright tui cat.json · pipeline"), encoding="utf-8"
            )
    return out


GROUNDED_PROMPT = (
    "Extract the contact. Note from the front desk: Maria Lopez called from Seville about her "
    "order; she is 34, asked for a call back before Friday and left no e-mail address."
)
GROUNDED_ANSWER = '{"name":"Maria Lopez","city":"Seville","age":34,"email":null}'


async def capture_grounding(out: Path, *, size: tuple[int, int] = (120, 40)) -> Path:
    from textual.widgets import Input

    from gramwright.pipeline import ScriptedBackend
    from gramwright.tui.pipeline_screen import PipelineScreen

    schema = Path("docs/examples/contact_grounded.json")
    app = GramwrightApp(schema, pipeline_backend=ScriptedBackend.of(GROUNDED_ANSWER))
    async with app.run_test(size=size) as pilot:
        screen = app.show_workspace("pipeline")
        assert isinstance(screen, PipelineScreen)
        await pilot.pause(0.5)
        prompt = screen.query_one("#pipe-prompt", Input)
        prompt.value = GROUNDED_PROMPT
        screen.action_run()
        await _until(pilot, lambda: screen.result is not None and screen.grounding.display, "result")
        screen.grounding.option_list.focus()
        await pilot.press("down")  # the city: its span in reverse in the source
        prompt.cursor_position = 0
        await pilot.pause(1.0)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            app.export_screenshot(title="gramwright tui contact_grounded.json · pipeline"), encoding="utf-8"
        )
    return out


async def capture_batch(out: Path, *, size: tuple[int, int] = (120, 40)) -> Path:
    import json

    from textual.widgets import Input

    from gramwright.pipeline import ScriptedBackend
    from gramwright.tui.batch_screen import BatchScreen

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cat.json"
        path.write_text(json.dumps(PIPELINE_SCHEMA, indent=2) + "\n", encoding="utf-8")
        source = Path(tmp) / "cats.jsonl"
        lines = [json.dumps({"id": f"cat-{i}", "prompt": f"cat number {i}"}) for i in range(8)]
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        outputs = [{"text": '{"name":"Tom","age":0}'}, {"text": '{"name":"Tom","age":3}'}]
        script = {"outputs": outputs, "sleep": 0.2}
        app = GramwrightApp(path, pipeline_backend=ScriptedBackend([script]))
        async with app.run_test(size=size) as pilot:
            screen = app.show_workspace("batch")
            assert isinstance(screen, BatchScreen)
            await pilot.pause(0.5)
            screen.query_one("#batch-input", Input).value = str(source)
            screen.action_run()
            await _until(pilot, lambda: screen.new_rows >= 3 or not screen.running, "three rows")
            assert screen.running, [r.line for r in app.error_bar.records]
            screen.action_cancel()
            await _until(pilot, lambda: not screen.running, "the cancel")
            screen.query_one("#batch-input", Input).value = "cats.jsonl"  # the temporary folder aside
            await pilot.pause(1.0)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(app.export_screenshot(title="gramwright tui cat.json · batch"), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--screen", choices=("schema", "review", "edit", "pipeline", "grounding", "batch"), default="schema"
    )
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA)
    parser.add_argument("--profile", default="openai-strict")
    args = parser.parse_args(argv)
    if args.screen == "review":
        print(asyncio.run(capture_review(args.out)))
    elif args.screen == "batch":
        print(asyncio.run(capture_batch(args.out)))
    elif args.screen == "grounding":
        print(asyncio.run(capture_grounding(args.out)))
    elif args.screen == "pipeline":
        print(asyncio.run(capture_pipeline(args.out)))
    elif args.screen == "edit":
        print(asyncio.run(capture_edit(args.out)))
    else:
        print(asyncio.run(capture(args.schema, args.out, profile=args.profile)))


if __name__ == "__main__":
    main()
