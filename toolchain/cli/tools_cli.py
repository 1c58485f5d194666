"""The tool-calling and reasoning side of ``generate``, ``compile`` and ``lint``
(``--tools``, ``--tool-choice``, ``--parallel``, ``--reasoning``).

Thin: tools are :mod:`gramwright.tools`, reasoning :mod:`gramwright.reasoning`, the request
bodies :mod:`gramwright.tools.export`; what is printed is :mod:`gramwright.cli.render.tools`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gramwright.cli import common

if TYPE_CHECKING:
    from gramwright.lint import LintReport
    from gramwright.reasoning import Reasoning
    from gramwright.sources import CompiledSource
    from gramwright.tools import ToolSession

__all__ = [
    "compile_turn",
    "generate_turn",
    "lint_tools_report",
    "parallel_option",
    "reasoning_close_option",
    "reasoning_of",
    "reasoning_open_option",
    "reasoning_option",
    "tool_choice_option",
    "tools_option",
]


def tools_option() -> Any:
    return typer.Option(
        None, "--tools", help="OpenAI's tools list (JSON): constrain tool calls (docs/tools.md)."
    )


def tool_choice_option() -> Any:
    return typer.Option("auto", "--tool-choice", help="auto | required | none | a tool's name.")


def parallel_option() -> Any:
    return typer.Option(
        None, "--parallel", min=1, help="At most N calls (1 = parallel_tool_calls=false); default: no limit."
    )


def reasoning_option() -> Any:
    return typer.Option(
        None, "--reasoning", min=1, help="A <think>…</think> section of at most N tokens before the output."
    )


def reasoning_open_option() -> Any:
    return typer.Option("<think>", "--reasoning-open", help="The reasoning section's opening marker.")


def reasoning_close_option() -> Any:
    return typer.Option("</think>", "--reasoning-close", help="The reasoning section's closing marker.")


def reasoning_of(tokens: int | None, open_marker: str, close_marker: str) -> Reasoning | None:
    if tokens is None:
        return None
    from gramwright.reasoning import Reasoning

    with common.user_errors():
        return Reasoning(tokens, open_marker, close_marker)


def session_of(tools: str, choice: str, parallel: int | None) -> ToolSession:
    from gramwright.tools import prepare_tools

    with common.user_errors():
        return prepare_tools(tools, choice=choice, parallel=parallel)


def generate_turn(
    session: ToolSession,
    prompt: str,
    *,
    model: str | None,
    sampling: Any,
    reasoning: Reasoning | None,
    fmt: str,
) -> None:
    """`generate --tools`: one turn; stdout is the assistant message (OpenAI's shape)."""
    from rich.console import Console

    from gramwright.cli.render import tools as render
    from gramwright.generation import Generator
    from gramwright.tools.generate import generate_tool_calls

    console = Console(stderr=True)
    generator = Generator(model)
    with common.user_errors():
        with console.status("loading model…") as status:
            generator.load_model(progress=lambda msg: status.update(msg))
        result = generate_tool_calls(
            session, prompt, generator=generator, sampling=sampling, reasoning=reasoning
        )
    if fmt == "json":
        typer.echo(common.dump_json(result.to_dict()), nl=False)
    else:
        typer.echo(common.dump_json(result.output.message()), nl=False)
        for line in render.stderr_lines(result):
            typer.echo(line, err=True)
    raise typer.Exit(common.EXIT_OK if result.output.valid else common.EXIT_FINDINGS)


def compile_turn(
    loaded: CompiledSource | None,
    session: ToolSession | None,
    reasoning: Reasoning | None,
    target: str | None,
    fmt: str,
    output: Path | None,
) -> None:
    """`compile --tools/--reasoning`: the turn's GBNF, a text export of it, or a request body."""
    from gramwright.grammar.export import TARGETS, export_grammar
    from gramwright.grammar.gbnf import emit_gbnf
    from gramwright.tools.export import TOOL_TARGETS, export_turn, turn_grammar

    tools = session.grammar if session is not None else None
    out_grammar = loaded.grammar if loaded is not None else None
    with common.user_errors():
        grammar = turn_grammar(tools, reasoning, out_grammar)
        if target is None:
            text, notes, body = emit_gbnf(grammar), [], None
        elif target in TOOL_TARGETS:
            turn = export_turn(target, tools=tools, reasoning=reasoning, output=out_grammar)
            text, notes, body = turn.text, turn.notes, turn.body
        elif target in TARGETS:
            exported = export_grammar(grammar, target)
            text, notes, body = exported.text, exported.notes, None
        else:
            common.fail(f"unknown --target {target!r}", f"use one of: {' | '.join(TARGETS)}")
    if fmt == "json":
        payload = {
            "target": target or "gbnf",
            "text": text if body is None else None,
            "body": body,
            "notes": notes,
        }
        common.write_output(common.dump_json(payload), output)
        return
    for line in notes:
        typer.echo(f"note: {line}", err=True)
    common.write_output(text, output)


def lint_tools_report(path: str, profile: Any) -> LintReport:
    """`lint --tools`: the tool-set rules, then every tool's argument schema linted as a schema
    (its pointers prefixed with the tool's place in the file)."""
    from dataclasses import replace

    from gramwright.lint import LintReport, lint_schema
    from gramwright.tools import load_tools
    from gramwright.tools.lint import lint_tools

    with common.user_errors():
        toolset = load_tools(path)
        diagnostics = list(lint_tools(toolset, profile.name))
        for tool in toolset.tools:
            report = lint_schema(tool.parameters, profile=profile, file=path)
            at = f"{tool.pointer}/parameters"
            diagnostics += [replace(d, pointer=at + d.pointer) for d in report.diagnostics]
    return LintReport(file=path, profile=profile.name, dialect="tools", diagnostics=diagnostics)
