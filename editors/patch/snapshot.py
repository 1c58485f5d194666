"""A file read once: its bytes, encoding, newline style, final newline, mode and content hash.

Everything after the read works on the snapshot, and the writer re-checks the hash just before it
replaces the file, so a file that changed in between is refused instead of overwritten. Binary
files and files that are not valid in their detected encoding are refused here, with one line,
so nothing downstream can rewrite them.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gramwright.editors.patch.model import line_ending, split_lines
from gramwright.errors import PatchError

__all__ = ["FileSnapshot", "decode_file", "read_snapshot", "sha256"]

# A byte-order mark decides the encoding (and is written back); without one, UTF-8.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# git's own test for "binary": a NUL byte in the first 8,000 bytes (xdiff's buffer_is_binary)
_BINARY_PROBE = 8000


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileSnapshot:
    """One file as read. ``lines`` keep their terminators; ``text`` is the decoded content."""

    path: str
    data: bytes
    encoding: str
    bom: bytes
    text: str
    lines: tuple[str, ...]
    newline: str  # "lf" | "crlf" | "mixed" | "none" (no line terminator at all)
    final_newline: bool
    sha256: str
    mode: int

    @property
    def preferred_ending(self) -> str:
        """The terminator new lines get when the patch's own cannot be kept: the file's majority."""
        crlf = sum(1 for line in self.lines if line.endswith("\r\n"))
        lf = sum(1 for line in self.lines if line.endswith("\n")) - crlf
        return "\r\n" if crlf > lf else "\n"

    def encode(self, text: str) -> bytes:
        """``text`` in this file's encoding, with its byte-order mark if it had one."""
        return self.bom + text.encode(self.encoding)


def _newline_style(lines: tuple[str, ...]) -> str:
    endings = {line_ending(line) for line in lines} - {""}
    if not endings:
        return "none"
    if len(endings) > 1:
        return "mixed"
    return "crlf" if endings == {"\r\n"} else "lf"


def decode_file(path: str, data: bytes, mode: int = 0o644) -> FileSnapshot:
    """Decode ``data`` into a snapshot, or raise :class:`PatchError` for binary / undecodable files."""
    bom, encoding = b"", "utf-8"
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encoding = mark, name
            break
    body = data[len(bom) :]
    if not bom and b"\0" in body[:_BINARY_PROBE]:
        raise PatchError(
            "binary file (a NUL byte in its first 8,000 bytes): refused, never rewritten",
            where=path,
            hint="edit binary files with another tool; patches here change text files only",
        )
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        raise PatchError(
            f"not valid {encoding} (byte {exc.start + len(bom)}: {exc.reason}): refused, never rewritten",
            where=f"{path}:{line}",
            hint="convert the file to UTF-8 first, or edit it with a tool that knows its encoding",
        ) from None
    lines = split_lines(text)
    return FileSnapshot(
        path=path,
        data=data,
        encoding=encoding,
        bom=bom,
        text=text,
        lines=lines,
        newline=_newline_style(lines),
        final_newline=bool(lines) and lines[-1].endswith("\n"),
        sha256=sha256(data),
        mode=mode,
    )


def read_snapshot(path: str, real: Path) -> FileSnapshot:
    """Read the file at ``real`` (already checked to be inside the root) as ``path``."""
    try:
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode):
            raise PatchError(
                "not a regular file", where=path, hint="patches edit regular files; check the path"
            )
        data = real.read_bytes()
    except OSError as exc:
        raise PatchError(
            f"cannot read: {exc.strerror}", where=path, hint="check the path and its permissions"
        ) from None
    return decode_file(path, data, stat.S_IMODE(st.st_mode))
