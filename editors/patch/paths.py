"""Path safety: every path a patch names is resolved against the root and refused when it escapes.

A patch is text a model wrote; its paths are untrusted input. They are checked (all of them, before
any file is read): relative, no ``..`` component, not inside ``.git/`` or the backup journal, and —
after following symlinks — still inside the root. A path that goes through a symlink inside the
root (``arch/x86_64/dir -> ../i386/dir``, then ``arch/x86_64/dir/file``) or names one is refused,
as ``git apply`` refuses it ("beyond a symbolic link"): the report would name one file and another
would be written. Files are keyed by their path relative to the root.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gramwright.errors import PatchError

__all__ = ["JOURNAL_DIR", "ResolvedPath", "find_root", "inside_root", "resolve_path"]

JOURNAL_DIR = ".gramwright"
# the repository's own metadata and our backups are never patch targets
_RESERVED = {".git", JOURNAL_DIR}
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ResolvedPath:
    """``path`` as the patch wrote it (normalised), ``key`` its real path relative to the root."""

    path: str
    key: str
    real: Path


def find_root(start: Path | None = None) -> Path:
    """The default ``--root``: the git top level when ``start`` (default: cwd) is inside a
    repository, else ``start`` itself. Found by looking for ``.git`` upwards, without running git."""
    here = Path(start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def _refuse(path: str, why: str, patch_line: int) -> PatchError:
    return PatchError(
        f"path {path!r} {why}",
        where=f"patch line {patch_line}",
        hint="paths in a patch must be relative to --root and stay inside it",
    )


def _refuse_links(root_real: Path, parts: list[str], path: str, patch_line: int) -> None:
    """Refuse ``path`` when one of its components under the root is a symlink (git apply's
    ``has_symlink_leading_path``; a link as the last component is not a file a text patch edits)."""
    here = root_real
    for depth, part in enumerate(parts, 1):
        here = here / part
        if not here.is_symlink():
            if not here.is_dir():
                return  # missing, or a file: nothing further down can be a link
            continue
        shown = "/".join(parts[:depth])
        why = (
            f"is beyond a symbolic link ({shown} -> {os.readlink(here)})"
            if depth < len(parts)
            else f"is a symbolic link (to {os.readlink(here)}), not a file a patch edits"
        )
        raise PatchError(
            f"affected file {path!r} {why}: refused, nothing written",
            where=f"patch line {patch_line}",
            hint="name the file by its real path inside --root",
        )


def resolve_path(root: Path, path: str, patch_line: int) -> ResolvedPath:
    """Check ``path`` and resolve it inside ``root``; :class:`PatchError` names the patch line."""
    if not path or "\0" in path:
        raise _refuse(path, "is empty or contains a NUL byte", patch_line)
    if path.startswith(("/", "\\")) or _DRIVE.match(path):
        raise _refuse(path, "is absolute", patch_line)
    parts = [p for p in PurePosixPath(path).parts if p != "."]
    if ".." in parts:
        raise _refuse(path, "contains '..'", patch_line)
    if not parts:
        raise _refuse(path, "names the root itself, not a file", patch_line)
    if parts[0] in _RESERVED:
        raise _refuse(path, f"is inside {parts[0]}/, which patches may not touch", patch_line)
    clean = "/".join(parts)
    root_real = Path(os.path.realpath(root))
    real = Path(os.path.realpath(root_real / clean))
    if real != root_real and root_real not in real.parents:
        raise _refuse(path, f"resolves outside the root through a symlink (to {real})", patch_line)
    _refuse_links(root_real, parts, path, patch_line)
    key = real.relative_to(root_real).as_posix()
    if key.split("/")[0] in _RESERVED:
        raise _refuse(path, "resolves into a directory patches may not touch", patch_line)
    return ResolvedPath(path=clean, key=key, real=real)


def inside_root(path: str, *roots: Path) -> str | None:
    """An absolute ``path`` lying inside one of ``roots`` (the root as given and as resolved),
    relative to it; None for any other path. Codex's ``apply_patch`` takes absolute paths: one
    inside the root names a file there (then checked as any relative path), one outside stays
    refused. Judged on the text alone (no ``..``), so a symlink is still caught by the check."""
    if not path.startswith("/") or ".." in PurePosixPath(path).parts:
        return None
    clean = str(PurePosixPath(path))
    for root in roots:
        base = str(root).rstrip("/")
        if clean.startswith(base + "/"):
            return clean[len(base) + 1 :]
    return None
