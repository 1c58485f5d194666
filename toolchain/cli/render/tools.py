"""How `gramwright generate --tools` reports on stderr: each call's verdict, the reasoning
section's size, and the run's cost (stdout is the assistant message itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gramwright.tools.generate import ToolGeneration


def stderr_lines(result: ToolGeneration) -> list[str]:
    out, gen = result.output, result.generation
    lines = []
    if gen.reasoning is not None:
        closed = " (closed by its budget)" if gen.reasoning_closed_by_budget else ""
        lines.append(f"reasoning: {gen.reasoning_tokens} tokens{closed}")
    for call in out.tool_calls:
        verdict = "valid" if call.valid else "INVALID: " + "; ".join(str(i) for i in call.issues)
        lines.append(f"call {call.name}: {verdict}")
    for error in out.errors:
        lines.append(f"malformed: {error}")
    if not out.tool_calls:
        lines.append("no tool call: the answer is text")
    lines.append(f"{gen.tokens} tokens, {gen.metrics.get('tokens_per_s', 0)} tokens/s ({gen.model})")
    return lines
