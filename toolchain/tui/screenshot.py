"""Write the README's screenshots of the TUI: ``python -m gramwright.tui.screenshot OUT.svg``.

``--screen schema`` (the default) opens a schema at a fixed terminal size, waits for the first lint
and compile, highlights the first error diagnostic and saves Textual's SVG export of the screen.
``--screen review`` writes a small project and a three-file patch (one edit of which does not
match) to a temporary folder, opens the patch review and selects the failed edit, so its nearest
lines show.
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


async def _until(pilot: Pilot[Any], done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 120
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within 120 s")
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
        root = Path(tmp) / "shop"
        for name, text in DEMO_FILES.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--screen", choices=("schema", "review"), default="schema")
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA)
    parser.add_argument("--profile", default="openai-strict")
    args = parser.parse_args(argv)
    if args.screen == "review":
        print(asyncio.run(capture_review(args.out)))
    else:
        print(asyncio.run(capture(args.schema, args.out, profile=args.profile)))


if __name__ == "__main__":
    main()
