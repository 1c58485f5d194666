"""`gramwright compile` and `gramwright check`: grammar sources → canonical GBNF, documents → verdict."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from gramwright.checking import check_document
from gramwright.cli import common
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.sources import LoadedGrammar, load_source

COMPILE_HELP = """Compile a grammar source to canonical GBNF (llama.cpp dialect).

SOURCE is a .gbnf file, a JSON Schema (.json) or a bundled grammar name (json, arithmetic, …).
The compile report (approximated / discarded schema keywords) goes to stderr.

Examples:

  gramwright compile grammars/json.gbnf

  gramwright compile schema.json -o schema.gbnf

  gramwright compile schema.json --format json | jq .report
"""

CHECK_HELP = """Check that a document belongs to a grammar (byte for byte).

Exit 0 accepted, 1 rejected (stderr says where, what was allowed, and which schema keyword),
2 usage or grammar error. One trailing newline is ignored unless --exact.

Examples:

  gramwright check grammars/json.gbnf doc.json

  echo '{"a":1}' | gramwright check schema.json -
"""


def _report_lines(loaded: LoadedGrammar) -> list[str]:
    return [
        f"{item.status}: {item.pointer or '/'} {item.keyword}: {item.reason}"
        for item in loaded.report
        if item.status != "exact"
    ]


def register(app: typer.Typer) -> None:
    @app.command("compile", help=COMPILE_HELP)
    def compile_cmd(
        source: str = typer.Argument(..., help="A .gbnf file, a JSON Schema .json, or a bundled name."),
        fmt: str = typer.Option("gbnf", "--format", "-f", help="gbnf | json"),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write here (atomically)."),
        whitespace: str = typer.Option("compact", help="Schemas: compact | flexible (bounded)."),
    ) -> None:
        if fmt not in ("gbnf", "json"):
            common.fail(f"unknown --format {fmt!r}", "use gbnf or json")
        if whitespace not in ("compact", "flexible"):
            common.fail(f"unknown --whitespace {whitespace!r}", "use compact or flexible")
        with common.user_errors():
            loaded = load_source(source, whitespace="flexible" if whitespace == "flexible" else "compact")
            text = emit_gbnf(loaded.grammar)
        if fmt == "json":
            payload = {
                "gbnf": text,
                "rules": len(loaded.grammar.rules),
                "compile_ms": round(loaded.compile_ms, 3),
                "report": [item.to_dict() for item in loaded.report],
            }
            common.write_output(common.dump_json(payload), output)
        else:
            for line in _report_lines(loaded):
                typer.echo(line, err=True)
            common.write_output(text, output)

    @app.command("check", help=CHECK_HELP)
    def check_cmd(
        grammar: str = typer.Argument(..., help="A .gbnf file, a JSON Schema .json, or a bundled name."),
        document: str = typer.Argument(..., help="The document to check, or - for stdin."),
        exact: bool = typer.Option(False, "--exact", help="Do not ignore one trailing newline."),
        fmt: str = typer.Option("human", "--format", "-f", help="human | json"),
    ) -> None:
        with common.user_errors():
            loaded = load_source(grammar)
            compiled = compile_grammar(loaded.grammar)
        data = common.read_bytes(document)
        if not exact:
            data = data.removesuffix(b"\n").removesuffix(b"\r")
        t0 = time.perf_counter()
        verdict = check_document(loaded, Recognizer(compiled), data)
        verdict["check_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        if fmt == "json":
            typer.echo(common.dump_json(verdict), nl=False)
        else:
            typer.echo(verdict["message"], err=True)
        raise typer.Exit(common.EXIT_OK if verdict["accepted"] else common.EXIT_FINDINGS)
