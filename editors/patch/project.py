"""The files of a project a patch may be asked to edit: what git tracks or would track.

In a git work tree that is ``git ls-files --cached --others --exclude-standard`` (tracked files and
untracked ones that ``.gitignore`` does not exclude), so build output, virtualenvs and caches stay
out of the list; elsewhere a walk that skips hidden folders. Never ``.git/`` or the backup journal
(patches may not touch them, :mod:`.paths`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from gramwright.editors.patch.paths import JOURNAL_DIR

__all__ = ["MAX_FILES", "project_files"]

MAX_FILES = 20_000  # a picker over more than this is no help; the list says it was cut
_SKIP = {".git", JOURNAL_DIR}


def _git_files(root: Path) -> list[str] | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "."],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None  # not a git work tree
    names = [n for n in done.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    # ls-files lists deleted-but-tracked files too: only what is there to edit
    return [n for n in names if (root / n).is_file()]


def _walk(root: Path) -> list[str]:
    out: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(folder).relative_to(root)
        out.extend((base / n).as_posix() for n in sorted(names))
        if len(out) > MAX_FILES:
            break
    return out


def project_files(root: Path | str) -> tuple[str, ...]:
    """Paths relative to ``root`` (POSIX separators), sorted; at most :data:`MAX_FILES`."""
    base = Path(root).resolve()
    found = _git_files(base)
    if found is None:
        found = _walk(base)
    kept = sorted(n for n in found if n.split("/")[0] not in _SKIP)
    return tuple(kept[:MAX_FILES])
