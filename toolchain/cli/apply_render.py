"""Human text for `gramwright apply` / `undo` / `history` (the JSON forms are the core's as_dict)."""

from __future__ import annotations

from gramwright.editors import CheckReport, EditCheck, JournalEntry


def _edit_line(check: EditCheck) -> list[str]:
    loc = check.location
    span = check.lines
    where = check.path
    if span is not None:
        first, last = span
        where += f":{first}" if last <= first else f":{first}-{last}"
    if check.status == "exact":
        verdict = "exact"
        if loc.match is not None and loc.match.eol:
            verdict += " (line endings normalised: LF vs CRLF; the file keeps its own)"
    elif check.status == "tolerant":
        verdict = f"tolerant ({loc.match.tolerance if loc.match else '?'})"
    else:
        verdict = f"FAILED: {loc.message}"
    if loc.offset:
        verdict += f" (offset {loc.offset:+d} line{'s' if abs(loc.offset) != 1 else ''})"
    out = [f"edit {check.index:<3} {where:<30} {verdict}  [patch line {loc.edit.patch_line}]"]
    if check.status == "failed":
        if loc.hint:
            out.append(f"         hint: {loc.hint}")
        if loc.nearest is not None:
            n = loc.nearest
            out.append(f"         did you mean {n.span} ({n.similarity:.0%} similar)?")
            out.extend(f"         {row}" for row in n.render().splitlines())
    elif check.status == "tolerant" and check.location.match and check.location.match.shift:
        match = check.location.match
        direction = "added to" if match.direction == 1 else "removed from"
        out.append(f"         indentation {match.shift!r} {direction} the new lines")
    return out


def render_report(report: CheckReport) -> str:
    """The per-edit check report, then the files, problems, notes and a one-line verdict."""
    out = [f"format: {report.format.value} ({report.detected})"]
    for check in report.edits:
        out.extend(_edit_line(check))
    for change in report.files:
        if change.action == "create":
            out.append(f"create   {change.path}")
        elif change.action == "delete":
            out.append(f"DELETE   {change.path}")
        elif change.action == "rename":
            out.append(f"RENAME   {change.path} → {change.new_path}")
    for problem in report.problems:
        out.append(f"problem: {problem.one_line()}")
    for note in report.notes:
        out.append(f"note: {note}")
    failed = sum(1 for e in report.edits if e.status == "failed")
    tolerant = sum(1 for e in report.edits if e.status == "tolerant")
    if report.ok:
        extra = f", {tolerant} tolerant" if tolerant else ""
        out.append(f"ok: {len(report.edits)} edit(s) apply{extra}; {len(report.files)} file(s) change")
    else:
        out.append(
            f"not applicable: {failed} of {len(report.edits)} edit(s) failed,"
            f" {len(report.problems)} problem(s); nothing written"
        )
    return "\n".join(out) + "\n"


def render_history(items: list[JournalEntry]) -> str:
    if not items:
        return "no applied patches in the journal\n"
    out = []
    for entry in items:
        paths = ", ".join(f"{f.path} ({f.action})" for f in entry.files)
        out.append(f"{entry.id}  {entry.time[:19]}  {entry.status:<8} {entry.format:<15} {paths}")
    return "\n".join(out) + "\n"
