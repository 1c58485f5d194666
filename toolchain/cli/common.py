"""What every command shares: the --debug switch, one-line errors, input reading, the
``--format`` option and its parse. How each command renders its result is :mod:`gramwright.cli.render`."""

from __future__ import annotations

import json
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer


@dataclass
class _State:
    debug: bool = False


STATE = _State()

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def fail(message: str, hint: str = "", code: int = EXIT_USAGE, context: str = "") -> NoReturn:
    """Print ``error: message — hint`` as one line on stderr (then ``context``, the caret lines of
    a syntax error, if any) and exit."""
    typer.echo(f"error: {message}" + (f" — {hint}" if hint else ""), err=True)
    if context:
        typer.echo(context.rstrip("\n"), err=True)
    raise typer.Exit(code)


def error_line(exc: BaseException) -> str:
    """What follows ``error:`` for any exception: a gramwright error's ``one_line()``; an OS error
    as ``file: reason`` (what a shell tool says); anything else with its type name."""
    one_line: Callable[[], str] | None = getattr(exc, "one_line", None)
    if one_line is not None:
        return one_line()
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return f"{type(exc).__name__}: {exc}"


def error_context(exc: BaseException) -> str:
    """The exception's ``get_context()`` (the offending line with a caret), or empty."""
    get_context: Callable[[], str] | None = getattr(exc, "get_context", None)
    if get_context is None:
        return ""
    try:
        return get_context()
    except TypeError:  # a foreign get_context that needs the text: we do not have it
        return ""


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn expected exceptions into one-line errors with exit 2; tracebacks only with --debug."""
    try:
        yield
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: every error becomes one line
        if STATE.debug:
            traceback.print_exc()
        fail(error_line(missing_extra(exc)), context=error_context(exc))


def missing_extra(exc: BaseException) -> BaseException:
    """A ``ModuleNotFoundError`` for torch, transformers, … (the light install) as the one error that
    names the extra to install; any other exception as it is."""
    from gramwright.extras import MissingExtraError, is_local_module, require_local

    if isinstance(exc, ModuleNotFoundError) and is_local_module(exc.name):
        try:
            require_local()
            # found, yet not importable (a broken install): name the one that failed
            require_local(missing=[str(exc.name).partition(".")[0]])
        except MissingExtraError as missing:
            return missing
    return exc


def read_bytes(path: str) -> bytes:
    """Read a file, or stdin for ``-``, up to the input limit (``readlimit``: an endless stream
    costs the limit, never more); a missing, unreadable or too large file is a usage error naming
    the path."""
    from gramwright.readlimit import InputTooLarge, read_limited, read_stream_limited

    try:
        if path == "-":
            return read_stream_limited(sys.stdin.buffer, "stdin")
        p = Path(path)
        if not p.exists():
            fail(f"{path}: no such file")
        if p.is_dir():
            fail(f"{path}: is a directory, expected a file")
        return read_limited(p)
    except InputTooLarge as exc:
        fail(exc.one_line())
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


def read_text(path: str, option: str) -> str:
    """A UTF-8 text file (or stdin for ``-``) for ``option``; bad UTF-8 is a usage error."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        where = "stdin" if path == "-" else path
        fail(f"{option} {where}: not valid UTF-8 at byte {exc.start}", "save the text as UTF-8")


def check_output(output: Path | None, *inputs: str) -> None:
    """Refuse an output path before any work is done: it is a file (or a new name, a symlink to
    one) or a stream (a pipe, a terminal, ``/dev/null``; ``fsutil.output_kind``), its folder
    exists, and it is not one of the command's inputs (the write would destroy the input)."""
    if output is None:
        return
    from gramwright.fsutil import STREAM, output_kind

    try:
        kind, target = output_kind(output)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")
    if kind == STREAM:
        return
    parent = target.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        fail(f"{output}: the folder {parent} {what}", "create the folder first, or write elsewhere")
    for source in inputs:
        if source != "-" and Path(source).exists() and _same_file(Path(source), output):
            fail(f"{output}: is the input file {source}", "write the output to another file")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return b.exists() and a.samefile(b)
    except OSError:
        return False


def write_output(text: str, output: Path | None) -> None:
    """Write to stdout, or atomically to ``output`` (temp file + rename); a failed write is one
    ``error:`` line with exit 2."""
    if output is None:
        sys.stdout.write(text)
        return
    from gramwright.fsutil import atomic_write_text

    try:
        atomic_write_text(output, text)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}")
    typer.echo(f"wrote {output}", err=True)


def dump_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


HUMAN_JSON = ("human", "json")


def format_option(choices: tuple[str, ...] = HUMAN_JSON, default: str = "human") -> Any:
    """The one ``--format/-f`` option every command takes, its help naming ``choices``; read its
    value with :func:`output_format` and the same ``choices``."""
    return typer.Option(default, "--format", "-f", help=" | ".join(choices))


def device_option() -> Any:
    """``--device``: where the model runs (``models/loader.resolve_device``). A name it can never
    take is refused as the command line is read, before any model loads; whether a GPU is there
    is the loader's to say."""
    return typer.Option(
        "auto", "--device", help="auto (CUDA when present) | cpu | cuda | cuda:N.", callback=_check_device
    )


def _check_device(device: str) -> str:
    if device in ("auto", "cpu", "cuda") or re.fullmatch(r"cuda:\d+", device):
        return device
    fail(f"unknown --device {device!r}", "use auto, cpu or cuda (cuda:N)")


def nonempty_option(option: str, what: str) -> Any:
    """A typer callback refusing an empty (or blank) text for ``option`` while the command line
    is read: a model asked to act on nothing would only be loaded to guess."""

    def check(value: str | None) -> str | None:
        if value is not None and not value.strip():
            fail(f"{option} is empty", f"give {what}")
        return value

    return check


def threads_option() -> Any:
    """``--threads``: torch's CPU threads (``models/threads``)."""
    return typer.Option(
        None,
        "--threads",
        min=1,
        help=(
            "torch CPU threads for every pass (default: OMP_NUM_THREADS, else cores - 1, and all cores "
            "while no other process needs them)."
        ),
    )


def dtype_option() -> Any:
    """``--dtype``: the model's weights and arithmetic (``models/loader.resolve_dtype``)."""
    return typer.Option(
        "auto",
        "--dtype",
        help="auto (float32 on a CPU, the checkpoint's on a GPU) | float32 | bfloat16 | float16. "
        "bfloat16 is faster on a GPU or an AMX CPU; outputs then may differ from step-by-step decoding.",
    )


def fast_forward_option() -> Any:
    """``--fast-forward/--no-fast-forward``: text the grammar forces appended without sampling."""
    return typer.Option(
        True,
        "--fast-forward/--no-fast-forward",
        help="Feed text the grammar forces in one forward pass (default on; greedy decoding keeps "
        "only what the model would have chosen, so its output is step-by-step decoding's).",
    )


def json_option() -> Any:
    """``--json``, kept as an alias of ``--format json`` where a command had it."""
    return typer.Option(False, "--json", help="Same as --format json.")


def output_format(fmt: str, as_json: bool = False, choices: tuple[str, ...] = HUMAN_JSON) -> str:
    """The ``--format`` value, with ``--json`` kept as an alias; anything else is a usage error."""
    if as_json:
        return "json"
    if fmt not in choices:
        fail(f"unknown --format {fmt!r}", f"use one of: {' | '.join(choices)}")
    return fmt
