"""The Textual TUI: ``gramwright tui [SCHEMA.json | PATCH | SOURCES...]``.

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
    patch: Path | None = None,
    sources: tuple[Path, ...] = (),
    root: Path | None = None,
    fuzzy: bool = False,
) -> None:
    from gramwright.tui.app import GramwrightApp

    GramwrightApp(
        schema,
        model=model,
        profile=profile,
        max_tokens=max_tokens,
        patch=patch,
        sources=sources,
        root=root,
        fuzzy=fuzzy,
    ).run()


__all__ = ["run_tui"]
