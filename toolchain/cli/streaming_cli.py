"""The CLI side of streaming (``generate --stream``, ``extract --stream``, ``check --stream``):
reading stdin as it arrives and picking exit codes; the events are the core's
(:mod:`gramwright.streaming`), printed by :mod:`gramwright.cli.render.stream`."""

from __future__ import annotations

import sys
from typing import IO, Any

from gramwright.cli import common

# Exit code for a run the user interrupted (Ctrl-C): the shell's 128 + SIGINT
EXIT_INTERRUPTED = 130
# ``check --stream`` reads what is there, up to this much at a time, without waiting for more
CHUNK = 65536


def generate_exit(result: Any) -> int:
    """0 ok, 1 not ok or stopped by the timeout (no result)."""
    return common.EXIT_OK if result is not None and result.ok else common.EXIT_FINDINGS


def check_stream(loaded: Any, *, exact: bool, fmt: str, stdin: IO[bytes] | None = None) -> int:
    """Read stdin as it arrives; report where it stands after each piece read, the first byte
    that can never complete the moment it is read, and the whole-document verdict at the end.
    Exit 0 only when the stream ended complete and valid."""
    from gramwright.cli.render import stream as render
    from gramwright.readlimit import InputTooLarge, input_limit
    from gramwright.streaming.check import StreamCheck

    reader = stdin or sys.stdin.buffer
    flexible = None
    if loaded.is_schema and loaded.whitespace == "compact":

        def flexible() -> Any:
            return loaded.with_whitespace("flexible")

    check = StreamCheck(loaded, exact=exact, flexible=flexible)
    # read1: whatever the pipe holds now (a plain read would wait for 64 KiB or the end)
    read1 = getattr(reader, "read1", reader.read)
    limit, seen = input_limit(), 0
    while piece := read1(CHUNK):
        seen += len(piece)
        if seen > limit:  # an endless stream is read up to the limit, never more
            raise InputTooLarge("stdin", limit, "document")
        rejected = check.feed(piece)
        if rejected is not None:
            render.check_rejected(rejected, fmt)
        elif check.rejected is None:
            render.check_progress(check.progress(), fmt)
    early = check.rejected
    verdict = check.end()
    if early is None and check.rejected is not None:  # a lone final "\r": known only now
        early = check.rejected
        render.check_rejected(early, fmt)
    render.check_end(verdict, fmt, reported=early is not None)
    return common.EXIT_OK if verdict.accepted else common.EXIT_FINDINGS
