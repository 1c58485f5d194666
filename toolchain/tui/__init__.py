"""The Textual TUI: ``gramwright tui [SCHEMA.json]``.

A thin layer over the core (linter, compiler, recognizer, generation): :mod:`gramwright.tui.session`
and :mod:`gramwright.tui.sampler` make the calls, the widgets render their plain results.
"""

from __future__ import annotations

from pathlib import Path


def run_tui(
    schema: Path | None = None,
    *,
    model: str | None = None,
    profile: str = "gramwright",
    max_tokens: int = 256,
) -> None:
    from gramwright.tui.app import GramwrightApp

    GramwrightApp(schema, model=model, profile=profile, max_tokens=max_tokens).run()


__all__ = ["run_tui"]
