"""The serving side of ``gramwright compile --target`` and ``gramwright check --engine``.

Thin: the exports are :mod:`gramwright.grammar.export`, the engine runs and dialect verdicts
:mod:`gramwright.serving`; this module runs them and prints what :mod:`gramwright.cli.render.grammar`
makes of them. The engines (the bench extra) are
imported only when ``--engine`` asks for one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gramwright.cli import common
from gramwright.cli.render import grammar as render
from gramwright.grammar.export import DIALECTS, SUBSTRING_TARGETS, TARGETS, SourceGrounding, export_grammar
from gramwright.grammar.ir import Grammar
from gramwright.sources import CompiledSource

__all__ = ["ENGINE_TARGETS", "check_with_engine", "compile_to_target"]

# The exports each engine is checked with: what vLLM/SGLang/llama.cpp would hand it.
ENGINE_TARGETS = {"xgrammar": ("gbnf", "lark"), "llguidance": ("gbnf", "lark", "llamacpp-lark")}


def _approximations(loaded: CompiledSource) -> list[dict[str, str]]:
    return [item.to_dict() for item in loaded.report if item.status != "exact"]


def compile_to_target(
    loaded: CompiledSource, target: str, fmt: str, output: Path | None, source_text: str | None = None
) -> None:
    """Write ``target``'s export (``--format json``: with the notes and the compile report);
    ``source_text``: the grounded members' values built in, as far as the target carries them."""
    if target not in TARGETS:
        common.fail(f"unknown --target {target!r}", f"use one of: {' | '.join(TARGETS)}")
    with common.user_errors():
        grammar, source = loaded.grammar, None
        if source_text is not None and loaded.grounded:
            grammar, source = _grounded(loaded, source_text, target)
        exported = export_grammar(
            grammar,
            target,
            schema=loaded.schema if loaded.is_schema else None,
            approximations=_approximations(loaded),
            grounded=[spec.pointer for spec in loaded.grounded],
            source=source,
        )
    if fmt == "json":
        common.write_output(common.dump_json(render.target_data(target, exported, loaded)), output)
        return
    for line in exported.notes:
        typer.echo(f"note: {line}", err=True)
    common.write_output(exported.text, output)


def _grounded(loaded: CompiledSource, text: str, target: str) -> tuple[Grammar, SourceGrounding]:
    """The grammar to export with ``text``'s grounding, and what it holds: a substring constraint
    where the target has one, else the grammar generation runs under (the automaton as rules)."""
    if target in SUBSTRING_TARGETS:
        built = loaded.for_export(text)
        return built.grammar, SourceGrounding(built.substrings, built.strings, built.numbers, built.bounds)
    grounded = loaded.with_source(text)
    marker = "x-grounded: too many distinct substrings"
    loose = {e.pointer.removesuffix("/maxLength") for e in grounded.report if e.reason.startswith(marker)}
    strings = tuple(s.pointer for s in loaded.grounded if s.kind == "string")
    numbers = tuple(s.pointer for s in loaded.grounded if s.kind != "string")
    return grounded.grammar, SourceGrounding({}, strings, numbers, tuple(p for p in strings if p in loose))


def check_engine_name(engine: str | None) -> None:
    """Refuse an unknown ``--engine`` before any work is done (or printed)."""
    if engine is not None and engine not in ENGINE_TARGETS:
        common.fail(f"unknown --engine {engine!r}", "use xgrammar or llguidance")


def check_with_engine(loaded: CompiledSource, engine: str, data: bytes, ours: bool, fmt: str) -> int:
    """Run ``data`` through each export ``engine`` reads; print the verdicts beside ours and how
    the servers will detect each text's dialect. The exit code is the engine's verdict."""
    from gramwright.serving import detect_dialects, load_in_engine

    check_engine_name(engine)
    results: list[dict[str, Any]] = []
    with common.user_errors():
        for target in ENGINE_TARGETS[engine]:
            text = export_grammar(loaded.grammar, target).text
            verdict = load_in_engine(engine, DIALECTS[target], text).check(data)
            results.append({**verdict.to_dict(), "target": target, "detected_as": detect_dialects(text)})
    accepted = all(r["accepted"] for r in results)
    if fmt == "json":
        typer.echo(common.dump_json(render.engine_data(engine, accepted, ours, results)), nl=False)
    else:
        for line in render.engine_lines(engine, results, ours):
            typer.echo(line, err=True)
    return common.EXIT_OK if accepted else common.EXIT_FINDINGS
