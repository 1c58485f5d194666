"""Check or update the snapshots of a project's grammar sources.

A check compiles every source, renders its snapshot and compares it with the stored one below the
header. A difference comes back with a unified diff, the *reason* (the source changed: its SHA-256
differs; the compiler changed: same source, other gramwright version or other output; both) and
what it means for the model (:mod:`gramwright.snapshot.meaning`). A header that alone is out of
date (a description edited, a gramwright upgrade that compiles the same grammar) is a match, noted.
Sources without a snapshot are ``new``; snapshots whose source is gone are ``orphaned``; both fail
a check. An update writes (atomically) and deletes; in CI mode nothing is ever written.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gramwright.errors import GramwrightError
from gramwright.grammar.export import export_grammar
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.snapshot.config import SNAPSHOT_SUFFIX, VARIANT_MARK, SnapshotConfig, discover
from gramwright.snapshot.document import language_facts, parse_snapshot, render_snapshot
from gramwright.snapshot.meaning import LanguageChange, language_changes, summary
from gramwright.sources import CompiledSource, load_source

__all__ = [
    "Reason",
    "SnapshotRun",
    "SnapshotWriteRefused",
    "SourceSnapshot",
    "Status",
    "check_source",
    "in_ci",
    "run_snapshots",
    "tool_version",
]

Status = Literal["match", "changed", "new", "orphaned", "error"]
Reason = Literal["source", "compiler", "both", "targets", ""]
FAILING: frozenset[str] = frozenset({"changed", "new", "orphaned", "error"})


class SnapshotWriteRefused(GramwrightError):
    """An update asked for where snapshots must never be written (CI)."""


@dataclass
class SourceSnapshot:
    """One source's outcome. ``written``: an update wrote (or, orphaned, deleted) the file."""

    source: str
    snapshot: str
    status: Status
    reason: Reason = ""
    diff: str = ""
    changes: list[LanguageChange] = field(default_factory=list)
    error: str = ""
    note: str = ""
    stored_version: str = ""
    version: str = ""
    written: bool = False

    @property
    def direction(self) -> str | None:
        return summary(self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "snapshot": self.snapshot,
            "status": self.status,
            "reason": self.reason or None,
            "direction": self.direction,
            "changes": [c.to_dict() for c in self.changes],
            "diff": self.diff,
            "error": self.error or None,
            "note": self.note or None,
            "stored_version": self.stored_version or None,
            "version": self.version,
            "written": self.written,
        }


@dataclass
class SnapshotRun:
    root: str
    dir: str
    targets: tuple[str, ...]
    update: bool
    results: list[SourceSnapshot] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """A check fails on any difference; an update only on sources that do not compile."""
        if self.update:
            return any(r.status == "error" for r in self.results)
        return any(r.status in FAILING for r in self.results)

    def counts(self) -> dict[str, int]:
        out = {status: 0 for status in ("match", "changed", "new", "orphaned", "error")}
        for r in self.results:
            out[r.status] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "dir": self.dir,
            "targets": list(self.targets),
            "update": self.update,
            "failed": self.failed,
            "counts": self.counts(),
            "results": [r.to_dict() for r in self.results],
        }


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gramwright")
    except PackageNotFoundError:
        from gramwright import __version__

        return __version__


def in_ci(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """CI services set ``CI`` (GitHub Actions, GitLab, CircleCI, Travis, Buildkite, …)."""
    value = (environ if environ is not None else os.environ).get("CI", "")
    return value.lower() not in ("", "0", "false", "no")


def _render(path: Path, config: SnapshotConfig, version: str) -> tuple[str, CompiledSource, str]:
    from gramwright.readlimit import read_limited

    data = read_limited(path, "grammar source")
    sha = hashlib.sha256(data).hexdigest()
    # What `gramwright compile` prints: compact whitespace, the specification's open objects.
    compiled = load_source(str(path))
    schema = compiled.schema if compiled.is_schema else None
    approximations = [e.to_dict() for e in compiled.inexact()]
    exports = [
        (t, export_grammar(compiled.grammar, t, schema=schema, approximations=approximations).text)
        for t in config.targets
    ]
    text = render_snapshot(
        config.relative(path), sha, version, compiled, emit_gbnf(compiled.grammar), exports
    )
    return text, compiled, sha


def _stale_header_note(source_changed: bool, stored_version: str, version: str) -> str:
    """A header out of date while the grammar is the same: say which change left it behind."""
    causes = []
    if stored_version != version:
        causes.append(
            f"the compiler changed (gramwright {stored_version or '?'} → {version}) but compiles it the same"
        )
    if source_changed:
        causes.append("the source changed but compiles to the same grammar")
    what = "; ".join(causes) or "the header was edited"
    return f"header out of date: {what}; --update refreshes it"


def _diff(old: str, new: str, label: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"{label} (stored)", f"{label} (now)"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _write(path: Path, text: str) -> None:
    from gramwright.fsutil import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


def check_source(path: Path, config: SnapshotConfig, *, update: bool = False) -> SourceSnapshot:
    """Compare one source with its snapshot (``update``: write it when it differs or is new)."""
    version = tool_version()
    snap = config.snapshot_path(path)
    result = SourceSnapshot(config.relative(path), config.relative(snap), "match", version=version)
    try:
        text, compiled, sha = _render(path, config, version)
    except GramwrightError as exc:
        result.status, result.error = "error", exc.one_line()
        return result
    except OSError as exc:
        result.status, result.error = "error", f"{path}: cannot read: {exc.strerror or exc}"
        return result
    if not snap.exists():
        result.status = "new"
        result.diff = _diff("", text, result.snapshot)
    else:
        old = snap.read_text(encoding="utf-8")
        stored, now = parse_snapshot(old), parse_snapshot(text)
        result.stored_version = stored.version
        if stored.body == now.body:
            if old != text:
                result.note = _stale_header_note(stored.source_sha256 != sha, stored.version, version)
        else:
            result.status = "changed"
            result.diff = _diff(old, text, result.snapshot)
            source_changed = stored.source_sha256 != sha
            compiler_changed = stored.version != version
            if source_changed and compiler_changed:
                result.reason = "both"
            elif source_changed:
                result.reason = "source"
            elif stored.targets != config.targets:
                result.reason = "targets"
            else:
                result.reason = "compiler"
                if not compiler_changed:
                    result.note = f"the same source compiles differently under the same version {version}"
            new_facts = language_facts(compiled.schema) if compiled.is_schema else []
            result.changes = language_changes(stored.facts, new_facts, stored.report, list(compiled.report))
    if update and (result.status != "match" or result.note):
        _write(snap, text)
        result.written = True
    return result


def _orphans(
    config: SnapshotConfig, sources: list[Path], searched: list[Path], delete: bool
) -> list[SourceSnapshot]:
    if not config.dir.is_dir():
        return []
    wanted = {config.snapshot_path(p).resolve() for p in sources}
    out: list[SourceSnapshot] = []
    for snap in sorted(config.dir.rglob(f"*{SNAPSHOT_SUFFIX}")):
        if snap.resolve() in wanted:
            continue
        try:
            recorded = parse_snapshot(snap.read_text(encoding="utf-8")).source
        except (OSError, UnicodeDecodeError):
            recorded = ""
        name = snap.relative_to(config.dir).as_posix().removesuffix(SNAPSHOT_SUFFIX)
        rel = recorded or name
        source = config.root / rel
        # A snapshot of a file outside this run's paths is someone else's unless its source is gone;
        # so is a test's variant (its own targets, `<source>@<targets>.snap`, config.py).
        if source.exists() and not any(source.resolve().is_relative_to(folder) for folder in searched):
            continue
        if source.exists() and recorded and name.startswith(recorded.lstrip("/") + VARIANT_MARK):
            continue
        why = "its source no longer exists" if not source.exists() else "its source is no longer selected"
        orphan = SourceSnapshot(rel, config.relative(snap), "orphaned", note=why, version=tool_version())
        if delete:
            _delete(config.dir, snap)
            orphan.written = True
        out.append(orphan)
    return out


def _delete(top: Path, path: Path) -> None:
    """Remove a snapshot and the folders it leaves empty below ``top``."""
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != top and folder.is_relative_to(top) and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def run_snapshots(config: SnapshotConfig, *, update: bool = False, ci: bool = False) -> SnapshotRun:
    """Check (or ``update``) every source the configuration selects. ``ci``: refuse to write."""
    if update and ci:
        raise SnapshotWriteRefused(
            "CI mode never writes snapshots",
            where="--update",
            hint="run the update locally and commit the snapshots (CI is set in the environment)",
        )
    sources, searched = discover(config)
    run = SnapshotRun(str(config.root), config.relative(config.dir), config.targets, update)
    run.results = [check_source(path, config, update=update) for path in sources]
    run.results += _orphans(config, sources, searched, delete=update)
    return run
