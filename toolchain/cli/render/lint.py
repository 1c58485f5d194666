"""How `gramwright lint` prints around the library's renderers (:mod:`gramwright.lint.render`:
human, JSON, SARIF): with ``--baseline`` only the new findings in human text, every finding with
its baseline state in JSON, and the comparison on stderr."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gramwright.cli.common import dump_json

if TYPE_CHECKING:
    from gramwright.lint import LintReport
    from gramwright.lint.baseline import BaselineComparison


def baseline_written(path: Path, count: int) -> str:
    """`--update-baseline`'s line on stderr."""
    return f"wrote {path}: {count} finding{'s' if count != 1 else ''} accepted"


def only_new(reports: list[LintReport], comparison: BaselineComparison) -> list[LintReport]:
    return [
        replace(r, diagnostics=[d for j, d in enumerate(r.diagnostics) if comparison.state(i, j) == "new"])
        for i, r in enumerate(reports)
    ]


def json_with_baseline(reports: list[LintReport], comparison: BaselineComparison) -> str:
    rows = [
        {**d.to_dict(), "file": r.file, "baseline_state": comparison.state(i, j)}
        for i, r in enumerate(reports)
        for j, d in enumerate(r.diagnostics)
    ]
    return dump_json(rows)


def baseline_lines(path: Path, comparison: BaselineComparison) -> list[str]:
    """For stderr: how the findings compare with the baseline, and each fixed one (so it shrinks)."""
    new, accepted, fixed = len(comparison.new), len(comparison.accepted), len(comparison.fixed)
    lines = [f"baseline {path}: {new} new, {accepted} accepted, {fixed} fixed"]
    for e in comparison.fixed:
        lines.append(f"fixed: {e.file} {e.pointer or '/'} {e.rule} (no longer found)")
    if fixed:
        lines.append(f"shrink the baseline: gramwright lint ... --baseline {path} --update-baseline")
    return lines
