"""The CLI side of streaming: NDJSON events on stdout, one JSON object per line, flushed as each
happens (``generate --stream``, ``extract --stream``, ``check --stream``). The events are the
core's (:mod:`gramwright.streaming`); this module only writes them and picks the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

import typer

from gramwright.cli import common

# Exit code for a run the user interrupted (Ctrl-C): the shell's 128 + SIGINT
EXIT_INTERRUPTED = 130
# ``check --stream`` reads what is there, up to this much at a time, without waiting for more
CHUNK = 65536


def write_event(event: dict[str, Any], out: IO[str] | None = None) -> None:
    out = out or sys.stdout
    out.write(json.dumps(event, ensure_ascii=False) + "\n")
    out.flush()


def with_fields(**fields: Any) -> Callable[[dict[str, Any]], None]:
    """An emitter that adds ``fields`` (an extract row's id) in front of every event."""

    def emit(event: dict[str, Any]) -> None:
        write_event({**fields, **event})

    return emit


def generate_exit(result: Any) -> int:
    """0 ok, 1 not ok or timed out (no result)."""
    return common.EXIT_OK if result is not None and result.ok else common.EXIT_FINDINGS


def check_stream(loaded: Any, *, exact: bool, fmt: str, stdin: IO[bytes] | None = None) -> int:
    """Read stdin as it arrives; report where it stands after each piece read, the first byte
    that can never complete the moment it is read, and the whole-document verdict at the end.
    Exit 0 only when the stream ended complete and valid."""
    from gramwright.streaming.check import StreamCheck

    reader = stdin or sys.stdin.buffer
    flexible = None
    if loaded.is_schema and loaded.whitespace == "compact":

        def flexible() -> Any:
            return loaded.with_whitespace("flexible")

    check = StreamCheck(loaded, exact=exact, flexible=flexible)
    read1 = getattr(reader, "read1", reader.read)
    while True:
        piece = read1(CHUNK)
        if not piece:
            break
        rejected = check.feed(piece)
        if rejected is not None:
            _say_rejected(rejected, fmt)
        elif check.rejected is None:
            p = check.progress()
            if fmt == "json":
                write_event(p.to_dict())
            else:
                typer.echo(f"{p.state} so far: {p.offset} bytes (line {p.line}:{p.column})", err=True)
    early = check.rejected
    verdict = check.end()
    if early is None and check.rejected is not None:  # a lone final "\r": known only now
        early = check.rejected
        _say_rejected(early, fmt)
    if fmt == "json":
        write_event({"event": "end", **verdict.to_dict()})
    elif early is None:
        typer.echo(verdict.message, err=True)
    elif verdict.note:
        typer.echo(f"note: {verdict.note}", err=True)
    return common.EXIT_OK if verdict.accepted else common.EXIT_FINDINGS


def _say_rejected(verdict: Any, fmt: str) -> None:
    if fmt == "json":
        write_event({"event": "rejected", **verdict.to_dict()})
    else:
        typer.echo(verdict.message, err=True)
