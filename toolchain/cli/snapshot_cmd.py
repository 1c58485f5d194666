"""`gramwright snapshot`: check (or update) the snapshots of a project's grammars, for CI.

Thin: discovery, comparison and meaning are :mod:`gramwright.snapshot`; this module parses the
options, and :mod:`gramwright.cli.render.snapshot` renders the
:class:`~gramwright.snapshot.SnapshotRun` as text (JSON: its ``to_dict``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from gramwright.cli import common

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


def register(app: typer.Typer) -> None:
    app.command(
        "snapshot",
        help="Snapshot-test grammars: compile every schema/grammar and compare with the stored snapshots.",
        epilog=EPILOG,
    )(snapshot_cmd)


def snapshot_cmd(
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
    fmt: str = common.format_option(),
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
        from gramwright.cli.render.snapshot import render_human

        sys.stdout.write(render_human(run))
    raise typer.Exit(common.EXIT_FINDINGS if run.failed else common.EXIT_OK)
