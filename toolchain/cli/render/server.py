"""How ``--server`` runs print: before the first request, what the server gets and what its
dialect cannot carry (stderr); after ``extract``, the recognizer's verdicts on the server's
completions and the throughput; after a one-attempt ``generate``, its numbers and verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gramwright.pipeline.backend import AttemptOutput
    from gramwright.serving import ServingPlan
    from gramwright.validate import Validation


def plan_lines(plan: ServingPlan) -> list[str]:
    """The serving plan, one line each (printed before any request)."""
    return plan.lines()


def summary_lines(s: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows of ``extract``'s ``server`` summary, for the summary table."""
    agree = "—" if s["agreement"] is None else f"{100 * s['agreement']:.1f}%"
    rate = (
        "—"
        if s["rows_per_s"] is None
        else f"{s['rows_per_s']:.3f} rows/s ({s['rows_this_run']} rows in {s['wall_s']:.1f} s, "
        f"concurrency {s['concurrency']})"
    )
    return [
        ("server", f"{s['server']} ({s['dialect']}, model {s['model']})"),
        (
            "grammar sent vs recognizer",
            f"{s['completions_checked']} completions: {s['recognizer_accepted']} accepted, "
            f"{s['recognizer_prefix_of_cut']} cut prefixes, {s['recognizer_rejected']} rejected "
            f"({agree} agree)",
        ),
        ("not carried", ", ".join(s["not_carried"]) or "—"),
        ("throughput", rate),
        ("connection retries", str(s["connection_retries"])),
    ]


def generate_payload(
    out: AttemptOutput, plan: ServingPlan, validation: Validation | None, constrained: bool, ok: bool
) -> dict[str, Any]:
    """``generate --server --format json``."""
    payload: dict[str, Any] = {
        "text": out.text,
        "finish_reason": out.finish_reason,
        "tokens": out.output_tokens,
        "prompt_tokens": out.prompt_tokens,
        "constrained": constrained,
        "seconds": round(out.seconds, 4),
        "plan": plan.to_dict(),
        "metrics": out.metrics,
        "grammar_error": out.grammar_error or None,
        "ok": ok,
    }
    if validation is not None:
        payload.update(validation.to_dict())
    return payload


def generate_lines(out: AttemptOutput, validation: Validation | None, max_tokens: int) -> list[str]:
    """The stderr lines after a ``generate --server`` text."""
    rate = f" {out.output_tokens / out.seconds:.1f} tokens/s" if out.seconds > 0 else ""
    check = out.metrics.get("server_grammar_check", "")
    lines = [f"finish_reason={out.finish_reason} tokens={out.output_tokens}{rate} recognizer: {check}"]
    if out.grammar_error:
        lines.append(f"grammar not enforced: {out.grammar_error}")
    if out.finish_reason == "length":
        lines.append(
            f"truncated: the server cut the output at --max-tokens {max_tokens} (a server cannot close "
            "an output in time as gramwright's masks do; raise --max-tokens)"
        )
    if validation is not None and not validation.truncated:
        verdict = "valid" if validation.valid else f"INVALID: {'; '.join(validation.errors[:3])}"
        lines.append(f"schema validation: {verdict} (content is not guaranteed by masks)")
    return lines
