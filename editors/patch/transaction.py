"""Write several files all-or-nothing: re-check, write each atomically, restore on any failure.

Each write names the hash the file must have *now* (or that it must not exist). All of them are
re-checked before the first byte is written, and each once more just before its own write, so a
file changed since the check is refused rather than overwritten. Each file is replaced through a
temporary file in its own directory + fsync + rename (:func:`gramwright.fsutil.atomic_write_bytes`,
which keeps the mode bits). If any write fails, the files already written are put back as they
were (bytes and mode, or removed if they were new) and directories made for new files are
removed again; then the error is raised. A directory a removal leaves empty is removed too (as
git apply does) and made again if that file is put back. Removals are written before everything
else, so a file and a directory may trade places (``foo`` becomes ``foo/baz``, or the reverse);
putting back runs in the opposite order, each write's new directories going with it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gramwright.editors.patch.snapshot import sha256
from gramwright.errors import PatchError
from gramwright.fsutil import atomic_write_bytes

__all__ = ["Write", "WriteFailed", "commit", "current_hash"]


class WriteFailed(PatchError):
    """A write failed; ``stuck`` are the files that could not be put back (normally none)."""

    def __init__(self, message: str, *, where: str, hint: str, stuck: list[str]) -> None:
        super().__init__(message, where=where, hint=hint)
        self.stuck = stuck


@dataclass(frozen=True)
class Write:
    """Make ``real`` hold ``data`` (None: remove it), provided it now has hash ``expected``
    (None: provided it does not exist). ``mode`` is set on a file that did not exist."""

    path: str
    real: Path
    expected: str | None
    data: bytes | None
    mode: int | None = None


def current_hash(real: Path) -> str | None:
    try:
        return sha256(real.read_bytes())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None  # no file there (a directory is not one; the check decided it may go)


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _verify(write: Write, why: str) -> None:
    if current_hash(write.real) != write.expected:
        state = "was created" if write.expected is None else "changed or was removed"
        raise PatchError(
            f"{state} {why}: refused, nothing written",
            where=write.path,
            hint="check the patch again and retry",
        )


# the write, what was there, directories made for it, empty directories it replaced
_Done = tuple[Write, bytes | None, int | None, list[Path], list[Path]]


def _clear_empty_dir(top: Path, removed: list[Path]) -> None:
    """Remove ``top`` when it is an empty directory (git tracks no directories, so a file may
    take the place of an empty one, as git apply's rmdir does); ``removed`` gets it."""
    if not top.is_symlink() and top.is_dir() and not any(top.iterdir()):
        top.rmdir()
        removed.append(top)


def _put(write: Write, made_dirs: list[Path], root: Path | None, removed: list[Path]) -> None:
    if write.data is None:
        os.unlink(write.real)
        for parent in write.real.parents:
            if root is None or parent == root or root not in parent.parents or any(parent.iterdir()):
                break
            parent.rmdir()
        return
    missing = [p for p in reversed(write.real.parents) if not p.exists()]
    for directory in missing:
        directory.mkdir()
        made_dirs.append(directory)
    _clear_empty_dir(write.real, removed)
    existed = write.real.exists()
    atomic_write_bytes(write.real, write.data)
    if not existed:
        os.chmod(write.real, write.mode if write.mode is not None else _new_file_mode())


def _restore(previous: _Done) -> None:
    write, data, mode, made_dirs, removed = previous
    if data is None:
        if write.real.is_file():
            os.unlink(write.real)
        for directory in reversed(made_dirs):  # a file may come back where they stand
            if directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()
        for directory in removed:
            directory.mkdir(exist_ok=True)
        return
    write.real.parent.mkdir(parents=True, exist_ok=True)  # a removal may have emptied it away
    atomic_write_bytes(write.real, data)
    if mode is not None:
        os.chmod(write.real, mode)


def _undo(done: list[_Done]) -> list[str]:
    """Put back what ``done`` wrote; the paths that could not be put back (normally none)."""
    stuck: list[str] = []
    for previous in reversed(done):
        try:
            _restore(previous)
        except OSError:
            stuck.append(previous[0].path)
    return stuck


def commit(writes: list[Write], why: str = "since the check", root: Path | None = None) -> None:
    """Perform ``writes`` all-or-nothing; :class:`PatchError` (after restoring) if any fails.

    Directories that removals leave empty are removed, up to ``root`` (never with ``root=None``).
    """
    for write in writes:
        _verify(write, why)
    done: list[_Done] = []
    for write in sorted(writes, key=lambda w: w.data is not None):  # removals first
        made_dirs: list[Path] = []
        removed: list[Path] = []
        try:
            _verify(write, why)
            before = write.real.read_bytes() if write.expected is not None else None
            mode = stat.S_IMODE(os.stat(write.real).st_mode) if before is not None else None
            _put(write, made_dirs, root, removed)
            done.append((write, before, mode, made_dirs, removed))
        except (OSError, PatchError) as exc:
            written = len(done)
            if made_dirs or removed:  # directories made or cleared for a write that then failed
                done.append((write, None, None, made_dirs, removed))
            stuck = _undo(done)
            if stuck:
                raise WriteFailed(
                    f"writing failed and {', '.join(stuck)} could not be restored",
                    where=write.path,
                    hint="the originals are in the backup journal (.gramwright/journal/)",
                    stuck=stuck,
                ) from exc
            if isinstance(exc, PatchError):
                raise
            restored = f"; the {written} file(s) written before it were restored" if written else ""
            raise WriteFailed(
                f"writing failed: {exc.strerror or exc}{restored}; nothing is changed",
                where=write.path,
                hint="fix the cause (permissions, disk space) and apply again",
                stuck=[],
            ) from exc
