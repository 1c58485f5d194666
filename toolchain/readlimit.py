"""How much of one input gramwright reads: a document, a schema (and every file its ``$ref``s
reach), a grammar, a patch, a source text, a JSONL file of rows, stdin.

Everything gramwright checks is held in memory whole (the parsers, the compiler and the
recognizer all want the text), so an input without an end — ``/dev/urandom``, a pipe that never
closes — would grow the process until the machine runs out of memory. Every reader goes through
:func:`read_limited`, which reads at most the limit plus one byte (so an endless stream costs the
limit, never more) and refuses an input past it in one line naming the limit and how to raise it.

The limit is 64 MiB unless the ``--max-input-mb`` option (before the command) or the
``GRAMWRIGHT_MAX_INPUT_MB`` environment variable says otherwise. 64 MiB is far past any real
schema or patch (the largest JSONSchemaBench schema is well under 1 MiB) and leaves room for big
JSON documents and extraction inputs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from gramwright.errors import GramwrightError

__all__ = [
    "DEFAULT_LIMIT_MB",
    "ENV",
    "FLAG",
    "InputTooLarge",
    "input_limit",
    "read_limited",
    "read_stream_limited",
    "set_input_limit",
]

DEFAULT_LIMIT_MB = 64
ENV = "GRAMWRIGHT_MAX_INPUT_MB"
FLAG = "--max-input-mb"
_CHUNK = 1 << 20
_override_mb: int | None = None


class InputTooLarge(GramwrightError):
    """An input past the read limit (``limit`` in bytes)."""

    def __init__(self, where: str, limit: int, what: str = "input") -> None:
        self.limit = limit
        mb = limit // (1 << 20)
        super().__init__(
            f"the {what} is larger than gramwright reads ({mb} MiB)",
            where=where,
            hint=f"raise the limit: gramwright {FLAG} {mb * 4} <command> …, or {ENV}={mb * 4}",
        )


def set_input_limit(mb: int | None) -> None:
    """Set the limit for this process in MiB (``None``: back to the environment or the default)."""
    global _override_mb
    if mb is not None and mb < 1:
        raise ValueError(f"{FLAG} is at least 1 (MiB), not {mb}")
    _override_mb = mb


def input_limit() -> int:
    """The limit in bytes: :func:`set_input_limit`'s, else ``$GRAMWRIGHT_MAX_INPUT_MB``, else 64 MiB."""
    if _override_mb is not None:
        return _override_mb << 20
    configured = os.environ.get(ENV, "").strip()
    if configured:
        try:
            mb = int(configured)
        except ValueError:
            raise GramwrightError(
                f"{ENV}={configured!r} is not a whole number of MiB", hint=f"unset it or give e.g. {ENV}=256"
            ) from None
        if mb >= 1:
            return mb << 20
    return DEFAULT_LIMIT_MB << 20


def read_stream_limited(fh: BinaryIO, where: str, what: str = "input") -> bytes:
    """Everything ``fh`` holds, read up to the limit (stdin, a pipe, a device, a file)."""
    limit = input_limit()
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        piece = fh.read(min(_CHUNK, limit + 1 - size))
        if not piece:
            return b"".join(parts)
        parts.append(piece)
        size += len(piece)
    raise InputTooLarge(where, limit, what)


def read_limited(path: str | Path, what: str = "input") -> bytes:
    """The bytes of the file at ``path``, up to the limit; ``OSError`` as ``open`` raises it."""
    limit = input_limit()
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    if size > limit:  # a regular file says its size: refused without reading a byte
        raise InputTooLarge(str(path), limit, what)
    with open(path, "rb") as fh:
        return read_stream_limited(fh, str(path), what)
