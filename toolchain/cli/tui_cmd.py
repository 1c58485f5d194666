"""`gramwright tui`: the Textual app — the schema workbench (lint, grammar, check, sample), the
edit screen (a local model writes a patch) and the patch review (per-edit accept/reject, apply,
undo, export)."""

from __future__ import annotations

from pathlib import Path

import typer

from gramwright.cli import common

HELP = """Open the TUI on PATH: a JSON Schema or .gbnf grammar opens the schema workbench (live
lint, its compiled grammar, a document checker, constrained sampling on the local model); a patch
file (.patch, .diff, or any text in one of the three edit formats) opens the patch review; source
files or a folder open the edit screen (the local model writes a patch for the picked files, under
a grammar built from them, then the review).

A SCHEMA that does not exist yet is created on the first save. Every screen is reachable from the
others: f9 cycles them, ctrl+p (the command palette) names each one.

Schema keys: ctrl+s save, f1 help, f3 profile, f4 compile, f5 check, f8 sample, escape cancel.
Edit keys: enter picks a file in the tree, enter in the instruction generates, escape cancels.
Review keys: a accept, x reject, e edit the new text, w apply (asks first, naming the files),
u undo, s export the accepted edits, r re-check, g regenerate one edit. ctrl+q quits.
See docs/tui.md.

Examples:

  gramwright tui docs/examples/purchase_order.json

  gramwright tui schema.json --profile openai-strict --model ./my-model

  gramwright tui fix.patch --root .        # review a patch edit by edit, then apply

  gramwright tui src/config.py src/app.py  # a local model edits them; then the review
"""


def register(app: typer.Typer) -> None:
    app.command("tui", help=HELP)(tui_cmd)


def tui_cmd(
    paths: list[Path] | None = typer.Argument(
        None,
        metavar="PATH",
        help="A schema or .gbnf grammar, a patch file, or source files/a folder.",
    ),
    model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
    profile: str = typer.Option("gramwright", "--profile", "-p", help="Lint profile (target)."),
    max_tokens: int = typer.Option(256, "--max-tokens", min=1, help="Sample budget (editable)."),
    root: Path | None = typer.Option(
        None, "--root", help="Project root of a patch's paths. Default: git top level, else cwd."
    ),
    fuzzy: bool = typer.Option(False, "--fuzzy", help="Review: accept tolerant matches too."),
) -> None:
    from gramwright.lint import ProfileError, load_profile
    from gramwright.tui.entry import classify

    opening = classify(paths or [])
    missing = [p for p in opening.sources if not p.exists()]
    if missing:
        common.fail(f"{missing[0]}: no such file or folder")
    try:
        load_profile(profile)
    except ProfileError as exc:
        common.fail(exc.one_line())
    if root is not None and not root.is_dir():
        common.fail(f"--root {root}: not a directory")
    from gramwright.editors import find_root
    from gramwright.tui import run_tui

    if root is None:
        folders = [p for p in opening.sources if p.is_dir()]
        # one folder: the project whose files the edit screen lists
        root = folders[0] if len(folders) == 1 and len(opening.sources) == 1 else find_root()
    from gramwright.tui.session import SchemaSession

    with common.user_errors():  # a binary or non-UTF-8 file: one line here, not a traceback
        SchemaSession.open(opening.schema, profile)

    run_tui(
        opening.schema,
        model=model,
        profile=profile,
        max_tokens=max_tokens,
        patch=opening.patch,
        sources=opening.sources,
        root=root,
        fuzzy=fuzzy,
    )
