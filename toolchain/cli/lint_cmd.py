"""`gramwright lint`: lint JSON Schemas for constrained decoding, per target engine or provider.

The report's human, JSON and SARIF forms are the library's (:mod:`gramwright.lint.render`); the
baseline views around them are :mod:`gramwright.cli.render.lint`."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gramwright.cli import common
from gramwright.schema.errors import SchemaTooDeep

if TYPE_CHECKING:
    from gramwright.lint import LintReport
    from gramwright.lint.baseline import BaselineComparison

EPILOG = """\
Examples:

  gramwright lint schema.json

  gramwright lint schemas/*.json --profile openai-strict --fail-on warn

  gramwright lint schema.json --profile openai-strict@2024-08   # the older, smaller limits

  gramwright lint schema.json --format sarif > lint.sarif       # CI annotations

  gramwright lint schemas/*.json --baseline lint-baseline.json --update-baseline   # accept today's

  gramwright lint schemas/*.json --baseline lint-baseline.json  # then only new findings fail

  gramwright lint schema.json --max-tokens 512                # tokens of the embedded SmolLM2

  gramwright lint schema.json --max-tokens 512 --tokenizer ./my-model   # a local HF model dir or .gguf

  gramwright lint --list-rules

  gramwright lint --tools tools.json --profile openai-strict   # a tools list (docs/tools.md)

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it (with --baseline: new
findings only), 2 usage error or unreadable input.
"""


LINT_FORMATS = ("human", "json", "sarif")


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
    )(lint_cmd)


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
    from gramwright.extras import LOCAL_EXTRA_HINT, MissingExtraError, require_local
    from gramwright.models import load_tokenizer

    try:
        # the light install has no tokenizer library: say what to install, not the loader's failure
        require_local("counting tokens with a model's tokenizer", alternative="")
    except MissingExtraError as missing:
        if name:
            common.fail(f"--tokenizer {name}: {missing.one_line()}")
        typer.echo(
            f"note: no tokenizer in this install ({LOCAL_EXTRA_HINT} adds one); counting tokens as bytes/3.5",
            err=True,
        )
        return None, ""
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


def lint_cmd(
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
    output_format: str = common.format_option(LINT_FORMATS),
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
    source_text: str | None = typer.Option(
        None,
        "--source",
        help="The text x-grounded members copy from (a file, - for stdin): grounded/empty-source.",
    ),
    list_rules: bool = typer.Option(False, "--list-rules", help="Document every rule and exit."),
    no_compile: bool = typer.Option(False, "--no-compile", help="Skip our compiler (no compile report)."),
    baseline: Path | None = typer.Option(
        None, "--baseline", help="Accept the findings in FILE; only new ones fail, fixed ones are listed."
    ),
    update_baseline: bool = typer.Option(
        False, "--update-baseline", help="Write today's findings to the --baseline FILE (and exit 0)."
    ),
    tools: str | None = typer.Option(
        None, "--tools", help="Also lint an OpenAI tools list (JSON): the set's rules and each tool's schema."
    ),
) -> None:
    output_format = common.output_format(output_format, choices=LINT_FORMATS)
    with common.user_errors():
        from gramwright.cli.render import lint as render
        from gramwright.lint import LintOptions, ProfileError, lint_schema, load_profile
        from gramwright.lint.diagnostic import SEVERITY_RANK
        from gramwright.lint.docs import rule_docs, rules_markdown
        from gramwright.lint.linter import too_deep_report
        from gramwright.lint.render import render_human, render_json, render_sarif

        if list_rules:
            if output_format == "json":
                sys.stdout.write(common.dump_json(rule_docs()))
            else:
                sys.stdout.write(rules_markdown() + "\n")
            return
        schemas = schemas or []
        if not schemas and tools is None:
            common.fail("no SCHEMA given", "gramwright lint schema.json (or --tools FILE, or --list-rules)")
        if update_baseline and baseline is None:
            common.fail(
                "--update-baseline needs --baseline FILE",
                "gramwright lint s.json --baseline b.json --update-baseline",
            )
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
            source_text=None if source_text is None else common.read_text(source_text, "--source"),
        )
        reports = [
            too_deep_report(too_deep, profile=prof, file=path)
            if too_deep is not None
            else lint_schema(doc, profile=prof, options=options, file=path, base_uri=_base_uri(path))
            for path, doc, _, too_deep in documents
        ]
        if tools is not None:
            from gramwright.cli.tools_cli import lint_tools_report

            reports.append(lint_tools_report(tools, prof))
            documents.append((tools, None, common.read_bytes(tools).decode("utf-8", "replace"), None))
        if baseline is not None and update_baseline:
            raise typer.Exit(_write_baseline(baseline, reports))
        comparison = _compare(baseline, reports) if baseline is not None else None
        if output_format == "json":
            sys.stdout.write(
                render_json(reports) if comparison is None else render.json_with_baseline(reports, comparison)
            )
        elif output_format == "sarif":
            sources = {path: text for path, _, text, _ in documents}
            sys.stdout.write(render_sarif(reports, sources, comparison))
        else:
            shown = reports if comparison is None else render.only_new(reports, comparison)
            sys.stdout.write(render_human(shown, color=sys.stdout.isatty()))
        threshold = SEVERITY_RANK[fail_on.value]
        failing = [
            d
            for i, r in enumerate(reports)
            for j, d in enumerate(r.diagnostics)
            if comparison is None or comparison.state(i, j) == "new"
        ]
        if comparison is not None and baseline is not None:
            for line in render.baseline_lines(baseline, comparison):
                typer.echo(line, err=True)
        if any(SEVERITY_RANK[d.severity] >= threshold for d in failing):
            raise typer.Exit(common.EXIT_FINDINGS)


def _write_baseline(path: Path, reports: list[LintReport]) -> int:
    from gramwright.cli.render import lint as render
    from gramwright.fsutil import atomic_write_text
    from gramwright.lint.baseline import load_baseline, render_baseline

    keep = load_baseline(path) if path.is_file() else []
    text = render_baseline(reports, keep=keep)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        common.fail(f"{path}: cannot write: {exc.strerror or exc}")
    typer.echo(render.baseline_written(path, len(json.loads(text)["findings"])), err=True)
    return common.EXIT_OK


def _compare(path: Path, reports: list[LintReport]) -> BaselineComparison:
    from gramwright.lint.baseline import compare_baseline, load_baseline

    return compare_baseline(reports, load_baseline(path))
