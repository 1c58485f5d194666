"""The `gramwright` command: one Typer app, each command group in its own module.

Exit codes everywhere: 0 clean, 1 findings / rejected document / failed check, 2 usage or internal
error. Errors are one line on stderr (plus a hint); tracebacks only with ``--debug``.
"""

from __future__ import annotations

import sys

import typer

from gramwright.models.threads import passive_waiting

# before any command's module imports torch: its OpenMP runtime reads the wait policy once, as
# torch loads it (models/threads)
passive_waiting()

from gramwright.cli import common  # noqa: E402
from gramwright.cli.usage import GramwrightGroup  # noqa: E402

app = typer.Typer(
    name="gramwright",
    cls=GramwrightGroup,  # usage errors as one line, help reflowed, Ctrl-C named: cli/usage.py
    help=(
        "Make language-model output parseable by construction.\n\n"
        "Masks guarantee the *form* of an output (it belongs to the grammar); they never guarantee "
        "its *content* — validation and business rules do that."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    """``--version``: the version, whether local generation is installed, the embedded model, and which
    mask core runs (compiled or Python)."""
    if not value:
        return
    from gramwright.engine.native import core_line
    from gramwright.extras import installation

    typer.echo(installation().describe())
    typer.echo(core_line())
    raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    show_version: bool = typer.Option(
        False,
        "--version",
        callback=_version,
        is_eager=True,
        help=(
            "Print the version, whether local generation is installed, the embedded model and which mask"
            " core runs, then exit."
        ),
    ),
    max_input_mb: int | None = typer.Option(
        None,
        "--max-input-mb",
        min=1,
        help=(
            "Read at most this many MiB of any one input: a document, schema, grammar, patch, source"
            " text or JSONL file (default 64, or $GRAMWRIGHT_MAX_INPUT_MB). Example: gramwright"
            " --max-input-mb 256 check s.json big.json"
        ),
    ),
) -> None:
    from gramwright.readlimit import set_input_limit

    common.STATE.debug = debug
    set_input_limit(max_input_mb)


def _register() -> None:
    # Each module adds its commands to `app`; import order is the order in --help.
    from gramwright.cli import grammar_cmds

    grammar_cmds.register(app)
    for optional in (
        "lint_cmd",
        "snapshot_cmd",
        "conformance_cmd",
        "generate_cmd",
        "apply_cmd",
        "edit_cmd",
        "pipeline_cmds",
        "cache_cmds",
        "tui_cmd",
    ):
        try:
            module = __import__(f"gramwright.cli.{optional}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"gramwright.cli.{optional}":
                raise
            continue
        module.register(app)


_register()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except ModuleNotFoundError as exc:
        # a command outside `common.user_errors` that reached for the model stack in the light install
        missing = common.missing_extra(exc)
        if missing is exc or common.STATE.debug:
            raise
        print(f"error: {common.error_line(missing)}", file=sys.stderr)
        raise SystemExit(common.EXIT_USAGE) from None


if __name__ == "__main__":
    main()
