"""Which screen ``gramwright tui PATH...`` opens: a schema or grammar (the schema workbench), a
patch file (review), or source files and folders (edit).

A file is a patch when its name says so (``.patch``, ``.diff``) or when its text has the marker
lines of one of the three formats (the detection ``gramwright apply`` uses); ``.json`` and
``.gbnf`` files, and a path that does not exist yet (created on the first save), are schemas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gramwright.editors import detect_format
from gramwright.errors import PatchError

__all__ = ["Opening", "classify"]

SCHEMA_SUFFIXES = {".json", ".gbnf"}
PATCH_SUFFIXES = {".patch", ".diff"}


@dataclass(frozen=True)
class Opening:
    screen: str  # "schema" | "review" | "edit"
    schema: Path | None = None
    patch: Path | None = None
    sources: tuple[Path, ...] = ()


def _is_patch(path: Path) -> bool:
    if path.suffix.lower() in PATCH_SUFFIXES:
        return True
    try:
        text = path.read_bytes()[:1_000_000].decode("utf-8-sig")
        detect_format(text)
    except (OSError, UnicodeDecodeError, PatchError):
        return False
    return True


def classify(paths: Sequence[Path]) -> Opening:
    """The screen for ``paths`` (none: a new schema)."""
    if not paths:
        return Opening("schema")
    if len(paths) == 1:
        path = paths[0]
        if not path.exists() or (path.is_file() and path.suffix.lower() in SCHEMA_SUFFIXES):
            return Opening("schema", schema=path)
        if path.is_file() and _is_patch(path):
            return Opening("review", patch=path)
    return Opening("edit", sources=tuple(paths))
