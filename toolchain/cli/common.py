"""What every command shares: the --debug switch, one-line errors, input reading."""

from __future__ import annotations

import json
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


def fail(message: str, hint: str = "", code: int = EXIT_USAGE) -> NoReturn:
    """Print one line (and a hint) on stderr and exit."""
    typer.echo(f"error: {message}", err=True)
    if hint:
        typer.echo(f"hint: {hint}", err=True)
    raise typer.Exit(code)


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
        one_line: Callable[[], str] | None = getattr(exc, "one_line", None)
        message = one_line() if one_line else f"{type(exc).__name__}: {exc}"
        fail(message)


def read_bytes(path: str) -> bytes:
    """Read a file, or stdin for ``-``; a missing file is a usage error naming the path."""
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.exists():
        fail(f"{path}: no such file")
    if p.is_dir():
        fail(f"{path}: is a directory, expected a file")
    return p.read_bytes()


def write_output(text: str, output: Path | None) -> None:
    """Write to stdout, or atomically to ``output`` (temp file + rename)."""
    if output is None:
        sys.stdout.write(text)
        return
    from gramwright.fsutil import atomic_write_text

    atomic_write_text(output, text)
    typer.echo(f"wrote {output}", err=True)


def dump_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
