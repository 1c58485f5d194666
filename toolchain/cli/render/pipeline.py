"""How `gramwright validate`, `extract` and `report` print: each validation result as text (JSON:
the result's ``to_dict`` with its id), and the batch summary as a table (JSON: the summary)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table


def results_data(results: list[tuple[str, Any]]) -> Any:
    """`validate --format json`: one object for one text, else a list, each with its id."""
    rows = [{"id": rid, **r.to_dict()} for rid, r in results]
    return rows if len(rows) != 1 else rows[0]


def render_result(rid: str, result: Any) -> str:
    """One result: status, layer, confidence; each repair, note, error, warning, drop and fill;
    then the value."""
    head = f"{rid}: {result.status}" + (f" (layer {result.layer})" if result.layer else "")
    head += f" confidence={result.confidence}" + (" repaired" if result.repaired else "")
    head += " DEGRADED" if result.degraded else ""
    lines = [head]
    for change in result.reading.get("repairs", []):
        where = change["pointer"] or "/"
        lines.append(f"  repair {change['op']} at {where}: {change['before']!r} → {change['after']!r}")
    lines.extend(f"  note: {note}" for note in result.reading.get("notes", []))
    for e in result.errors:
        lines.append(f"  error {e.pointer or '/'} [{e.rule or e.keyword}]: {e.message}")
    for w in result.warnings:
        lines.append(f"  warn  {w.pointer or '/'} [{w.rule}]: {w.message}")
    for d in result.dropped:
        lines.append(f"  dropped {d.pointer or '/'}: {d.reason}")
    for f in result.filled:
        lines.append(f"  filled {f} by the rules file's fallback")
    if result.value is not None:
        lines.append("  value: " + json.dumps(result.to_dict()["value"], ensure_ascii=False))
    return "\n".join(lines)


def summary_table(summary: dict[str, Any]) -> Table:
    """The batch summary (`extract`, `report`) as a two-column table; JSON: the summary itself."""
    from rich.table import Table

    from gramwright.pipeline.metrics import summary_lines

    table = Table(title="pipeline summary", show_header=False)
    for label, value in summary_lines(summary):
        table.add_row(label, value)
    return table
