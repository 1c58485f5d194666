"""The batch summary: what ``extract`` prints at its end and ``gramwright report`` prints from a
metrics file — computed from the metrics rows only, so both always agree with the rows.

Rates are shares of all rows. ``format_first_pass``: the first attempt finished (``stop``) and
parsed; ``schema_pass``: the returned value validates; ``rules_pass``: it also passes every
``error`` rule; ``repaired``: text made without masks that json-repair changed. ``tokens per
success``: all output tokens (failures included) over the rows with ``status=ok``. ``budget
closes``: attempts the masks closed early as their token limit neared (complete outputs whose
last values may be cut short), and the share of rows whose first attempt was one.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from gramwright.errors import PipelineError
from gramwright.readlimit import read_limited

__all__ = ["read_metrics", "summarize", "summary_lines"]


def read_metrics(path: Path) -> list[dict[str, Any]]:
    """Metrics rows, one per id (a row written twice — a crash between two writes — counts once)."""
    try:
        data = read_limited(path, "metrics file")
    except OSError as exc:
        raise PipelineError(f"cannot read the metrics: {exc.strerror or exc}", where=str(path)) from None
    hint = "give the JSONL file `extract --metrics` wrote"
    nul = data.find(b"\x00")
    if nul >= 0:
        raise PipelineError(
            f"a binary file, not metrics JSONL (NUL byte at byte {nul})", where=str(path), hint=hint
        )
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise PipelineError(f"not valid UTF-8 at byte {exc.start}", where=str(path), hint=hint) from None
    by_id: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            if n == len(lines):
                break  # a torn last line: the row in flight when the process died
            raise PipelineError("not a JSON line", where=f"{path}:{n}") from None
        if not isinstance(row, dict) or "id" not in row:
            raise PipelineError("a metrics row needs an id", where=f"{path}:{n}", hint=hint)
        if "status" not in row:
            # an input or request file ({id, prompt}) would otherwise sum to an all-zero summary
            raise PipelineError("not a metrics row (no status)", where=f"{path}:{n}", hint=hint)
        by_id[str(row["id"])] = row
    return list(by_id.values())


def _share(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(bool(r.get(key)) for r in rows) / len(rows), 4) if rows else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    status = Counter(str(r.get("status")) for r in rows)
    tokens = sum(int(r.get("output_tokens") or 0) for r in rows)
    seconds = sum(float(r.get("seconds") or 0.0) for r in rows)
    masses = [float(r["clipped_mass_avg"]) for r in rows if r.get("clipped_mass_avg") is not None]
    attempts = Counter(int(r.get("attempts") or 0) for r in rows)
    return {
        "rows": n,
        "status": {k: status.get(k, 0) for k in ("ok", "partial", "degraded", "failed")},
        "format_first_pass_rate": _share(rows, "format_first_pass"),
        "schema_pass_rate": _share(rows, "schema_pass"),
        "rules_pass_rate": _share(rows, "rules_pass"),
        "repair_rate": _share(rows, "repaired"),
        "budget_closes": sum(int(r.get("budget_closes") or 0) for r in rows),
        "first_budget_closed_rate": _share(rows, "first_budget_closed"),
        "partial_share": round(status.get("partial", 0) / n, 4) if n else None,
        "degraded_share": round(status.get("degraded", 0) / n, 4) if n else None,
        "attempts_histogram": {str(k): attempts[k] for k in sorted(attempts)},
        "attempts_mean": round(sum(k * v for k, v in attempts.items()) / n, 3) if n else None,
        "clipped_mass_mean": round(sum(masses) / len(masses), 4) if masses else None,
        "output_tokens": tokens,
        "tokens_per_request": round(tokens / n, 1) if n else None,
        "tokens_per_success": round(tokens / status["ok"], 1) if status.get("ok") else None,
        "tokens_per_s": round(tokens / seconds, 2) if seconds else None,
        "seconds": round(seconds, 2),
    }


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def summary_lines(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs in display order, for any renderer."""
    s = summary
    hist = ", ".join(f"{k}: {v}" for k, v in s["attempts_histogram"].items()) or "—"
    counts = ", ".join(f"{k} {v}" for k, v in s["status"].items())
    return [
        ("rows", str(s["rows"])),
        ("status", counts),
        ("format first-pass rate", _pct(s["format_first_pass_rate"])),
        ("schema pass rate", _pct(s["schema_pass_rate"])),
        ("rules pass rate", _pct(s["rules_pass_rate"])),
        ("repair rate", _pct(s["repair_rate"])),
        ("budget closes", f"{s['budget_closes']} (first attempts: {_pct(s['first_budget_closed_rate'])})"),
        ("attempts histogram", hist),
        ("attempts mean", "—" if s["attempts_mean"] is None else f"{s['attempts_mean']:.2f}"),
        ("partial share", _pct(s["partial_share"])),
        ("degraded share", _pct(s["degraded_share"])),
        ("mean clipped mass", "—" if s["clipped_mass_mean"] is None else f"{s['clipped_mass_mean']:.4f}"),
        ("tokens per success", "—" if s["tokens_per_success"] is None else f"{s['tokens_per_success']:.1f}"),
        ("tokens/s", "—" if s["tokens_per_s"] is None else f"{s['tokens_per_s']:.2f}"),
    ]
