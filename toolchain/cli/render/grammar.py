"""How `gramwright compile` and `gramwright check` print: the GBNF (or an export) with the compile
report on stderr, the verdict on stderr, and the engines' verdicts beside ours (``--engine``);
their JSON payloads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gramwright.grammar.export import Export
    from gramwright.sources import CompiledSource


def report_lines(loaded: CompiledSource) -> list[str]:
    """Compile's stderr: each approximated or discarded keyword, then each object that
    generation closes."""
    lines = [
        f"{item.status}: {item.pointer or '/'} {item.keyword}: {item.reason}"
        for item in loaded.report
        if item.status != "exact"
    ]
    lines += [
        f"closed: {pointer or '/'} takes no undeclared members while generating"
        for pointer in loaded.closed_objects
    ]
    lines += [spec.describe() + " (given one at generation)" for spec in loaded.grounded]
    return lines


def compile_data(loaded: CompiledSource, gbnf: str, for_generation: bool) -> dict[str, Any]:
    """`compile --format json`: the GBNF, its size, the compile time and report (and, with
    --for-generation, the closed objects)."""
    payload: dict[str, Any] = {
        "gbnf": gbnf,
        "rules": len(loaded.grammar.rules),
        "compile_ms": round(loaded.compile_ms, 3),
        "report": [item.to_dict() for item in loaded.report],
    }
    if for_generation:
        payload["closed_objects"] = list(loaded.closed_objects)
    if loaded.grounded:  # x-grounded members: their values come from a source at generation
        payload["grounded"] = [spec.to_dict() for spec in loaded.grounded]
    return payload


def target_data(target: str, exported: Export, loaded: CompiledSource) -> dict[str, Any]:
    """`compile --target T --format json`: the export (text, or a request body), its notes and
    the compile report."""
    return {
        "target": target,
        "text": exported.text if exported.body is None else None,
        "body": exported.body,
        "notes": exported.notes,
        "report": [item.to_dict() for item in loaded.report],
    }


def engine_data(engine: str, accepted: bool, ours: bool, results: list[dict[str, Any]]) -> dict[str, Any]:
    """`check --engine E --format json`: the engine's verdict on each export beside ours."""
    return {"engine": engine, "accepted": accepted, "recognizer": ours, "exports": results}


def engine_lines(engine: str, results: list[dict[str, Any]], ours: bool) -> list[str]:
    """`check --engine E`'s stderr: per export, the engine's verdict (and whether it differs from
    ours) and how each server reads the text's dialect."""
    lines = []
    for r in results:
        word = "accepts" if r["accepted"] else f"{r['reason']} at byte {r['consumed']}"
        agree = "" if r["accepted"] == ours else "  (differs from gramwright's recognizer!)"
        lines.append(f"{engine} on the {r['target']} export: {word}{agree}")
        detected = ", ".join(f"{k} reads {v}" for k, v in r["detected_as"].items())
        lines.append(f"  dialect: {detected}")
    return lines
