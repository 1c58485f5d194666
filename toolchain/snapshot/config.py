"""Which sources to snapshot, where the snapshots live, and which exports they hold.

Settings come from the command line, else from ``[tool.gramwright.snapshot]`` in the nearest
``pyproject.toml`` (``paths``, ``dir``, ``targets``), else the defaults: every ``.json`` and
``.gbnf`` file under ``schemas/`` and ``grammars/``, snapshots in ``grammar-snapshots/``, no
exports beyond the canonical GBNF. Paths are relative to the project root: the folder of that
``pyproject.toml``, or the working folder when there is none.

One configuration for the CLI and the pytest fixture: the fixture reads the same section. A test
that asks for other targets gets *variant* snapshots, separate files named after its targets
(``po.json@lark+vllm-request.snap``); the CLI checks and writes only the project's own files and
leaves a variant alone while its source exists (it is orphaned, and removed by ``--update``, once
the source is gone).
"""

from __future__ import annotations

import glob
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gramwright.errors import SourceError
from gramwright.grammar.export import TARGETS

__all__ = [
    "DEFAULT_DIR",
    "DEFAULT_PATHS",
    "SOURCE_SUFFIXES",
    "VARIANT_MARK",
    "SnapshotConfig",
    "discover",
    "load_config",
]

DEFAULT_PATHS = ("schemas", "grammars")
DEFAULT_DIR = "grammar-snapshots"
SOURCE_SUFFIXES = (".json", ".gbnf")
SNAPSHOT_SUFFIX = ".snap"


# Between a source's name and ``.snap``: the targets of a snapshot a test asked for (``@lark+vllm-request``)
VARIANT_MARK = "@"


@dataclass(frozen=True)
class SnapshotConfig:
    root: Path
    paths: tuple[str, ...]
    dir: Path
    targets: tuple[str, ...]
    pyproject: Path | None = None
    # set when a test's targets differ from the project's: its snapshots go to their own files
    variant: str = ""

    def snapshot_path(self, source: Path) -> Path:
        """``<dir>/<source relative to the root>.snap`` (a source outside the root: its absolute
        path below ``dir``, never a file beside the source); ``<…>@<variant>.snap`` for a variant."""
        mark = f"{VARIANT_MARK}{self.variant}" if self.variant else ""
        return self.dir / (self.relative(source).lstrip("/") + mark + SNAPSHOT_SUFFIX)

    def with_targets(self, targets: Sequence[str]) -> SnapshotConfig:
        """The settings for a test that asks for ``targets``: the project's own when they are the
        same, else a variant whose snapshots are separate files (``po.json@lark+vllm-request.snap``),
        so a test and ``gramwright snapshot`` never rewrite one file with different targets."""
        chosen = check_targets(targets, "gramwright_snapshot(targets=...)")
        if chosen == self.targets:
            return self
        return replace(self, targets=chosen, variant="+".join(chosen) or "none")

    def relative(self, path: Path) -> str:
        """A POSIX path relative to the root, or the absolute one for a path outside it."""
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return resolved.as_posix()


def _find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _section(pyproject: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SourceError(str(pyproject), f"cannot read: {exc}", "fix the TOML or pass --dir/PATHs") from None
    section = data.get("tool", {}).get("gramwright", {}).get("snapshot", {})
    if not isinstance(section, dict):
        raise SourceError(str(pyproject), "[tool.gramwright.snapshot] is not a table")
    return section


def _strings(value: object, key: str, pyproject: Path | None) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    where = str(pyproject) if pyproject else "snapshot settings"
    raise SourceError(where, f"[tool.gramwright.snapshot] {key} must be a string or a list of strings")


def check_targets(targets: Sequence[str], where: str = "--targets") -> tuple[str, ...]:
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise SourceError(where, f"unknown export target {unknown[0]!r}", f"use any of: {', '.join(TARGETS)}")
    return tuple(dict.fromkeys(targets))


def load_config(
    cwd: Path,
    paths: Sequence[str] = (),
    directory: str | None = None,
    targets: Sequence[str] | None = None,
) -> SnapshotConfig:
    """The settings for a run started in ``cwd``; arguments win over ``pyproject.toml``."""
    pyproject = _find_pyproject(cwd.resolve())
    section = _section(pyproject) if pyproject else {}
    root = pyproject.parent if pyproject else cwd.resolve()
    if paths:
        chosen = tuple(str(cwd / p) for p in paths)  # an absolute p stays itself
        for given, full in zip(paths, chosen, strict=True):
            if not _has_magic(given) and not Path(full).exists():
                raise SourceError(
                    given, "no such file or folder", "give schema/grammar files, folders or globs"
                )
    elif "paths" in section:
        chosen = tuple(str(root / p) for p in _strings(section["paths"], "paths", pyproject))
    else:
        chosen = tuple(str(root / p) for p in DEFAULT_PATHS)
    if directory is not None:
        folder = cwd / directory
    elif "dir" in section:
        folder = root / _strings(section["dir"], "dir", pyproject)[0]
    else:
        folder = root / DEFAULT_DIR
    if targets is None:
        targets = _strings(section.get("targets", []), "targets", pyproject)
        where = f"{pyproject}: [tool.gramwright.snapshot] targets"
    else:
        where = "--targets"
    return SnapshotConfig(root, chosen, folder.resolve(), check_targets(targets, where), pyproject)


def _has_magic(path: str) -> bool:
    return any(c in path for c in "*?[")


def _glob_base(pattern: str) -> Path:
    """The folder a glob searches: its parts before the first one with a wildcard."""
    parts = Path(pattern).parts
    fixed = parts[: next(i for i, part in enumerate(parts) if _has_magic(part))]
    return Path(*fixed) if fixed else Path.cwd()


def discover(config: SnapshotConfig) -> tuple[list[Path], list[Path]]:
    """The sources (sorted, no duplicates, never inside the snapshot folder) and the folders that
    were searched (a snapshot whose source lay in one of them and is gone is orphaned)."""
    found: dict[Path, None] = {}
    searched: list[Path] = []
    for entry in config.paths:
        if _has_magic(entry):
            matches = [Path(m) for m in sorted(glob.glob(entry, recursive=True))]
            searched.append(_glob_base(entry))
        elif Path(entry).is_dir():
            matches = sorted(p for p in Path(entry).rglob("*") if p.suffix.lower() in SOURCE_SUFFIXES)
            searched.append(Path(entry))
        elif Path(entry).exists():
            matches = [Path(entry)]
        else:
            continue  # a default folder the project does not have; explicit paths are checked by the caller
        for path in matches:
            if path.is_file() and not path.resolve().is_relative_to(config.dir):
                found[path.resolve()] = None
    return sorted(found, key=config.relative), [p.resolve() for p in searched]
