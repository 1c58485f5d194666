"""How `gramwright conformance` prints: the case counts by category and the compile summary. The
JSON form is the run's own ``summary()``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gramwright.schema.conformance import ConformanceResult

_ORDER = ("pass", "false_negative", "false_positive_reported", "false_positive_silent", "refused", "error")


def render_human(summary: dict[str, Any]) -> str:
    """One line of totals, one per category, the compile line, the refusals by keyword."""
    lines = [f"schemas {summary['schemas']}  cases {summary['cases']}"]
    width = max(len(k) for k in _ORDER)
    for key in _ORDER:
        lines.append(f"  {key:<{width}}  {summary[key]:>6}")
    lines.append(
        f"compiled {summary['schemas_compiled']}/{summary['schemas']} schemas"
        f" (unsatisfiable {summary.get('schemas_unsatisfiable', 0)}, refused {summary['schemas_refused']},"
        f" errors {summary['schemas_error']});"
        f" compile ms p50 {summary['compile_ms']['p50']} p90 {summary['compile_ms']['p90']}"
        f" p99 {summary['compile_ms']['p99']} max {summary['compile_ms']['max']}"
    )
    if summary["refused_by_keyword"]:
        parts = [f"{k} {n}" for k, n in summary["refused_by_keyword"].items()]
        lines.append("refused by keyword: " + ", ".join(parts))
    return "\n".join(lines) + "\n"


def details_jsonl(result: ConformanceResult) -> str:
    """``--details``: one JSON line per case (its id, schema, category and detail)."""
    lines = []
    for g in result.groups:
        for case in g.cases:
            row = {"id": case.id, "schema": g.id, "category": case.category, "detail": case.detail}
            lines.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")
