"""One command module's commands in a Typer app of their own, for CLI tests that need no more."""

from __future__ import annotations

from collections.abc import Callable

import typer


def command_app(register: Callable[[typer.Typer], None]) -> typer.Typer:
    """An app with the commands ``register`` adds and a second, empty command, so that each of
    them stays a named subcommand (``app lint …``) as under ``gramwright``."""
    app = typer.Typer()
    register(app)

    @app.command("other")
    def _other() -> None:
        pass

    return app
