"""How `gramwright snapshot` prints: one line per source that is not a plain match, its changes
and its diff, then the counts. The JSON form is the run's own ``to_dict``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gramwright.snapshot import SnapshotRun

_WORD = {
    "source": "the source changed",
    "compiler": "the compiler changed (same source)",
    "both": "the source and the compiler changed",
    "targets": "the export targets changed",
}


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))


def render_human(run: SnapshotRun) -> str:
    """The run as text: one line per source that is not a plain match, its changes and its diff."""
    out: list[str] = []
    for r in run.results:
        if r.status == "match" and not r.note:
            continue
        head = f"{r.status:<9}{r.source}"
        if r.status == "changed":
            head += f" — {_WORD.get(r.reason, r.reason)}"
            if r.stored_version and r.stored_version != r.version:
                head += f" (snapshot by gramwright {r.stored_version}, now {r.version})"
            if r.direction:
                head += f"; the language {'changed' if r.direction == 'changed' else 'is ' + r.direction}"
        elif r.status == "new":
            head += " — no snapshot yet"
        elif r.status == "orphaned":
            head += f" — {r.snapshot}: {r.note}"
        elif r.status == "error":
            head += f" — {r.error}"
        if r.written:
            head += " [deleted]" if r.status == "orphaned" else " [written]"
        out.append(head)
        if r.note and r.status in ("match", "changed"):
            out.append(f"    note: {r.note}")
        for change in r.changes:
            out.append(f"    {change.direction:<9}{change.pointer or '/'}: {change.what}")
        if r.diff and r.status == "changed" and not run.update:
            out.append(_indent(r.diff).rstrip("\n"))
    counts = run.counts()
    total = sum(n for k, n in counts.items() if k != "orphaned")
    parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    out.append(
        f"{total} source{'s' if total != 1 else ''}: {parts or 'nothing found'} (snapshots in {run.dir})"
    )
    if run.failed and not run.update:
        out.append("to accept these changes: gramwright snapshot --update (then review and commit the files)")
    return "\n".join(out) + "\n"
