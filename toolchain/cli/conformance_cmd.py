"""`gramwright conformance`: the schema compiler measured on a test suite or a schema corpus.

What it prints is :mod:`gramwright.cli.render.conformance`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from gramwright.cli import common

HELP = """Compile every schema under PATH and check each test instance with the recognizer.

PATH is a JSON-Schema-Test-Suite draft folder (core files; --optional adds optional/) or a
JSONSchemaBench split folder (files with "schema" and "tests"), or one such file.

Each case is: pass, false_negative (valid instance rejected), false_positive_reported (invalid
instance accepted, and the compile report names an approximated/discarded keyword on its path),
false_positive_silent (accepted with nothing reported), refused (compile error with a reason) or
error (crash or timeout). Exit 1 when any case is false_negative, false_positive_silent or error.

Examples:

  gramwright conformance ../shared/data/json-schema-test-suite/tests/draft2020-12

  gramwright conformance ../shared/data/jsonschemabench/Github_easy --format json --details cases.jsonl
"""


def register(app: typer.Typer) -> None:
    app.command("conformance", help=HELP)(conformance_cmd)


def conformance_cmd(
    path: Path = typer.Argument(..., help="A test-suite draft folder, a JSONSchemaBench split, or a file."),
    fmt: str = common.format_option(),
    as_json: bool = common.json_option(),
    details: Path | None = typer.Option(None, "--details", help="Write one JSON line per case here."),
    optional: bool = typer.Option(False, "--optional", help="Include the suite's optional/ files."),
    timeout: float = typer.Option(10.0, "--timeout", help="Seconds per schema compile / per case."),
) -> None:
    from gramwright.cli.render.conformance import details_jsonl, render_human
    from gramwright.schema.conformance import run_conformance

    as_json = common.output_format(fmt, as_json) == "json"
    if not path.exists():
        common.fail(f"{path}: no such file or directory")
    with common.user_errors():
        progress = _progress() if sys.stderr.isatty() else None
        result = run_conformance(path, optional=optional, timeout_s=timeout, progress=progress)
        summary = result.summary()
        if details is not None:
            common.write_output(details_jsonl(result), details)
    sys.stdout.write(common.dump_json(summary) if as_json else render_human(summary))
    bad = summary["false_negative"] + summary["false_positive_silent"] + summary["error"]
    raise typer.Exit(common.EXIT_FINDINGS if bad else common.EXIT_OK)


def _progress() -> Any:
    def show(done: int, total: int) -> None:
        if done == total or done % 25 == 0:
            sys.stderr.write(f"\r{done}/{total} schemas")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    return show
