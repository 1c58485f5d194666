"""How `gramwright generate` prints: the text on stdout (streamed as it comes on a terminal), then
on stderr the run's numbers and what to know about the result — closed by the budget, a prompt
note, truncated, the schema's verdict. The JSON form is the result's own ``to_dict``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from gramwright.positions import LineIndex

if TYPE_CHECKING:
    from gramwright.generation import Generation
    from gramwright.models.loader import LoadedModel
    from gramwright.schema.grounding import GroundedValue
    from gramwright.sources import CompiledSource


def model_line(lm: LoadedModel) -> str:
    """Which model runs where, and how long it took to load."""
    return (
        f"model {lm.name} on {lm.device}, {lm.dtype} ({lm.load_s:.1f}s{', cached' if lm.from_cache else ''})"
    )


def grounding_line(source: CompiledSource, path: str | None) -> str:
    """Which members are grounded, in what text, and what building its grammar took."""
    where = "the prompt" if path is None else ("stdin" if path == "-" else path)
    members = ", ".join(g.pointer or "/" for g in source.grounded)
    chars = len(source.source_text or "")
    return f"grounded in {where} ({chars} characters, {source.ground_ms:.0f} ms): {members}"


def show_token(step: Any) -> None:
    """Stream one decoding step's text to stdout (a terminal sees the output as it is written)."""
    sys.stdout.write(step.text.decode("utf-8", "replace"))
    sys.stdout.flush()


def grounded_line(value: GroundedValue, lines: LineIndex | None) -> str:
    """``grounded /city: 'Lyon' at characters 23-27 of the source (line 1, column 24)``."""
    if value.start is None:
        return f"grounded {value.pointer or '/'}: {value.value!r} NOT in the source"
    at = f"characters {value.start}-{value.end} of the source"
    if lines is not None:
        line, column = lines.line_col(value.start)
        at += f" (line {line}, column {column})"
    if value.occurrences > 1:
        at += f", the first of {value.occurrences}"
    return f"grounded {value.pointer or '/'}: {value.value!r} at {at}"


def stderr_lines(result: Generation, max_tokens: int, source_text: str | None = None) -> list[str]:
    """The lines after the text: the metrics, then the budget's close, the prompt note, a
    truncation, each grounded value's span in ``source_text`` and the validation verdict, each
    where it applies."""
    m = result.metrics
    lines = [
        f"finish_reason={result.finish_reason} tokens={result.tokens} "
        f"{m.get('ms_per_token')} ms/token"
        + (f" mask p50={m['mask_us_p50']}µs p99={m['mask_us_p99']}µs" if "mask_us_p50" in m else "")
        + (f" clipped_mass avg={m['clipped_mass_avg']}" if "clipped_mass_avg" in m else "")
    ]
    if result.closed_by_budget:
        cut = ", ".join(repr(p) for p in result.cut) or "the values open then"
        lines.append(
            f"closed by the budget: --max-tokens {max_tokens} ran short at character "
            f"{result.closing_offset}; cut short: {cut} (raise --max-tokens for a fuller answer)"
        )
    if "prompt_note" in m:
        lines.append(f"note: {m['prompt_note']}")
    if result.finish_reason == "length":
        lines.append(
            f"truncated: the output hit --max-tokens {max_tokens} before the grammar's end "
            "(raise --max-tokens; a truncated output is never parsed as complete)"
        )
    index = LineIndex(source_text) if source_text is not None else None
    lines.extend(grounded_line(g, index) for g in result.grounded)
    v = result.validation
    if v is not None and not v.truncated:
        verdict = "valid" if v.valid else f"INVALID: {'; '.join(v.errors[:3])}"
        lines.append(f"schema validation: {verdict} (content is not guaranteed by masks)")
    return lines
