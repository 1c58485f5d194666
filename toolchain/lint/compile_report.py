"""Our compiler's view of a schema: what it compiles exactly, approximates or discards, and its cost.

The compiler (``gramwright.schema.compile_schema``) is imported lazily: the linter works without it
and then says so in the cost estimate instead of guessing what our engine supports.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class KeywordStatus:
    pointer: str
    keyword: str
    status: str  # "exact" | "approximated" | "discarded"
    reason: str


@dataclass(slots=True)
class CompileOutcome:
    """``status``: ``ok``, ``rejected`` (a SchemaCompileError: ``error_pointer``/``error_reason``),
    ``timeout``, or ``crashed`` (any other exception: a compiler bug, reported, never raised)."""

    status: str
    entries: list[KeywordStatus] = field(default_factory=list)
    error_pointer: str = ""
    error_reason: str = ""
    grammar_rules: int | None = None
    gbnf_bytes: int | None = None
    compile_ms: float | None = None


def compiler_available() -> bool:
    return _load("gramwright.schema", "compile_schema") is not None


def _load(module: str, name: str) -> Any:
    """``module.name`` or ``None``: the compiler is another package's work in progress, so it is
    looked up at run time rather than imported (the linter must not depend on its presence)."""
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def run_compiler(schema: Any, base_uri: str | None = None, timeout_s: float = 0.0) -> CompileOutcome | None:
    """Compile ``schema``; ``None`` when the compiler is not installed. ``timeout_s`` (0: none) is
    passed as ``CompileOptions(timeout_s=...)`` when the compiler takes options."""
    compile_schema = _load("gramwright.schema", "compile_schema")
    error_type = _load("gramwright.schema.errors", "SchemaCompileError")
    if compile_schema is None or error_type is None:
        return None
    kwargs: dict[str, Any] = {"base_uri": base_uri}
    options_type = _load("gramwright.schema", "CompileOptions")
    if timeout_s and options_type is not None:
        kwargs["options"] = options_type(timeout_s=timeout_s)
    start = time.perf_counter()
    try:
        compiled = compile_schema(schema, **kwargs)
    except error_type as exc:
        return CompileOutcome(
            "rejected",
            error_pointer=str(getattr(exc, "pointer", "") or ""),
            error_reason=str(getattr(exc, "reason", "") or exc),
            compile_ms=(time.perf_counter() - start) * 1000,
        )
    except TimeoutError:
        elapsed = (time.perf_counter() - start) * 1000
        return CompileOutcome("timeout", error_reason=f"no grammar after {timeout_s:g} s", compile_ms=elapsed)
    except Exception as exc:  # noqa: BLE001 - a compiler bug must show up in the report, not crash lint
        elapsed = (time.perf_counter() - start) * 1000
        return CompileOutcome("crashed", error_reason=f"{type(exc).__name__}: {exc}", compile_ms=elapsed)
    elapsed = float(getattr(compiled, "compile_ms", 0.0) or (time.perf_counter() - start) * 1000)
    entries = [
        KeywordStatus(str(e.pointer), str(e.keyword), str(e.status), str(e.reason))
        for e in getattr(getattr(compiled, "report", None), "entries", ())
    ]
    outcome = CompileOutcome("ok", entries, compile_ms=elapsed)
    grammar = getattr(compiled, "grammar", None)
    rules = getattr(grammar, "rules", None)
    if rules is not None:
        outcome.grammar_rules = len(rules)
    emit_gbnf = _load("gramwright.grammar.gbnf", "emit_gbnf")
    if emit_gbnf is not None and grammar is not None:
        try:
            outcome.gbnf_bytes = len(str(emit_gbnf(grammar)).encode("utf-8"))
        except Exception:  # noqa: BLE001 - the size is an estimate; an emitter bug must not stop lint
            outcome.gbnf_bytes = None
    return outcome
