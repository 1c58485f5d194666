"""Our compiler's view of a schema: what it compiles exactly, approximates or discards, and its cost.

The linter sits above the schema package (``grammar ← regex ← schema ← lint``) and calls
``compile_schema`` directly; whatever the compiler says — a report, a refusal, a timeout, a crash —
becomes a :class:`CompileOutcome` that the ``compile/*`` rules read, so lint never raises for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from gramwright.grammar.gbnf import emit_gbnf
from gramwright.schema import CompileOptions, ReportEntry, SchemaCompileError, compile_schema
from gramwright.schema.errors import SchemaTooDeep


@dataclass(slots=True)
class CompileOutcome:
    """``status``: ``ok``, ``rejected`` (a SchemaCompileError: ``error_pointer``/``error_reason``),
    ``too_deep`` (past the depth the compiler takes: ``size/nesting-depth`` says so), ``timeout``,
    or ``crashed`` (any other exception: a compiler bug, reported, never raised)."""

    status: str
    entries: list[ReportEntry] = field(default_factory=list)
    error_pointer: str = ""
    error_reason: str = ""
    grammar_rules: int | None = None
    gbnf_bytes: int | None = None
    compile_ms: float | None = None


def run_compiler(schema: Any, base_uri: str | None = None, timeout_s: float = 0.0) -> CompileOutcome:
    """Compile ``schema`` (``timeout_s``: give up after that long; 0, never) and say how it went."""
    options = CompileOptions(timeout_s=timeout_s) if timeout_s else CompileOptions()
    start = time.perf_counter()

    def elapsed() -> float:
        return (time.perf_counter() - start) * 1000

    try:
        compiled = compile_schema(schema, base_uri=base_uri, options=options)
    except SchemaTooDeep as exc:
        return CompileOutcome(
            "too_deep", error_pointer=exc.pointer, error_reason=exc.message, compile_ms=elapsed()
        )
    except SchemaCompileError as exc:
        return CompileOutcome(
            "rejected", error_pointer=exc.pointer, error_reason=exc.reason, compile_ms=elapsed()
        )
    except TimeoutError:
        return CompileOutcome(
            "timeout", error_reason=f"no grammar after {timeout_s:g} s", compile_ms=elapsed()
        )
    except Exception as exc:  # noqa: BLE001 - a compiler bug must show up in the report, not crash lint
        return CompileOutcome("crashed", error_reason=f"{type(exc).__name__}: {exc}", compile_ms=elapsed())
    outcome = CompileOutcome(
        "ok",
        list(compiled.report.entries),
        grammar_rules=len(compiled.grammar.rules),
        compile_ms=compiled.compile_ms,
    )
    try:
        outcome.gbnf_bytes = len(emit_gbnf(compiled.grammar).encode("utf-8"))
    except Exception:  # noqa: BLE001 - the size is an estimate; an emitter bug must not stop lint
        outcome.gbnf_bytes = None
    return outcome
