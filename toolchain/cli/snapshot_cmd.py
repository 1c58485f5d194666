"""`gramwright snapshot`: check (or update) the snapshots of a project's grammars, for CI.

Thin: discovery, comparison and meaning are :mod:`gramwright.snapshot`; this module parses the
options and renders a :class:`~gramwright.snapshot.SnapshotRun` as text or JSON.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gramwright.cli import common

if TYPE_CHECKING:
    from gramwright.snapshot import SnapshotRun

EPILOG = """\
Examples:

  gramwright snapshot --update                  # write grammar-snapshots/ for schemas/ and grammars/

  gramwright snapshot                           # check: exit 1 with a diff and the reason on drift

  gramwright snapshot 'api/**/*.schema.json' --dir tests/grammar-snapshots --targets lark,vllm-request

  gramwright snapshot --format json | jq '.results[] | select(.status != "match")'

Settings may live in pyproject.toml, in the table tool.gramwright.snapshot:

  paths = ["schemas"]
  dir = "grammar-snapshots"
  targets = ["lark"]

With CI set in the environment (or --ci) nothing is ever written.
Exit codes: 0 every snapshot matches (or was updated), 1 a snapshot changed, is new or orphaned,
or a source does not compile, 2 usage error.
"""

_WORD = {
    "source": "the source changed",
    "compiler": "the compiler changed (same source)",
    "both": "the source and the compiler changed",
    "targets": "the export targets changed",
}


def register(app: typer.Typer) -> None:
    app.command(
        "snapshot",
        help="Snapshot-test grammars: compile every schema/grammar and compare with the stored snapshots.",
        epilog=EPILOG,
    )(snapshot)


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))


def render_human(run: SnapshotRun) -> str:
    """The run as text: one line per source that is not a plain match, its changes and its diff."""
    out: list[str] = []
    for r in run.results:
        if r.status == "match" and not r.note:
            continue
        head = f"{r.status:<9}{r.source}"
        if r.status == "changed":
            head += f" — {_WORD.get(r.reason, r.reason)}"
            if r.stored_version and r.stored_version != r.version:
                head += f" (snapshot by gramwright {r.stored_version}, now {r.version})"
            if r.direction:
                head += f"; the language {'changed' if r.direction == 'changed' else 'is ' + r.direction}"
        elif r.status == "new":
            head += " — no snapshot yet"
        elif r.status == "orphaned":
            head += f" — {r.snapshot}: {r.note}"
        elif r.status == "error":
            head += f" — {r.error}"
        if r.written:
            head += " [deleted]" if r.status == "orphaned" else " [written]"
        out.append(head)
        if r.note and r.status in ("match", "changed"):
            out.append(f"    note: {r.note}")
        for change in r.changes:
            out.append(f"    {change.direction:<9}{change.pointer or '/'}: {change.what}")
        if r.diff and r.status == "changed" and not run.update:
            out.append(_indent(r.diff).rstrip("\n"))
    counts = run.counts()
    total = sum(n for k, n in counts.items() if k != "orphaned")
    parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    out.append(
        f"{total} source{'s' if total != 1 else ''}: {parts or 'nothing found'} (snapshots in {run.dir})"
    )
    if run.failed and not run.update:
        out.append("to accept these changes: gramwright snapshot --update (then review and commit the files)")
    return "\n".join(out) + "\n"


def snapshot(
    paths: list[str] = typer.Argument(
        None,
        metavar="PATH",
        help="Schema/grammar files, folders or globs (default: pyproject or schemas/).",
        show_default=False,
    ),
    directory: str | None = typer.Option(
        None, "--dir", "-d", help="Snapshot folder (default: pyproject's dir, else grammar-snapshots/)."
    ),
    update: bool = typer.Option(
        False, "--update", "-u", help="Write new and changed snapshots, delete orphans."
    ),
    targets: str | None = typer.Option(
        None,
        "--targets",
        "-t",
        help="Exports to keep beside the GBNF, comma-separated (lark,vllm-request,…).",
    ),
    fmt: str = typer.Option("human", "--format", "-f", help="human | json"),
    ci: bool = typer.Option(False, "--ci", help="Never write (also when CI is set in the environment)."),
) -> None:
    fmt = common.output_format(fmt)
    with common.user_errors():
        from gramwright.snapshot import in_ci, load_config, run_snapshots

        wanted = None if targets is None else [t.strip() for t in targets.split(",") if t.strip()]
        config = load_config(Path.cwd(), paths or (), directory, wanted)
        run = run_snapshots(config, update=update, ci=ci or in_ci())
    if not run.results:  # a CI gate that checks nothing must not pass silently
        where = ", ".join(config.relative(Path(p)) for p in config.paths)
        common.fail(
            f"no schemas or grammars found in {where}",
            "give PATHs, or set paths in [tool.gramwright.snapshot] in pyproject.toml",
        )
    if fmt == "json":
        sys.stdout.write(common.dump_json(run.to_dict()))
    else:
        sys.stdout.write(render_human(run))
    raise typer.Exit(common.EXIT_FINDINGS if run.failed else common.EXIT_OK)
