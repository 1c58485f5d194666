"""`gramwright lint`: lint JSON Schemas for constrained decoding, per target engine or provider."""

from __future__ import annotations

import importlib
import json
import sys
from enum import StrEnum
from typing import Any

import typer

from gramwright.cli import common

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


def _parse(path: str, raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        common.fail(f"{path}: not UTF-8 text: {exc.reason} at byte {exc.start}")
    try:
        return json.loads(text), text
    except json.JSONDecodeError as exc:
        common.fail(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}", "a schema file must be JSON")


def _tokenizer(name: str | None, needed: bool) -> tuple[Any, str]:
    """The tokenizer for budget/max-tokens: explicit ``--tokenizer`` failures are usage errors; the
    default embedded model's tokenizer is best effort (the estimate falls back to bytes/3.5)."""
    if not needed:
        return None, ""
    try:
        # Looked up at run time: gramwright.models is another module's work and may be absent.
        load_tokenizer = importlib.import_module("gramwright.models").load_tokenizer
    except (ImportError, AttributeError) as exc:
        if name:
            common.fail(f"--tokenizer {name}: tokenizer loading is not available ({exc})")
        typer.echo("note: no tokenizer available; counting tokens as bytes/3.5 (approximate)", err=True)
        return None, ""
    try:
        return load_tokenizer(name), name or "default model"
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: any loader failure becomes one line
        if name:
            common.fail(f"--tokenizer {name}: cannot load it: {type(exc).__name__}: {exc}")
        typer.echo(f"note: default tokenizer unavailable ({exc}); counting tokens as bytes/3.5", err=True)
        return None, ""


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
        documents: list[tuple[str, Any, str]] = []
        for path in schemas:
            document, text = _parse(path, common.read_bytes(path))
            documents.append((path, document, text))
        tok, tok_name = _tokenizer(tokenizer, needed=max_tokens is not None or tokenizer is not None)
        options = LintOptions(
            max_tokens=max_tokens,
            tokenizer=tok,
            tokenizer_name=tok_name,
            compile=not no_compile,
            ignore=tuple(ignore),
        )
        reports = [lint_schema(doc, profile=prof, options=options, file=path) for path, doc, _ in documents]
        if output_format is OutputFormat.json:
            sys.stdout.write(render_json(reports))
        elif output_format is OutputFormat.sarif:
            sys.stdout.write(render_sarif(reports, {path: text for path, _, text in documents}))
        else:
            sys.stdout.write(render_human(reports, color=sys.stdout.isatty()))
        threshold = SEVERITY_RANK[fail_on.value]
        if any(SEVERITY_RANK[d.severity] >= threshold for r in reports for d in r.diagnostics):
            raise typer.Exit(common.EXIT_FINDINGS)
