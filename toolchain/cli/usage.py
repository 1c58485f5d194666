"""The command group every gramwright command runs under: usage errors, help text and Ctrl-C,
each handled once here instead of in each command.

* A usage error (a bad option value, an unknown option, a missing argument) is one ``error:``
  line naming the command and the option, with a hint to ``--help`` — not Typer's boxed
  multi-line panel — and exit 2, as every other gramwright error.
* Help prose is reflowed: a paragraph written across several source lines becomes one line that
  the help renderer wraps to the terminal, so help never breaks where the source did. Indented
  lines (examples) and ``\\b`` blocks keep their line breaks.
* Ctrl-C says which command was cancelled and exits 130 (Typer turns it into a bare exit 130).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _click_class(name: str) -> type[Exception]:
    # Typer ships its own copy of click from 0.20 on (plain click before): take the classes its
    # own exceptions derive from, whichever it is.
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


ClickException = _click_class("ClickException")
UsageError = _click_class("UsageError")


def usage_line(exc: Exception) -> str:
    """``gramwright lint: --format: 'xml' is not one of 'human', 'json', 'sarif'. — see
    'gramwright lint --help'``: the command, the option at fault, the reason, where to look."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "gramwright"
    kind = type(exc).__name__
    message = str(getattr(exc, "message", "") or exc)
    message = message.removeprefix("Value error, ")  # how Typer's validation words a bad value
    name = _param_name(getattr(exc, "param", None))
    if kind == "MissingParameter":
        message = f"missing {name}" if name else message
    elif kind == "BadParameter" and name:
        message = f"{name}: {_lower_first(message)}"
    message = _lower_first(" ".join(message.split()))  # one line, whatever the parser wrote
    return f"{command}: {message} — see '{command} --help'"


def _lower_first(text: str) -> str:
    """``Input should be`` → ``input should be`` (an error line reads as one sentence)."""
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def _param_name(param: Any) -> str:
    """``--format`` for an option (its long name), ``SCHEMA`` for an argument."""
    if param is None:
        return ""
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")] or list(getattr(param, "opts", []))
    if getattr(param, "param_type_name", "") == "argument":
        return f"argument {(getattr(param, 'name', '') or '').upper()}"
    return max(opts, key=len) if opts else str(getattr(param, "name", ""))


def reflow(text: str | None) -> str | None:
    """Join the lines of each prose paragraph (so the renderer wraps them to the terminal); a
    paragraph with an indented line or a ``\\b`` marker is kept as written."""
    if not text:
        return text
    paragraphs = text.split("\n\n")
    out = []
    for para in paragraphs:
        lines = para.split("\n")
        keep = para.lstrip().startswith("\b") or any(line[:1] in (" ", "\t") for line in lines[1:])
        out.append(para if keep else " ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def _reflow_tree(command: Any) -> None:
    command.help = reflow(command.help)
    if getattr(command, "short_help", None):
        command.short_help = reflow(command.short_help)
    for sub in getattr(command, "commands", {}).values():
        _reflow_tree(sub)


class GramwrightGroup(TyperGroup):
    """The root group (``typer.Typer(cls=GramwrightGroup)``)."""

    def main(  # type: ignore[override]  # same call as click's, keyword-compatible
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        _reflow_tree(self)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                exc.show()  # type: ignore[attr-defined]  # the help text itself, as Typer shows it
                sys.exit(getattr(exc, "exit_code", EXIT_USAGE))
            typer.echo(f"error: {usage_line(exc)}", err=True)
            sys.exit(getattr(exc, "exit_code", EXIT_USAGE))
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        # without standalone mode a command's exit code comes back as the return value
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:  # click's Context (Typer vendors its own copy of click)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            name = ctx.invoked_subcommand
            what = f"gramwright {name}" if name else "gramwright"
            typer.echo(f"\n{what}: cancelled (Ctrl-C)", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
