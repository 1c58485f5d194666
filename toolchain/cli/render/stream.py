"""How the streamed commands print (``generate --stream``, ``extract --stream``, ``check
--stream``): NDJSON on stdout, one JSON object per line, flushed as each event happens; for
``check --stream --format human``, the verdict lines on stderr as ``check`` prints them."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from gramwright.checking import CheckResult
    from gramwright.streaming.check import StreamProgress


def write_event(event: dict[str, Any], out: IO[str] | None = None) -> None:
    out = out or sys.stdout
    out.write(json.dumps(event, ensure_ascii=False) + "\n")
    out.flush()


def with_fields(**fields: Any) -> Callable[[dict[str, Any]], None]:
    """An emitter that puts ``fields`` (an extract row's id) in front of every event."""

    def emit(event: dict[str, Any]) -> None:
        write_event({**fields, **event})

    return emit


def check_progress(progress: StreamProgress, fmt: str) -> None:
    if fmt == "json":
        write_event(progress.to_dict())
    else:
        p = progress
        typer.echo(f"{p.state} so far: {p.offset} bytes (line {p.line}:{p.column})", err=True)


def check_rejected(verdict: CheckResult, fmt: str) -> None:
    if fmt == "json":
        write_event({"event": "rejected", **verdict.to_dict()})
    else:
        typer.echo(verdict.message, err=True)


def check_end(verdict: CheckResult, fmt: str, *, reported: bool) -> None:
    """The whole-document verdict; in human form only what was not said yet (``reported``: the
    rejection was printed when it happened, so only its diagnosis note is left)."""
    if fmt == "json":
        write_event({"event": "end", **verdict.to_dict()})
    elif not reported:
        typer.echo(verdict.message, err=True)
    elif verdict.note:
        typer.echo(f"note: {verdict.note}", err=True)
