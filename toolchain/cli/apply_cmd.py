"""`gramwright apply`, `undo`, `history`: patches from any model, checked, applied all-or-nothing.

A thin adapter over :mod:`gramwright.editors`: read the patch, call the core, render its report.
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

Exit codes: 0 applied (with --check: every edit applies), 1 not applicable (nothing written),
2 usage error or a patch that cannot be parsed.
"""


class OutputFormat(StrEnum):
    human = "human"
    json = "json"


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
    )(apply)
    app.command("undo", help="Restore the files of an apply (default: the latest) byte for byte.")(undo)
    app.command("history", help="List the applies in the backup journal.")(history)


def _root(root: Path | None) -> Path:
    from gramwright.editors import find_root

    if root is None:
        return find_root()
    if not root.is_dir():
        common.fail(f"--root {root}: not a directory")
    return root.resolve()


def _emit(data: dict[str, Any] | None, text: str, output_format: OutputFormat) -> None:
    sys.stdout.write(common.dump_json(data) if output_format is OutputFormat.json else text)


ROOT_OPTION = typer.Option(
    None, "--root", help="Project root; every path must stay inside it. Default: git top level, else cwd."
)
FORMAT_OPTION = typer.Option(OutputFormat.human, "--format", "-f", help="Output format.")


def apply(
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
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    with common.user_errors():
        from gramwright.cli.apply_render import render_report
        from gramwright.editors import apply_patch, check_patch, parse_patch, preview_diff

        raw = common.read_bytes(patch)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            common.fail(f"{patch}: the patch is not UTF-8 text (byte {exc.start})", "save the patch as UTF-8")
        base = _root(root)
        parsed = parse_patch(text, edit_format.value)
        if check or dry_run:
            report = check_patch(parsed, base, fuzzy=fuzzy)
            data = {**report.as_dict(), "applied": False, "backup_id": None}
            if dry_run and report.ok:
                diff = preview_diff(report)
                if output_format is OutputFormat.json:
                    _emit({**data, "diff": diff}, "", output_format)
                else:
                    sys.stdout.write(diff)
                    typer.echo(render_report(report).rstrip("\n").splitlines()[-1] + " (dry run)", err=True)
            else:
                _emit(data, render_report(report), output_format)
            if not report.ok:
                raise typer.Exit(common.EXIT_FINDINGS)
            return
        result = apply_patch(parsed, base, fuzzy=fuzzy)
        data = {**result.report.as_dict(), "applied": result.applied, "backup_id": result.entry_id}
        text_out = render_report(result.report)
        if result.applied:
            if result.entry_id:
                text_out += f"applied: {len(result.written)} file(s) written; backup {result.entry_id}"
                text_out += f" (undo: gramwright undo {result.entry_id})\n"
            else:
                text_out += "applied: the files already had this content; nothing written\n"
        _emit(data, text_out, output_format)
        if not result.applied:
            raise typer.Exit(common.EXIT_FINDINGS)


def undo(
    entry_id: str | None = typer.Argument(
        None, metavar="[ID]", help="Journal entry (default: latest applied)."
    ),
    root: Path | None = ROOT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    with common.user_errors():
        from gramwright.editors import undo as undo_entry
        from gramwright.editors.patch.undo import UndoRefused

        try:
            result = undo_entry(_root(root), entry_id)
        except UndoRefused as exc:
            common.fail(exc.one_line(), code=common.EXIT_FINDINGS)
        text = f"undone {result.entry.id}: restored " + ", ".join(result.restored) + "\n"
        _emit({"entry": result.entry.as_dict(), "restored": list(result.restored)}, text, output_format)


def history(root: Path | None = ROOT_OPTION, output_format: OutputFormat = FORMAT_OPTION) -> None:
    with common.user_errors():
        from gramwright.cli.apply_render import render_history
        from gramwright.editors import history as journal_history

        items = journal_history(_root(root))
        _emit({"entries": [e.as_dict() for e in items]}, render_history(items), output_format)
