"""How `gramwright edit` prints: the run's numbers, the patch, its check (as `apply --check`
words it), the diff or the backup id. The JSON form is the result's own ``as_dict``."""

from __future__ import annotations

from gramwright.cli.render.apply import render_report
from gramwright.editors.generate.edit import EditResult


def render_edit(result: EditResult) -> str:
    """The run's numbers, the patch, its check, then the diff, the budget's cut, the refusal or
    truncation, and what was applied."""
    g = result.generation
    m = g.metrics
    lines = [
        f"{result.format.value}, {'constrained' if result.constrained else 'unconstrained'}:"
        f" {g.tokens} tokens, finish_reason {g.finish_reason}, grammar {result.grammar_ms:.0f} ms,"
        f" engine {result.engine_ms:.0f} ms, {m.get('ms_per_token', 0)} ms/token",
        "--- patch ---",
        result.patch_text.rstrip("\n"),
        "--- check ---",
    ]
    if result.parse_error:
        lines.append(f"not parsed: {result.parse_error}")
    elif result.report is not None:
        lines.append(render_report(result.report).rstrip("\n"))
    if result.diff:
        lines += ["--- diff (dry run; nothing written) ---", result.diff.rstrip("\n")]
    if result.cut:
        blocks = ", ".join(f"{c['block']} ({c['path']}:{c['patch_line']})" for c in result.cut)
        lines.append(f"closed by the budget: block(s) {blocks} may be cut short")
    if result.at_bound:
        what = "REPLACE" if result.format.value == "search-replace" else "run of + lines"
        blocks = ", ".join(f"{c['block']} ({c['path']}:{c['patch_line']})" for c in result.at_bound)
        lines.append(
            f"block(s) {blocks}: the {what} reached --max-replace-lines, which closed it; a line the"
            " model meant to write (or keep) may be missing: read the diff, or raise the bound"
        )
    if result.refused:
        lines.append(result.refused)
    prefix_ok = result.report is not None and result.report.ok
    if result.applied is None and result.finish_reason != "stop" and prefix_ok:
        lines.append(f"truncated (finish_reason {g.finish_reason}): not applicable, not applied")
    elif result.finish_reason != "stop":
        what = "each REPLACE section" if result.format.value == "search-replace" else "each run of + lines"
        bound = f", or bound {what} with --max-replace-lines N"
        lines.append(
            f"truncated at {g.tokens} tokens (finish_reason {g.finish_reason}): raise --max-tokens{bound}"
        )
    if result.applied is not None and result.applied.applied:
        entry = result.applied.entry_id
        lines.append(
            f"applied: {len(result.applied.written)} file(s); backup {entry} (undo: gramwright undo {entry})"
        )
    return "\n".join(lines) + "\n"
