"""Write the README's screenshot of the TUI: ``python -m gramwright.tui.screenshot OUT.svg``.

Opens a schema at a fixed terminal size, waits for the first lint and compile, highlights the
first error diagnostic and saves Textual's SVG export of the screen.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from gramwright.tui.app import GramwrightApp

DEFAULT_SCHEMA = Path("docs/examples/purchase_order.json")


async def capture(schema: Path, out: Path, *, profile: str, size: tuple[int, int] = (120, 40)) -> Path:
    app = GramwrightApp(schema, profile=profile)
    async with app.run_test(size=size) as pilot:
        deadline = time.monotonic() + 120
        while app.diagnostics.report is None or app.compiled is None:
            if time.monotonic() > deadline:
                raise TimeoutError("no lint/compile result within 120 s")
            await pilot.pause(0.1)
        await pilot.pause(0.3)
        report = app.diagnostics.report
        first_error = next((i for i, d in enumerate(report.diagnostics) if d.severity == "error"), 0)
        app.diagnostics.option_list.highlighted = first_error
        app.diagnostics.option_list.focus()
        await pilot.pause(1.0)  # the footer recomposes its bindings after a focus change
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(app.export_screenshot(title="gramwright tui"), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA)
    parser.add_argument("--profile", default="openai-strict")
    args = parser.parse_args(argv)
    print(asyncio.run(capture(args.schema, args.out, profile=args.profile)))


if __name__ == "__main__":
    main()
