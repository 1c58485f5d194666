"""Atomic file writes (nothing is lost if the process dies half-way: temp file + fsync + rename),
and where gramwright keeps its on-disk cache.

The temp file comes from ``mkstemp``, which creates it with mode 0600 (private, so no other user
can read a half-written file). Before the rename it gets the mode the file would have had from a
plain ``open(path, "w")``: an existing file keeps its mode, a new one gets ``0o666 & ~umask`` —
otherwise every file written with ``-o`` would be readable by its owner only.

Only a regular file is ever replaced. Run as root (Docker, CI) a rename would just as happily put
a regular file where ``/dev/full`` or a user's named pipe was, so an output that is a character
device or a pipe is written as a stream, a symlink is followed to its target (the link stays a
link), and a directory or any other special file is refused (:func:`output_kind`).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

__all__ = [
    "CACHE_ENV",
    "FILE",
    "STREAM",
    "atomic_write_bytes",
    "atomic_write_text",
    "cache_root",
    "current_umask",
    "is_stream",
    "output_kind",
]

CACHE_ENV = "GRAMWRIGHT_CACHE"

# a stream is written in place (opened for writing, never replaced): a terminal, /dev/null, a pipe
STREAM = "stream"
# a regular file, or a name that does not exist yet: written atomically (temp file + rename)
FILE = "file"


def cache_root() -> Path:
    """The one cache root every store lives under (mask stores in ``masks/``, model conversions in
    ``models/``): ``$GRAMWRIGHT_CACHE`` (``~`` expanded), else ``~/.cache/gramwright``. Per user,
    not per virtualenv: every environment shares what another already computed."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "gramwright"


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux: /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # os.umask can only be read by setting it; set it straight back (a brief, process-wide window)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """The one writer for every path gramwright writes whole (``-o``, ``--details``, exports,
    ``lint --baseline``, snapshots, the TUI's saves, the caches), by :func:`output_kind`: a file
    is written atomically; a stream is opened and written (``/dev/full`` fails here with ENOSPC,
    as it must); anything else is refused. Raises ``OSError`` (a one-line ``strerror``)."""
    kind, target = output_kind(path)
    if kind == STREAM:
        with open(target, "ab") as fh:  # "a": our stdout redirected to a file keeps what it has
            fh.write(data)
            fh.flush()
        return
    _replace_atomically(target, data)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _replace_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~current_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def output_kind(path: Path) -> tuple[str, Path]:
    """How an output ``path`` is written, and the path to write: ``(FILE, target)`` for a regular
    file or a new name, ``(STREAM, path)`` for a character device, a pipe (FIFO), or our own
    stdout/stderr. A symlink is followed: its target is what gets written, by the same rules (a
    dangling link's target is created, as ``open(path, "w")`` would). A directory, a block device,
    a socket — anything else — is refused with an ``OSError`` whose ``strerror`` is one line saying
    what the path is, so a caller's ``cannot write: …`` line names it; nothing is touched."""
    path = Path(path)
    try:
        st = os.stat(path)  # follows links, /proc's magic ones (/dev/stdout) included
    except (FileNotFoundError, NotADirectoryError):  # a new name (its folder is checked by the caller)
        return FILE, Path(os.path.realpath(path)) if os.path.islink(path) else path
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or _is_own_stdio(st):
        # our stdout redirected to a file (-o /dev/stdout > out.txt) is a stream too: replacing
        # it would orphan the file the shell opened, and whatever else went to stdout
        return STREAM, path
    if stat.S_ISREG(mode):
        return FILE, Path(os.path.realpath(path)) if os.path.islink(path) else path
    if stat.S_ISDIR(mode):  # OSError(EISDIR, …) is an IsADirectoryError
        raise OSError(errno.EISDIR, "is a directory; give a file path, a pipe or a terminal")
    raise OSError(errno.EINVAL, f"is not a regular file ({_kind_name(mode)}); give a file path")


def is_stream(path: Path) -> bool:
    """A path :func:`atomic_write_bytes` writes as a stream (nothing in it to read back)."""
    try:
        return output_kind(path)[0] == STREAM
    except OSError:
        return False


def _is_own_stdio(st: os.stat_result) -> bool:
    for fd in (1, 2):
        try:
            own = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(own.st_mode) and (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def _kind_name(mode: int) -> str:
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"
