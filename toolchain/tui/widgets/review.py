"""The review panels' renderings: an edit's tree label, its detail (status, diff or nearest lines).

Pure functions of a :class:`~gramwright.editors.patch.review.Review` to Rich text, so they can be
tested without a terminal and the screen stays a thin adapter.
"""

from __future__ import annotations

from rich.text import Text

from gramwright.editors.patch.report import EditCheck
from gramwright.editors.patch.review import Review, edit_diff

STATUS_STYLE = {"exact": ("✓", "green"), "tolerant": ("≈", "yellow"), "failed": ("✗", "bold red")}


def status_words(check: EditCheck) -> str:
    """``exact``, ``tolerant: indent`` or ``failed: not-found``."""
    loc = check.location
    if check.status == "tolerant" and loc.match is not None:
        return f"tolerant: {loc.match.tolerance}"
    if check.status == "failed":
        return f"failed: {loc.reason or 'no match'}"
    return "exact"


def edit_label(review: Review, check: EditCheck, applied: str | None = None) -> Text:
    """``☑ #1 ✓ exact L2–3`` — the tree leaf for one edit; ``☑ #1 ✓ applied L2–3`` for an
    accepted edit once ``applied`` (the journal entry) wrote it."""
    icon, style = STATUS_STYLE.get(check.status, ("?", ""))
    accepted = check.index in review.accepted
    words = status_words(check)
    if applied is not None and accepted:
        icon, style, words = "✓", "green", f"applied ({applied})"
    text = Text()
    text.append("☑ " if accepted else "☐ ", style="bold" if accepted else "dim")
    text.append(f"#{check.index} ")
    text.append(f"{icon} {words}", style=style)
    lines = check.lines
    if lines is not None:
        text.append(f" L{lines[0]}" + (f"–{lines[1]}" if lines[1] > lines[0] else ""), style="dim")
    elif check.location.nearest is not None:
        text.append(f" near {check.location.nearest.span}", style="dim")
    if check.index in review.new_text:
        text.append(" ✎", style="cyan")
    return text


def file_label(review: Review, path: str, stale: bool) -> Text:
    checks = [c for c in review.report.edits if c.path == path]
    accepted = sum(1 for c in checks if c.index in review.accepted)
    text = Text(path, style="bold")
    text.append(f"  {accepted}/{len(checks)} accepted", style="dim")
    if stale:
        text.append("  ⚠ changed on disk", style="bold yellow")
    return text


def summary(review: Review) -> Text:
    edits = review.report.edits
    counts = {s: sum(1 for e in edits if e.status == s) for s in ("exact", "tolerant", "failed")}
    text = Text()
    text.append(f"{len(edits)} edits: ")
    text.append(f"{counts['exact']} exact", style="green")
    text.append(", ")
    text.append(f"{counts['tolerant']} tolerant", style="yellow")
    text.append(", ")
    text.append(f"{counts['failed']} failed", style="red" if counts["failed"] else "")
    text.append(f" · {len(review.accepted)} accepted · {review.patch.format.value}", style="dim")
    return text


def edit_detail(review: Review, index: int) -> Text:
    """The selected edit: where and how it matched, its diff with context; or, when it failed,
    why, the nearest lines of the file (numbered, differing ones marked) and what the old text
    has instead."""
    check = review.check(index)
    loc = check.location
    icon, style = STATUS_STYLE.get(check.status, ("?", ""))
    text = Text()
    text.append(f"edit {index}", style="bold")
    text.append(f" · {check.path} · patch line {loc.edit.patch_line} · ")
    text.append(f"{icon} {status_words(check)}", style=style)
    text.append(" · accepted" if index in review.accepted else " · rejected", style="bold")
    if index in review.new_text:
        text.append(" · new text edited", style="cyan")
    text.append("\n")
    problems = [p for p in review.report.problems if p.path == check.path]
    for problem in problems:
        text.append(f"⚠ {problem.message}", style="yellow")
        text.append(f" — {problem.hint}\n" if problem.hint else "\n", style="dim")
    if check.status == "failed":
        text.append(f"{loc.message}\n", style="red")
        if loc.hint:
            text.append(f"{loc.hint}\n", style="dim")
        nearest = loc.nearest
        if nearest is not None:
            text.append(f"\nnearest: {nearest.span} ({nearest.similarity:.0%} similar)\n", style="bold")
            width = len(str(nearest.end_line))
            for near in nearest.lines:
                marked = f"{'!' if near.differs else ' '} {near.number:>{width}} │ {near.text}\n"
                text.append(marked, style="yellow" if near.differs else "")
            if nearest.unmatched:
                text.append("the old text has instead:\n", style="bold")
                for missing in nearest.unmatched:
                    text.append(f"  - {missing}\n", style="red")
        text.append("\nold text of the edit:\n", style="bold")
        for old in loc.edit.old:
            text.append(f"  - {old.rstrip()}\n", style="red")
        text.append("new text:\n", style="bold")
        for new in review.edit(index).new:
            text.append(f"  + {new.rstrip()}\n", style="green")
        return text
    if check.status == "tolerant" and loc.match is not None:
        text.append(f"matched only at the {loc.match.tolerance} level\n", style="yellow")
    rows = edit_diff(review, index)
    width = max((len(str(r.number)) for r in rows if r.number is not None), default=1)
    for row in rows:
        number = "" if row.number is None else str(row.number)
        shown = f"{row.mark} {number:>{width}} │ {row.text}\n"
        text.append(shown, style={"-": "red", "+": "green"}.get(row.mark, ""))
    return text
