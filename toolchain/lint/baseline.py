"""Lint baselines: accept the findings a project already has, fail only on new ones.

A finding's fingerprint is its rule, its file (as a POSIX path relative to the project) and its
JSON Pointer — never a line number or the message text, so editing other parts of a schema, or a
reworded message in a new gramwright, keeps it accepted. Comparison is by multiset: two findings
with one fingerprint need two baseline entries. Findings in the baseline that no longer occur are
*fixed*: reported, so the baseline is rewritten smaller (``--update-baseline``).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from gramwright.errors import SourceError
from gramwright.lint.diagnostic import Diagnostic, LintReport
from gramwright.readlimit import read_limited

__all__ = [
    "BASELINE_VERSION",
    "BaselineComparison",
    "BaselineEntry",
    "compare_baseline",
    "fingerprint",
    "load_baseline",
    "project_path",
    "render_baseline",
]

BASELINE_VERSION = 1
BaselineState = Literal["new", "unchanged"]


def project_path(file: str, root: Path | None = None) -> str:
    """``file`` as a POSIX path relative to ``root`` (the working folder) where it lies below it."""
    if file == "-":
        return file
    path = Path(file)
    base = (root or Path.cwd()).resolve()
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return PurePosixPath(path.as_posix()).as_posix()


def fingerprint(rule: str, file: str, pointer: str) -> str:
    """Stable across line shifts and reworded messages: rule, project-relative file, pointer."""
    return hashlib.sha256(f"{rule}\0{file}\0{pointer}".encode()).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    fingerprint: str
    rule: str
    file: str
    pointer: str
    severity: str = ""
    message: str = ""  # for the reader of the file; never compared

    def to_dict(self) -> dict[str, str]:
        return {
            "fingerprint": self.fingerprint,
            "rule": self.rule,
            "file": self.file,
            "pointer": self.pointer,
            "severity": self.severity,
            "message": self.message,
        }


def _entry(report: LintReport, d: Diagnostic, root: Path | None) -> BaselineEntry:
    file = project_path(report.file, root)
    return BaselineEntry(fingerprint(d.rule, file, d.pointer), d.rule, file, d.pointer, d.severity, d.message)


def baseline_entries(reports: Iterable[LintReport], root: Path | None = None) -> list[BaselineEntry]:
    entries = [_entry(r, d, root) for r in reports for d in r.diagnostics]
    return sorted(entries, key=lambda e: (e.file, e.pointer, e.rule, e.message))


def render_baseline(
    reports: Sequence[LintReport], root: Path | None = None, keep: Iterable[BaselineEntry] = ()
) -> str:
    """The baseline file's text: sorted, one entry per finding, stable under re-runs. ``keep``:
    entries of an older baseline; those for files not linted now are carried over."""
    linted = {project_path(r.file, root) for r in reports}
    entries = baseline_entries(reports, root) + [e for e in keep if e.file not in linted]
    entries.sort(key=lambda e: (e.file, e.pointer, e.rule, e.message))
    doc = {"gramwright-lint-baseline": BASELINE_VERSION, "findings": [e.to_dict() for e in entries]}
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def load_baseline(path: Path) -> list[BaselineEntry]:
    """Read a baseline file; a missing or malformed one is a :class:`SourceError` saying what to do."""
    where = str(path)
    if not path.is_file():
        raise SourceError(where, "no such baseline file", "create it with --update-baseline")
    try:
        doc = json.loads(read_limited(path, "baseline").decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(where, f"not a baseline file: {exc}", "rewrite it with --update-baseline") from None
    items = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(items, list) or doc.get("gramwright-lint-baseline") != BASELINE_VERSION:
        raise SourceError(where, "not a gramwright lint baseline (v1)", "rewrite it with --update-baseline")
    out: list[BaselineEntry] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("rule", "file", "pointer")
        ):
            raise SourceError(f"{where}: findings[{i}]", "needs rule, file and pointer strings")
        # The fingerprint is recomputed, so a hand-edited entry still matches what it names.
        fp = fingerprint(item["rule"], item["file"], item["pointer"])
        out.append(
            BaselineEntry(
                fp,
                item["rule"],
                item["file"],
                item["pointer"],
                str(item.get("severity", "")),
                str(item.get("message", "")),
            )
        )
    return out


@dataclass
class BaselineComparison:
    """Each current finding is ``new`` or ``unchanged`` (accepted); baseline entries no longer
    found are ``fixed``."""

    states: dict[tuple[int, int], BaselineState] = field(default_factory=dict)  # (report, diagnostic) index
    new: list[BaselineEntry] = field(default_factory=list)
    accepted: list[BaselineEntry] = field(default_factory=list)
    fixed: list[BaselineEntry] = field(default_factory=list)

    def state(self, report_index: int, diagnostic_index: int) -> BaselineState:
        return self.states[(report_index, diagnostic_index)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "new": [e.to_dict() for e in self.new],
            "accepted": len(self.accepted),
            "fixed": [e.to_dict() for e in self.fixed],
        }


def compare_baseline(
    reports: Sequence[LintReport], baseline: Iterable[BaselineEntry], root: Path | None = None
) -> BaselineComparison:
    left = Counter(e.fingerprint for e in baseline)
    by_fp: dict[str, list[BaselineEntry]] = {}
    for e in baseline:
        by_fp.setdefault(e.fingerprint, []).append(e)
    linted = {project_path(r.file, root) for r in reports}
    result = BaselineComparison()
    for i, report in enumerate(reports):
        for j, d in enumerate(report.diagnostics):
            entry = _entry(report, d, root)
            if left[entry.fingerprint] > 0:
                left[entry.fingerprint] -= 1
                result.states[(i, j)] = "unchanged"
                result.accepted.append(entry)
            else:
                result.states[(i, j)] = "new"
                result.new.append(entry)
    for fp, count in left.items():
        # only files linted in this run can have fixed findings; the others were not looked at
        result.fixed += [e for e in by_fp[fp][len(by_fp[fp]) - count :] if e.file in linted]
    return result
