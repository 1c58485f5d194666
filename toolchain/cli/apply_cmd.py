"""`gramwright apply`, `undo`, `history`: patches from any model, checked, applied all-or-nothing.

A thin adapter over :mod:`gramwright.editors`: read the patch, call the core, print what
:mod:`gramwright.cli.render.apply` makes of its result.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from gramwright.cli import common

APPLY_EPILOG = """\
Examples:

  gramwright apply fix.patch --check          # per edit: exact / tolerant / failed (+ nearest lines)

  gramwright apply - --dry-run < reply.txt    # the unified diff it would write

  gramwright apply reply.txt --fuzzy          # accept tolerant matches (whitespace, CRLF, indent, quotes)

  gramwright apply fix.patch --format json    # the report as data (schema in docs/patches.md)

Formats (--edit-format, auto-detected by default): search-replace (aider's SEARCH/REPLACE
blocks), udiff (git / GNU / aider unified diffs), apply-patch (Codex's *** Begin Patch envelope).

A changed file that parsed before (Python, JSON; JavaScript, TypeScript, Go, Rust through
tree-sitter) must still parse after, or nothing is written: the report names the file and the
line of the first syntax error (--allow-broken-syntax writes it anyway).

Exit codes: 0 applied (with --check: every edit applies), 1 not applicable (nothing written),
2 usage error or a patch that cannot be parsed.
"""


class EditFormatChoice(StrEnum):
    auto = "auto"
    search_replace = "search-replace"
    udiff = "udiff"
    apply_patch = "apply-patch"


def register(app: typer.Typer) -> None:
    app.command(
        "apply",
        help="Check and apply a patch from any model, all-or-nothing, with backup.",
        epilog=APPLY_EPILOG,
    )(apply_cmd)
    app.command("undo", help="Restore the files of an apply (default: the latest) byte for byte.")(undo_cmd)
    app.command("history", help="List the applies in the backup journal.")(history_cmd)


def _root(root: Path | None) -> Path:
    from gramwright.editors import find_root

    if root is None:
        return find_root()
    if not root.is_dir():
        common.fail(f"--root {root}: not a directory")
    return root.resolve()


def _emit(data: dict[str, Any] | None, text: str, output_format: str) -> None:
    sys.stdout.write(common.dump_json(data) if output_format == "json" else text)


ROOT_OPTION = typer.Option(
    None, "--root", help="Project root; every path must stay inside it. Default: git top level, else cwd."
)


def apply_cmd(
    patch: str = typer.Argument(..., metavar="PATCH|-", help="The patch file ('-' reads standard input)."),
    root: Path | None = ROOT_OPTION,
    edit_format: EditFormatChoice = typer.Option(
        EditFormatChoice.auto, "--edit-format", help="Patch format."
    ),
    check: bool = typer.Option(False, "--check", help="Report per edit; write nothing."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the unified diff it would write; write nothing."
    ),
    fuzzy: bool = typer.Option(False, "--fuzzy", help="Accept tolerant (unique) matches too."),
    output_format: str = common.format_option(),
    allow_broken_syntax: bool = typer.Option(
        False, "--allow-broken-syntax", help="Apply even if a file would no longer parse in its language."
    ),
) -> None:
    output_format = common.output_format(output_format)
    with common.user_errors():
        from gramwright.cli.render import apply as render
        from gramwright.editors import apply_patch, check_patch, parse_patch, preview_diff

        raw = common.read_bytes(patch)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            common.fail(f"{patch}: the patch is not UTF-8 text (byte {exc.start})", "save the patch as UTF-8")
        base = _root(root)
        parsed = parse_patch(text, edit_format.value)
        if check or dry_run:
            report = check_patch(parsed, base, fuzzy=fuzzy, allow_broken_syntax=allow_broken_syntax)
            data = render.check_data(report)
            if dry_run and report.ok:
                diff = preview_diff(report)
                if output_format == "json":
                    _emit({**data, "diff": diff}, "", output_format)
                else:
                    sys.stdout.write(diff)
                    typer.echo(render.dry_run_line(report), err=True)
            else:
                _emit(data, render.render_report(report), output_format)
            if not report.ok:
                raise typer.Exit(common.EXIT_FINDINGS)
            return
        result = apply_patch(parsed, base, fuzzy=fuzzy, allow_broken_syntax=allow_broken_syntax)
        _emit(render.apply_data(result), render.render_apply(result), output_format)
        if not result.applied:
            raise typer.Exit(common.EXIT_FINDINGS)


def undo_cmd(
    entry_id: str | None = typer.Argument(
        None, metavar="[ID]", help="Journal entry (default: latest applied)."
    ),
    root: Path | None = ROOT_OPTION,
    output_format: str = common.format_option(),
) -> None:
    output_format = common.output_format(output_format)
    with common.user_errors():
        from gramwright.cli.render import apply as render
        from gramwright.editors import undo as undo_entry
        from gramwright.editors.patch.undo import UndoRefused

        try:
            result = undo_entry(_root(root), entry_id)
        except UndoRefused as exc:
            common.fail(exc.one_line(), code=common.EXIT_FINDINGS)
        _emit(render.undo_data(result), render.render_undo(result), output_format)


def history_cmd(root: Path | None = ROOT_OPTION, output_format: str = common.format_option()) -> None:
    output_format = common.output_format(output_format)
    with common.user_errors():
        from gramwright.cli.render import apply as render
        from gramwright.editors import history as journal_history

        items = journal_history(_root(root))
        _emit(render.history_data(items), render.render_history(items), output_format)
