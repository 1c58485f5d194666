"""Human output: grouped by file, one line per diagnostic (severity, rule, pointer, message), the hint
below it, the cost estimate, and a summary line. Colour only on a terminal."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from gramwright.lint.diagnostic import CostEstimate, LintReport

_STYLE = {"error": "bold red", "warn": "yellow", "info": "cyan"}


def _cost_line(cost: CostEstimate) -> str:
    parts = [
        f"depth {cost.max_depth}" if cost.max_depth is not None else "depth unbounded (recursive)",
        f"{cost.optional_properties} optional properties",
        f"largest enum {cost.largest_enum}",
    ]
    if cost.max_output_tokens is not None:
        approx = "≈" if cost.tokens_approximate else ""
        parts.append(f"output ≤ {approx}{cost.max_output_tokens} tokens ({cost.token_counter})")
    elif cost.tokens_unbounded:
        parts.append(f"output unbounded ({cost.tokens_unbounded_at})")
    else:
        parts.append("output not estimated")
    if cost.grammar_rules is not None or cost.gbnf_bytes is not None:
        gbnf = f"{cost.gbnf_bytes} B GBNF" if cost.gbnf_bytes is not None else "GBNF size n/a"
        ms = f", {cost.compile_ms:.1f} ms" if cost.compile_ms is not None else ""
        parts.append(f"grammar {cost.grammar_rules} rules, {gbnf}{ms}")
    else:
        parts.append(f"grammar: compiler {cost.compiler}")
    return " · ".join(parts)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_human(
    reports: Sequence[LintReport], *, color: bool = False, width: int = 110, cost: bool = True
) -> str:
    buf = io.StringIO()
    console = Console(
        file=buf, force_terminal=color, no_color=not color, width=width, highlight=False, soft_wrap=True
    )
    totals = {"error": 0, "warn": 0, "info": 0}
    for report in reports:
        header = Text(report.file, style="bold")
        header.append(f"  ({report.profile}, {report.dialect})", style="dim")
        console.print(header)
        for d in report.diagnostics:
            totals[d.severity] += 1
            line = Text("  ")
            line.append(f"{d.severity:<5}", style=_STYLE[d.severity])
            line.append(f"  {d.rule}", style="bold")
            line.append(f"  {d.pointer or '/'}", style="magenta")
            line.append(f"  {d.message}")
            console.print(line)
            if d.hint:
                console.print(Text(f"         hint: {d.hint}", style="dim"))
        if not report.diagnostics:
            console.print(Text("  no findings", style="green"))
        if cost:
            console.print(Text(f"  cost: {_cost_line(report.cost)}", style="dim"))
    summary = (
        f"{_plural(len(reports), 'file')}: {_plural(totals['error'], 'error')}, "
        f"{_plural(totals['warn'], 'warning')}, {_plural(totals['info'], 'info')}"
    )
    console.print(Text(summary, style="bold"))
    return buf.getvalue()
