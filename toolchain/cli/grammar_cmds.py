"""`gramwright compile` and `gramwright check`: grammar sources → canonical GBNF, documents → verdict.

What they print is :mod:`gramwright.cli.render.grammar`."""

from __future__ import annotations

from pathlib import Path

import typer

from gramwright.api import check_document
from gramwright.checking import CheckForm
from gramwright.cli import common, tools_cli
from gramwright.cli.render import grammar as render
from gramwright.cli.serving_cli import check_engine_name, check_with_engine, compile_to_target
from gramwright.grammar.export import TARGETS as EXPORT_TARGETS
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.sources import Whitespace, load_for_generation, load_source

COMPILE_HELP = """Compile a grammar source to canonical GBNF (llama.cpp dialect).

SOURCE is a .gbnf file, a JSON Schema (.json) or a bundled grammar name (json, arithmetic, …).
The compile report (approximated / discarded schema keywords) goes to stderr.

The output is the schema's grammar as the specification reads it: an object without
additionalProperties takes other members. Generation closes such objects (no invented keys);
--for-generation prints that grammar instead and lists the closed objects (JSON Pointers).

Examples:

  gramwright compile grammars/json.gbnf

  gramwright compile schema.json -o schema.gbnf

  gramwright compile schema.json --for-generation   # the grammar `generate` runs under

  gramwright compile schema.json --format json | jq .report

  gramwright compile --tools tools.json --target vllm-request     # a structural_tag body

  gramwright compile --tools tools.json --tool-choice auto --target llamacpp-request   # lazy grammar

  gramwright compile schema.json --reasoning 128 --target sglang-request   # <think> then the value

  gramwright compile docs/examples/contact_grounded.json --target lark --source note.txt   # grounded
"""

CHECK_HELP = """Check that a document belongs to a grammar.

Exit 0 accepted, 1 rejected (stderr says where, what was allowed, and which schema keyword),
2 usage or grammar error. Under a schema a JSON document is judged as written (--form document,
the default): its value, in any member order, number spelling (100.0, 1e2) and whitespace, by
the schema's grammar; where the compile report lists an approximated keyword the verdict says
that it rests on one, and the validator (jsonschema) decides there. --form bytes judges the bytes
as generation writes them (compact, members in schema order, canonical numbers) and says which
difference is the cause of a rejection. A GBNF grammar is always judged byte for byte. One final
newline (\\n or \\r\\n) that the grammar does not accept there is ignored, and the verdict says so
(--exact: never).

Examples:

  gramwright check grammars/json.gbnf doc.json

  gramwright check schema.json other-tool-output.json

  gramwright check schema.json pretty.json --form bytes --whitespace flexible

  echo '{"a":1}' | gramwright check schema.json -

--stream reads stdin as it arrives (a hosted API's output, piped in as it comes) and reports the
first byte at which the text can never complete the moment that byte is read, with the same
offset, line:col, allowed bytes and schema pointer the whole-document check gives; after each
piece, "incomplete so far" or "complete so far". Exit 0 only when the stream ended complete
and valid (docs/streaming.md):

  printf '{"supplier":"ACME","total_amount":-5' | gramwright check --stream docs/examples/purchase_order.json
"""


COMPILE_FORMATS = ("gbnf", "json")


def _whitespace(value: str) -> Whitespace:
    if value not in ("compact", "flexible"):
        common.fail(f"unknown --whitespace {value!r}", "use compact or flexible")
    return "flexible" if value == "flexible" else "compact"


def register(app: typer.Typer) -> None:
    app.command("compile", help=COMPILE_HELP)(compile_cmd)
    app.command("check", help=CHECK_HELP)(check_cmd)


def compile_cmd(
    source: str | None = typer.Argument(
        None, help="A .gbnf file, a JSON Schema .json, or a bundled name (not with --tools)."
    ),
    fmt: str = common.format_option(COMPILE_FORMATS, default="gbnf"),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write here (atomically)."),
    whitespace: str = typer.Option("compact", help="Schemas: compact | flexible (bounded)."),
    target: str | None = typer.Option(
        None,
        "--target",
        "-t",
        help="Export for a server: " + " | ".join(EXPORT_TARGETS) + " (docs/serving.md).",
    ),
    allow_invalid_pattern: bool = typer.Option(
        False,
        "--allow-invalid-pattern",
        help="Compile even when a pattern is no valid regex (it is dropped from the grammar).",
    ),
    ground: bool = typer.Option(
        False,
        "--ground",
        help="Schemas: mark every string without enum/const/format/pattern x-grounded (listed in "
        "the report; the grammar takes a source's values only at generation).",
    ),
    source_path: str | None = typer.Option(
        None,
        "--source",
        help="With --target: hold the x-grounded members to this text (a file, or - for stdin): "
        "its numbers, and its words as a substring constraint (lark, llamacpp-lark) or as rules.",
    ),
    for_generation: bool = typer.Option(
        False,
        "--for-generation",
        help="Schemas: the grammar generation uses (objects closed unless the schema's x-runtime "
        "says open_objects: true), with the closed objects listed.",
    ),
    tools: str | None = tools_cli.tools_option(),
    tool_choice: str = tools_cli.tool_choice_option(),
    parallel: int | None = tools_cli.parallel_option(),
    reasoning_tokens: int | None = tools_cli.reasoning_option(),
    reasoning_open: str = tools_cli.reasoning_open_option(),
    reasoning_close: str = tools_cli.reasoning_close_option(),
) -> None:
    fmt = common.output_format(fmt, choices=COMPILE_FORMATS)
    space = _whitespace(whitespace)
    if (source is None) == (tools is None):
        common.fail("give a SOURCE or --tools (one of them)", "e.g. gramwright compile schema.json")
    reasoning = tools_cli.reasoning_of(reasoning_tokens, reasoning_open, reasoning_close)
    if tools is not None:
        common.check_output(output, tools)
        session = tools_cli.session_of(tools, tool_choice, parallel)
        tools_cli.compile_turn(None, session, reasoning, target, fmt, output)
        return
    assert source is not None
    common.check_output(output, source)
    with common.user_errors():
        if for_generation:
            loaded = load_for_generation(source, whitespace=space, ground=ground)
        else:
            loaded = load_source(source, whitespace=space, ground=ground)
        text = emit_gbnf(loaded.grammar)
    invalid = [item for item in loaded.report if item.invalid_regex]
    if invalid and not allow_invalid_pattern:
        # lint calls it an error (meta/invalid-schema): a grammar without it is not the schema
        first = invalid[0]
        reason = first.reason.removeprefix("regex not expressible: ")
        common.fail(
            f"{source}: schema {first.pointer or '/'}: {reason}",
            "fix the regular expression, or pass --allow-invalid-pattern to compile without it",
        )
    if reasoning is not None:
        tools_cli.compile_turn(
            load_for_generation(source, whitespace=space), None, reasoning, target, fmt, output
        )
        return
    if target is not None:
        source_text = None if source_path is None else common.read_text(source_path, "--source")
        compile_to_target(loaded, target, fmt, output, source_text)
        return
    if source_path is not None:
        common.fail("--source builds a source into an export", "add --target lark (or another target)")
    if fmt == "json":
        common.write_output(common.dump_json(render.compile_data(loaded, text, for_generation)), output)
    else:
        for line in render.report_lines(loaded):
            typer.echo(line, err=True)
        common.write_output(text, output)


def check_cmd(
    grammar: str = typer.Argument(..., help="A .gbnf file, a JSON Schema .json, or a bundled name."),
    document: str | None = typer.Argument(
        None, help="The document to check, or - for stdin (--stream: stdin, always)."
    ),
    exact: bool = typer.Option(False, "--exact", help="Never ignore a final newline."),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="Read stdin as it arrives: report where it stands after each piece and the first "
        "byte that can never complete the moment it is read (NDJSON with --format json).",
    ),
    fmt: str = common.format_option(),
    whitespace: str = typer.Option("compact", help="Schemas: compact | flexible (bounded)."),
    form: str = typer.Option(
        "document",
        "--form",
        help="Schemas: document (the value as written, any member order and number spelling) "
        "| bytes (byte for byte as generation writes it).",
    ),
    engine: str | None = typer.Option(
        None, "--engine", help="Also run it through the exports in xgrammar | llguidance (bench extra)."
    ),
) -> None:
    fmt = common.output_format(fmt)
    space = _whitespace(whitespace)
    check_engine_name(engine)
    if form not in ("document", "bytes"):
        common.fail(f"unknown --form {form!r}", "use document or bytes")
    judged_form: CheckForm = "bytes" if form == "bytes" or engine is not None else "document"
    with common.user_errors():
        loaded = load_source(grammar, whitespace=space)
    if stream:
        if document not in (None, "-") or engine is not None:
            common.fail(
                "--stream reads the document from stdin", "pipe it in: … | gramwright check --stream S"
            )
        from gramwright.cli.streaming_cli import check_stream

        with common.user_errors():
            raise typer.Exit(check_stream(loaded, exact=exact, fmt=fmt))
    if document is None:  # optional only for --stream: said as the parser says a missing argument
        common.fail("gramwright check: missing argument DOCUMENT", "see 'gramwright check --help'")
    data = common.read_bytes(document)
    with common.user_errors():
        verdict = check_document(loaded, data, exact=exact, form=judged_form)
    if engine is not None:  # the server's engine decides the exit code (docs/serving.md)
        if fmt == "human":
            typer.echo(f"gramwright: {verdict.message}", err=True)
        judged = data[:-1].removesuffix(b"\r") if verdict.final_newline_ignored else data
        raise typer.Exit(check_with_engine(loaded, engine, judged, verdict.accepted, fmt))
    if fmt == "json":
        typer.echo(common.dump_json(verdict.to_dict()), nl=False)
    else:
        typer.echo(verdict.message, err=True)
    raise typer.Exit(common.EXIT_OK if verdict.accepted else common.EXIT_FINDINGS)
