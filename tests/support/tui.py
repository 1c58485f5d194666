"""What the TUI tests share: waiting on a condition under the pilot, the screen as plain text, and a
small schema with an ``x-rules`` rule (for the pipeline and batch views)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

CAT_SCHEMA: dict[str, Any] = {
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


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {condition}")
        await pilot.pause(0.05)


def static_text(app: App[Any], selector: str) -> str:
    """What the ``Static`` at ``selector`` shows, as plain text."""
    return str(app.query_one(selector, Static).render())


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
