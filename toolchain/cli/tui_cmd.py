"""`gramwright tui`: the Textual app for writing a schema (lint, grammar, check, sample)."""

from __future__ import annotations

from pathlib import Path

import typer

from gramwright.cli import common

HELP = """Open the schema workbench: edit a JSON Schema with live lint, its compiled grammar, a
document checker and constrained sampling on the local model.

SCHEMA is created on the first save when it does not exist yet.

Keys: ctrl+s save, ctrl+p command palette, f1 help, f3 profile, f4 compile, f5 check, f8 sample,
escape cancel, ctrl+q quit (asks first when there are unsaved edits). See docs/tui.md.

Examples:

  gramwright tui docs/examples/purchase_order.json

  gramwright tui schema.json --profile openai-strict --model ./my-model
"""


def register(app: typer.Typer) -> None:
    app.command("tui", help=HELP)(tui_cmd)


def tui_cmd(
    schema: Path | None = typer.Argument(None, help="The JSON Schema (or .gbnf) to edit."),
    model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
    profile: str = typer.Option("gramwright", "--profile", "-p", help="Lint profile (target)."),
    max_tokens: int = typer.Option(256, "--max-tokens", min=1, help="Sample budget (editable)."),
) -> None:
    from gramwright.lint import ProfileError, load_profile

    if schema is not None and schema.is_dir():
        common.fail(f"{schema}: is a directory, expected a schema file")
    try:
        load_profile(profile)
    except ProfileError as exc:
        common.fail(exc.one_line())
    from gramwright.tui import run_tui
    from gramwright.tui.session import SchemaSession

    with common.user_errors():  # a binary or non-UTF-8 file: one line here, not a traceback
        SchemaSession.open(schema, profile)

    run_tui(schema, model=model, profile=profile, max_tokens=max_tokens)
