"""Atomic file writes (nothing is lost if the process dies half-way: temp file + fsync + rename),
and where gramwright keeps its on-disk cache.

The temp file comes from ``mkstemp``, which creates it with mode 0600 (private, so no other user
can read a half-written file). Before the rename it gets the mode the file would have had from a
plain ``open(path, "w")``: an existing file keeps its mode, a new one gets ``0o666 & ~umask`` —
otherwise every file written with ``-o`` would be readable by its owner only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["CACHE_ENV", "atomic_write_bytes", "atomic_write_text", "cache_root", "current_umask"]

CACHE_ENV = "GRAMWRIGHT_CACHE"


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
    path = Path(path)
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


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
