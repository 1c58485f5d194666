"""`gramwright edit`: a local model writes a patch for real files under a grammar built from them.

A thin adapter over :func:`gramwright.editors.generate.edit.generate_edit`: options in, the
result printed as :mod:`gramwright.cli.render.edit` renders it (the patch, the check as
``gramwright apply --check`` reports it, the diff or the backup id).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gramwright.cli import common

if TYPE_CHECKING:
    from gramwright.editors.generate.edit import Mode

HELP = (
    "Generate an edit with a local model: every SEARCH text (every hunk's old lines) is a run of"
    " the file's own lines that occurs once, so the patch applies; it is still checked first."
)

EDIT_EPILOG = """\
Examples:

  gramwright edit app.py -i "rename total to grand_total"        # the diff (dry run)

  gramwright edit app.py -i "..." --edit-format udiff --apply     # write, with backup

  gramwright undo                                                 # put it back

  gramwright edit app.py -i "..." --no-constrain --check          # the unmasked baseline

Exit codes: 0 the patch applies (or was applied), 1 it does not (nothing written), 2 usage
error or an unreadable file.
"""


class EditFormatChoice(StrEnum):
    search_replace = "search-replace"
    udiff = "udiff"


def register(app: typer.Typer) -> None:
    app.command("edit", help=HELP, epilog=EDIT_EPILOG)(edit_cmd)


def edit_cmd(
    files: list[Path] = typer.Argument(..., metavar="FILE...", help="The files the model may change."),
    instruction: str = typer.Option(
        ...,
        "--instruction",
        "-i",
        help="What to change.",
        callback=common.nonempty_option("--instruction", "what to change, e.g. -i 'Change PORT to 9000'"),
    ),
    edit_format: EditFormatChoice = typer.Option(
        EditFormatChoice.search_replace, "--edit-format", help="Patch format the model writes."
    ),
    model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
    max_tokens: int = typer.Option(512, "--max-tokens", min=1),
    max_replace_lines: int | None = typer.Option(
        None, "--max-replace-lines", min=0, help="At most N new lines per block (udiff: per run of + lines)."
    ),
    temperature: float = typer.Option(0.0, "--temperature", min=0.0, help="0 = greedy."),
    seed: int | None = typer.Option(None, "--seed"),
    no_constrain: bool = typer.Option(False, "--no-constrain", help="No masks (the baseline)."),
    check: bool = typer.Option(False, "--check", help="Only report whether the patch applies."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the diff it would write (default)."),
    apply: bool = typer.Option(False, "--apply", help="Write the files (all-or-nothing, with backup)."),
    accept_budget_close: bool = typer.Option(
        False,
        "--accept-budget-close",
        help="With --apply: write a patch the token budget closed early (its last blocks' new "
        "text may be cut).",
    ),
    root: Path | None = typer.Option(
        None, "--root", help="Project root (default: git top level, else cwd); undo uses the same."
    ),
    device: str = common.device_option(),
    threads: int | None = common.threads_option(),
    dtype: str = common.dtype_option(),
    fast_forward: bool = common.fast_forward_option(),
    fmt: str = common.format_option(),
    allow_broken_syntax: bool = typer.Option(
        False, "--allow-broken-syntax", help="Apply even if a file would no longer parse in its language."
    ),
) -> None:
    fmt = common.output_format(fmt, False)
    if sum((check, dry_run, apply)) > 1:
        common.fail("give at most one of --check, --dry-run, --apply")
    mode: Mode = "apply" if apply else "check" if check else "dry-run"
    from rich.console import Console

    from gramwright.engine.collector import frozen_after_cold_masks
    from gramwright.generation import Generator, SamplingOptions

    console = Console(stderr=True)
    with common.user_errors(), frozen_after_cold_masks():
        from gramwright.editors.generate.edit import generate_edit
        from gramwright.editors.patch.model import EditFormat

        if root is not None and not root.is_dir():
            common.fail(f"--root {root}: not a directory")
        with console.status("building the grammar…") as status:
            result = generate_edit(
                [str(f) for f in files],
                instruction,
                model=model,
                fmt=EditFormat(edit_format.value),
                root=root,
                constrain=not no_constrain,
                mode=mode,
                sampling=SamplingOptions(max_tokens=max_tokens, temperature=temperature, seed=seed),
                max_replace_lines=max_replace_lines,
                progress=lambda msg: status.update(msg),
                allow_broken_syntax=allow_broken_syntax,
                accept_budget_close=accept_budget_close,
                generator=Generator(model, device=device, threads=threads, dtype=dtype),
                fast_forward=fast_forward,
            )
    if fmt == "json":
        typer.echo(common.dump_json(result.as_dict()), nl=False)
    else:
        from gramwright.cli.render.edit import render_edit

        sys.stdout.write(render_edit(result))
    if not result.applicable or (mode == "apply" and not (result.applied and result.applied.applied)):
        raise typer.Exit(common.EXIT_FINDINGS)
