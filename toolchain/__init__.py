"""gramwright: make language-model output parseable by construction.

Masks guarantee the *form* of an output (it belongs to the grammar); they never guarantee its
*content* — validation and business rules do that, and every result says which it got.

The public API (the CLI and the TUI are thin layers over these)::

    import gramwright

    source = gramwright.compile_source("po.json")        # schema / .gbnf / bundled name → grammar
    print(source.inexact())                               # keywords the grammar only approximates
    verdict = gramwright.check_document(source, b'{"supplier":"ACME"}')
    report = gramwright.lint_schema("po.json", profile="openai-strict")
    result = gramwright.generate_structured(source, "Two laptops from Lenovo")  # embedded model
    print(result.text, result.finish_reason, result.validation)

* :func:`compile_source` → :class:`CompiledSource` (grammar, compile report, pointers, ``$ref`` registry)
* :func:`check_document` → :class:`CheckResult` (accepted? where it stopped, what was allowed, why)
* :func:`lint_schema` → :class:`LintReport` (diagnostics per target profile, cost estimate)
* :func:`generate_structured` → :class:`Generation`; :class:`Generator` keeps a model between runs
* :func:`run_pipeline` → :class:`StructuredResult`: constrain → validate, rules, budgeted retry →
  flagged salvage, under a :class:`Policy` (the schema's ``x-runtime``); :func:`validate_text` runs
  layers 2–3 on text produced elsewhere (extracted, repaired and logged), :func:`validate_output`
  only validates
* :func:`stream_generation` / :func:`stream_pipeline`: the same runs as NDJSON-ready events —
  tokens, each JSON value once the grammar has settled it (:class:`ValueStream`), and an ``end``
  event with the result; :class:`StreamCheck` checks a document as it arrives (docs/streaming.md)
* errors: :class:`GramwrightError` (``message``, ``where``, ``hint``) and one subclass per layer

Data flow (one way through): schema → lint / compile → Grammar IR → GBNF text and recognizer →
token engine → decode → pipeline. See docs/api.md.
"""

from typing import TYPE_CHECKING, Any

from gramwright.deferred import defer_rfc3987_syntax

defer_rfc3987_syntax()  # before anything imports jsonschema: ~1 s of its import, until an IRI is checked

if TYPE_CHECKING:
    from gramwright.api import check_document, compile_source, lint_schema
    from gramwright.checking import CheckResult
    from gramwright.errors import (
        EngineError,
        GrammarError,
        GramwrightError,
        ModelError,
        PatchError,
        PipelineError,
        SchemaError,
        SourceError,
    )
    from gramwright.generation import Generation, Generator, SamplingOptions, generate_structured
    from gramwright.lint import LintReport
    from gramwright.pipeline import Policy, StructuredResult, validate_text
    from gramwright.pipeline import run as run_pipeline
    from gramwright.sources import CompiledSource
    from gramwright.streaming import EventStream, ValueStream
    from gramwright.streaming.check import StreamCheck
    from gramwright.streaming.run import stream_generation, stream_pipeline
    from gramwright.validate import Validation, validate_output

# The public names are loaded on first use (PEP 562), so importing a light submodule — the pytest
# plugin every pytest run in a user's project loads, ``gramwright.cli.main`` for ``--help`` —
# does not pay for the compiler, the linter and jsonschema (~0.4 s) before it needs them.
_LAZY: dict[str, tuple[str, str]] = {
    **{name: ("gramwright.api", name) for name in ("check_document", "compile_source", "lint_schema")},
    "CheckResult": ("gramwright.checking", "CheckResult"),
    **{
        name: ("gramwright.errors", name)
        for name in (
            "EngineError",
            "GrammarError",
            "GramwrightError",
            "ModelError",
            "PatchError",
            "PipelineError",
            "SchemaError",
            "SourceError",
        )
    },
    **{
        name: ("gramwright.generation", name)
        for name in ("Generation", "Generator", "SamplingOptions", "generate_structured")
    },
    "LintReport": ("gramwright.lint", "LintReport"),
    **{name: ("gramwright.pipeline", name) for name in ("Policy", "StructuredResult", "validate_text")},
    "run_pipeline": ("gramwright.pipeline", "run"),
    "CompiledSource": ("gramwright.sources", "CompiledSource"),
    **{name: ("gramwright.streaming", name) for name in ("EventStream", "ValueStream")},
    "StreamCheck": ("gramwright.streaming.check", "StreamCheck"),
    **{name: ("gramwright.streaming.run", name) for name in ("stream_generation", "stream_pipeline")},
    **{name: ("gramwright.validate", name) for name in ("Validation", "validate_output")},
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'gramwright' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "CheckResult",
    "CompiledSource",
    "EngineError",
    "EventStream",
    "Generation",
    "Generator",
    "GrammarError",
    "GramwrightError",
    "LintReport",
    "ModelError",
    "PatchError",
    "PipelineError",
    "Policy",
    "SamplingOptions",
    "SchemaError",
    "SourceError",
    "StreamCheck",
    "StructuredResult",
    "Validation",
    "ValueStream",
    "__version__",
    "check_document",
    "compile_source",
    "generate_structured",
    "lint_schema",
    "run_pipeline",
    "stream_generation",
    "stream_pipeline",
    "validate_output",
    "validate_text",
]
