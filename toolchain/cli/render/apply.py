"""How `gramwright apply`, `undo` and `history` print: the check report, the apply verdict, the
undo line and the journal as text, and their JSON payloads (the core's ``as_dict`` forms)."""

from __future__ import annotations

from typing import Any

from gramwright.editors import ApplyResult, CheckReport, EditCheck, JournalEntry, UndoResult


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
            replaces = f" (overwrites {change.new_path})" if change.replaced is not None else ""
            out.append(f"RENAME   {change.path} → {change.new_path}{replaces}")
        elif change.overwrote:
            out.append(f"OVERWRITE {change.path}")
    for problem in report.problems:
        out.append(f"problem: {problem.one_line()}")
    for note in report.notes:
        out.append(f"note: {note}")
    failed = sum(1 for e in report.edits if e.status == "failed")
    tolerant = sum(1 for e in report.edits if e.status == "tolerant")
    if report.ok:
        extra = f", {tolerant} tolerant" if tolerant else ""
        out.append(f"ok: {len(report.edits)} edit(s) apply{extra}; {len(report.files)} file(s) change")
    elif [p.reason for p in report.problems] == ["no-change"]:
        out.append("not applicable: the patch changes nothing; nothing written")
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


def check_data(report: CheckReport) -> dict[str, Any]:
    """``apply --check`` / ``--dry-run`` as JSON: the report, nothing applied."""
    return {**report.as_dict(), "applied": False, "backup_id": None}


def dry_run_line(report: CheckReport) -> str:
    """The verdict line ``apply --dry-run`` prints on stderr below the diff."""
    return render_report(report).rstrip("\n").splitlines()[-1] + " (dry run)"


def apply_data(result: ApplyResult) -> dict[str, Any]:
    return {**result.report.as_dict(), "applied": result.applied, "backup_id": result.entry_id}


def render_apply(result: ApplyResult) -> str:
    """The check report, then what was written and how to undo it."""
    text = render_report(result.report)
    if result.applied:
        if result.entry_id:
            text += f"applied: {len(result.written)} file(s) written; backup {result.entry_id}"
            text += f" (undo: gramwright undo {result.entry_id})\n"
        else:
            text += "applied: the files already had this content; nothing written\n"
    return text


def undo_data(result: UndoResult) -> dict[str, Any]:
    return {"entry": result.entry.as_dict(), "restored": list(result.restored)}


def render_undo(result: UndoResult) -> str:
    return f"undone {result.entry.id}: restored " + ", ".join(result.restored) + "\n"


def history_data(items: list[JournalEntry]) -> dict[str, Any]:
    return {"entries": [e.as_dict() for e in items]}
