"""`gramwright lint`: lint JSON Schemas for constrained decoding, per target engine or provider."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from gramwright.cli import common
from gramwright.schema.errors import SchemaTooDeep

EPILOG = """\
Examples:

  gramwright lint schema.json

  gramwright lint schemas/*.json --profile openai-strict --fail-on warn

  gramwright lint schema.json --profile openai-strict@2024-08   # the older, smaller limits

  gramwright lint schema.json --format sarif > lint.sarif       # CI annotations

  gramwright lint schema.json --max-tokens 512                # tokens of the embedded SmolLM2

  gramwright lint schema.json --max-tokens 512 --tokenizer ./my-model   # a local HF model dir or .gguf

  gramwright lint --list-rules

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage error or unreadable input.
"""


class OutputFormat(StrEnum):
    human = "human"
    json = "json"
    sarif = "sarif"


class FailOn(StrEnum):
    error = "error"
    warn = "warn"
    info = "info"


def register(app: typer.Typer) -> None:
    app.command(
        "lint",
        help="Lint JSON Schemas for everything that hurts constrained decoding (per target profile).",
        epilog=EPILOG,
        rich_help_panel=None,
    )(lint)


def _read(path: str) -> tuple[Any, str, SchemaTooDeep | None]:
    """The document and its text through the one schema reader; a text nested too deep to parse
    comes back as the error, which lint reports as a ``size/nesting-depth`` finding (exit 1), not
    as a usage error. Any other unreadable input raises (one line, exit 2)."""
    from gramwright.schema.load import decode_schema_bytes, parse_schema_text

    source = "<stdin>" if path == "-" else path
    text = decode_schema_bytes(common.read_bytes(path), source)
    try:
        return parse_schema_text(text, source, any_value=True), text, None
    except SchemaTooDeep as exc:
        return None, text, exc


def _tokenizer(name: str | None, needed: bool) -> tuple[Any, str]:
    """The tokenizer for budget/max-tokens: explicit ``--tokenizer`` failures are usage errors; the
    default embedded model's tokenizer is best effort (the estimate falls back to bytes/3.5)."""
    if not needed:
        return None, ""
    from gramwright.models import load_tokenizer

    try:
        return load_tokenizer(name), name or "default model"
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: any loader failure becomes one line
        if name:
            common.fail(f"--tokenizer {name}: cannot load it: {type(exc).__name__}: {exc}")
        typer.echo(f"note: default tokenizer unavailable ({exc}); counting tokens as bytes/3.5", err=True)
        return None, ""


def _base_uri(path: str) -> str | None:
    """The file's ``file://`` URI, so the compiler resolves ``$ref`` to sibling files (not stdin)."""
    return None if path == "-" else Path(path).resolve().as_uri()


def lint(
    schemas: list[str] = typer.Argument(
        None, metavar="SCHEMA...", help="Schema files (JSON). '-' reads standard input.", show_default=False
    ),
    profile: str = typer.Option(
        "gramwright",
        "--profile",
        "-p",
        help="Target: gramwright, openai-strict, anthropic, gemini, llguidance, xgrammar, llama-cpp; "
        "NAME@VERSION picks a dated version (openai-strict@2024-08).",
    ),
    output_format: OutputFormat = typer.Option(OutputFormat.human, "--format", "-f", help="Output format."),
    fail_on: FailOn = typer.Option(
        FailOn.error, "--fail-on", help="Exit 1 when a finding is at least this severe."
    ),
    ignore: list[str] = typer.Option(
        [], "--ignore", help="Rule id, namespace (size/) or glob to skip; repeatable."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", min=1, help="Generation budget: check the worst-case output against it."
    ),
    tokenizer: str | None = typer.Option(
        None, "--tokenizer", help="Count tokens with this model's tokenizer (default: the embedded model)."
    ),
    list_rules: bool = typer.Option(False, "--list-rules", help="Document every rule and exit."),
    no_compile: bool = typer.Option(False, "--no-compile", help="Skip our compiler (no compile report)."),
) -> None:
    with common.user_errors():
        from gramwright.lint import LintOptions, ProfileError, lint_schema, load_profile
        from gramwright.lint.diagnostic import SEVERITY_RANK
        from gramwright.lint.docs import rule_docs, rules_markdown
        from gramwright.lint.linter import too_deep_report
        from gramwright.lint.render import render_human, render_json, render_sarif

        if list_rules:
            if output_format is OutputFormat.json:
                sys.stdout.write(common.dump_json(rule_docs()))
            else:
                sys.stdout.write(rules_markdown() + "\n")
            return
        if not schemas:
            common.fail("no SCHEMA given", "gramwright lint schema.json (or --list-rules)")
        try:
            prof = load_profile(profile)
        except ProfileError as exc:
            common.fail(str(exc))
        documents = [(path, *_read(path)) for path in schemas]
        tok, tok_name = _tokenizer(tokenizer, needed=max_tokens is not None or tokenizer is not None)
        options = LintOptions(
            max_tokens=max_tokens,
            tokenizer=tok,
            tokenizer_name=tok_name,
            compile=not no_compile,
            ignore=tuple(ignore),
        )
        reports = [
            too_deep_report(too_deep, profile=prof, file=path)
            if too_deep is not None
            else lint_schema(doc, profile=prof, options=options, file=path, base_uri=_base_uri(path))
            for path, doc, _, too_deep in documents
        ]
        if output_format is OutputFormat.json:
            sys.stdout.write(render_json(reports))
        elif output_format is OutputFormat.sarif:
            sys.stdout.write(render_sarif(reports, {path: text for path, _, text, _ in documents}))
        else:
            sys.stdout.write(render_human(reports, color=sys.stdout.isatty()))
        threshold = SEVERITY_RANK[fail_on.value]
        if any(SEVERITY_RANK[d.severity] >= threshold for r in reports for d in r.diagnostics):
            raise typer.Exit(common.EXIT_FINDINGS)
