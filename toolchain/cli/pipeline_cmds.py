"""`gramwright validate`, `extract` and `report`: the three-layer pipeline from the terminal.

Thin adapters over :mod:`gramwright.pipeline`: policy flags override the schema's ``x-runtime``;
results go to stdout (``--format human|json``, rendered by :mod:`gramwright.cli.render.pipeline`),
progress and warnings to stderr; exit 0 when every
result is ``ok``, 1 when some is not, 2 for usage and input errors.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import typer

from gramwright.cli import common, server_cli

VALIDATE_HELP = """Run layers 2–3 on outputs made elsewhere (a hosted API, an unconstrained run).

The JSON is extracted from code fences or prose; text that does not parse is repaired with
json-repair (every change logged as pointer + before/after; text that parses is never changed);
then schema, rules and salvage. A cut text (finish_reason=length, or it ends mid-value) is never ok.

  gramwright validate --schema po.json --rules po.rules.json answer.txt
  gramwright validate --schema po.json outputs.jsonl --format json   # {"id", "text", "finish_reason"?}
"""

EXTRACT_HELP = """Batch extraction: one output row per input row, resumable (a rerun skips done ids).

Input rows are {id, prompt} or {id, text} (with --prompt-template). Each finished row is appended
and flushed; at the end a summary table (or --format json).

  gramwright extract --schema po.json --input in.jsonl --output out.jsonl --metrics m.jsonl

  gramwright extract --schema po.json --input in.jsonl --output out.jsonl --stream   # NDJSON events

--stream: every row's attempts as events on stdout (each with the row's id): tokens, each JSON
value once the grammar has settled it, and an end event with the row's StructuredResult; the
--output file is written as without it, and a summary event comes last (docs/streaming.md).

--batch N: the local model generates N rows' attempts per forward pass (continuous batching):
each round generates the first attempts of new rows and the retries of failed ones together, and
a row is written when its last attempt is judged. Per-row results equal --batch 1's for greedy
decoding; budgets (--token-budget, --time-budget) hold per row, a row's time being its time in
the batch. Not with --server (use --concurrency), --stream or --backend llama-cpp.

  gramwright extract --schema po.json --input in.jsonl --output out.jsonl --batch 4

Grounded values (docs/grounding.md): members marked "x-grounded": true — or, with --ground, every
plain string — are copied from each row's source text: its "source" field, else its "text",
else its "prompt".
Each output row lists the grounded values with their span in that text.

  gramwright extract --schema po.json --ground --input in.jsonl --output out.jsonl
"""

# one wording for extract and validate, which share layer 3's options
PARTIAL_OK_HELP = (
    "May layer 3 return a value with optional members dropped as 'partial'?"
    " (x-runtime partial_ok; default yes)"
)
ALLOW_DEGRADE_HELP = (
    "May layer 3 return a 'degraded' value (required collection shrunk, member computed), one"
    " that still validates? (x-runtime allow_degrade; default no)"
)


# rows in flight per batch slot with --batch: rounds long enough that the batch rarely drains
# (a round ends when its last attempt does), short enough that rows reach --output as they finish
ROUND_ROWS = 8


def _policy_overrides(**given: Any) -> dict[str, Any]:
    return {k: v for k, v in given.items() if v is not None}


def _warn_notes(notes: tuple[str, ...]) -> None:
    for note in notes:
        typer.echo(f"warning: x-runtime {note}", err=True)


def _load(
    schema: str, rules: str | None, overrides: dict[str, Any], ground: bool = False
) -> tuple[Any, Any, Any]:
    from gramwright.pipeline import Policy
    from gramwright.pipeline.retry import resolve_rules
    from gramwright.sources import load_source

    source = load_source(schema, ground=ground)
    if not source.is_schema:
        common.fail(f"{schema}: not a JSON Schema", "the pipeline validates against a schema")
    policy = Policy.from_schema(source.schema, **overrides)
    _warn_notes(policy.notes)
    return source, policy, resolve_rules(rules, source.schema)


def _texts(data: bytes, name: str, jsonl: bool) -> list[tuple[str, str, str]]:
    """(id, text, finish_reason) items: one text, or one per JSONL line. Binary data is refused
    (a model's output is text; repairing a PNG "into" JSON would call garbage a result)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        common.fail(
            f"{name}: a binary file, not text (NUL byte at byte {nul})", "give the output as UTF-8 text"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        common.fail(f"{name}: not valid UTF-8 at byte {exc.start}", "give the output as UTF-8 text")
    if not (jsonl or name.endswith(".jsonl")):
        return [(name, text, "stop")]
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            common.fail(
                f"{name}:{n}: not a JSON line", 'each line is {"id", "text", "finish_reason"?} or a string'
            )
        if isinstance(row, str):
            items.append((str(n), row, "stop"))
        elif isinstance(row, dict) and isinstance(row.get("text", row.get("output")), str):
            body = str(row.get("text", row.get("output")))
            items.append((str(row.get("id", n)), body, str(row.get("finish_reason", "stop"))))
        else:
            common.fail(f"{name}:{n}: no text", 'each line is {"id", "text", "finish_reason"?} or a string')
    return items


def _refuse_deep(items: list[tuple[str, str, str]], name: str) -> None:
    """A text nested past what the parser takes is refused before any is validated."""
    from gramwright.validate import MAX_DOCUMENT_DEPTH, too_deep

    for rid, text, _ in items:
        deep = too_deep(text)
        if deep is not None:
            where = name if rid == name else f"{name}: output {rid}"
            common.fail(
                f"{where}: {deep}",
                f"give a flatter document (the limit, {MAX_DOCUMENT_DEPTH}, is 10x the deepest real schema)",
            )


def _print_summary(summary: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        typer.echo(common.dump_json(summary), nl=False)
        return
    from rich.console import Console

    from gramwright.cli.render.pipeline import summary_table

    Console(file=sys.stdout, width=100).print(summary_table(summary))
    if "server" in summary:
        from rich.table import Table

        from gramwright.cli.render.server import summary_lines

        table = Table(title="server", show_header=False)
        for label, value in summary_lines(summary["server"]):
            table.add_row(label, value)
        Console(file=sys.stdout, width=100).print(table)


def _backend(spec: str | None, model: str | None, schema_prompt: Any = "compact") -> Any:
    from gramwright.pipeline import GeneratorBackend, ScriptedBackend

    if spec is None or spec == "transformers":
        return GeneratorBackend(model=model, schema_prompt=schema_prompt)
    if spec == "llama-cpp":
        from gramwright.llamacpp_generation import LlamaCppGenerator

        return GeneratorBackend(LlamaCppGenerator(model), schema_prompt=schema_prompt)
    kind, _, arg = spec.partition(":")
    if kind != "scripted" or not arg:
        common.fail(f"unknown --backend {spec!r}", "use llama-cpp, or leave it out (transformers)")
    return ScriptedBackend.from_file(arg)


def register(app: typer.Typer) -> None:
    app.command("validate", help=VALIDATE_HELP)(validate_cmd)
    app.command("extract", help=EXTRACT_HELP)(extract_cmd)
    app.command("report")(report_cmd)


def validate_cmd(
    output: str = typer.Argument("-", help="The output text file, a .jsonl of outputs, or - for stdin."),
    schema: str = typer.Option(..., "--schema", help="The JSON Schema the output must follow."),
    rules: str | None = typer.Option(None, "--rules", help="A rules file (CEL rules, fallback)."),
    jsonl: bool = typer.Option(False, "--jsonl", help="The input is JSONL even without .jsonl."),
    finish_reason: str | None = typer.Option(None, "--finish-reason", help="stop | length (one text)."),
    partial_ok: bool | None = typer.Option(
        None,
        "--partial-ok/--no-partial-ok",
        help=PARTIAL_OK_HELP,
    ),
    allow_degrade: bool | None = typer.Option(
        None,
        "--allow-degrade/--no-degrade",
        help=ALLOW_DEGRADE_HELP,
    ),
    fallback: str | None = typer.Option(
        None, "--fallback", help="none | partial | flag_for_review | rule_engine"
    ),
    high_risk: bool | None = typer.Option(None, "--high-risk/--not-high-risk", help="No layer 3 at all."),
    fmt: str = common.format_option(),
) -> None:
    fmt = common.output_format(fmt)
    from gramwright.pipeline import validate_text

    with common.user_errors():
        overrides = _policy_overrides(
            partial_ok=partial_ok, allow_degrade=allow_degrade, fallback=fallback, high_risk=high_risk
        )
        source, policy, ruleset = _load(schema, rules, overrides)
        items = _texts(common.read_bytes(output), output, jsonl)
        _refuse_deep(items, output)
        results = []
        for rid, text, reason in items:
            reason = finish_reason or reason
            results.append(
                (rid, validate_text(text, source, rules=ruleset, policy=policy, finish_reason=reason))
            )
    from gramwright.cli.render.pipeline import render_result, results_data

    if fmt == "json":
        typer.echo(common.dump_json(results_data(results)), nl=False)
    else:
        for rid, r in results:
            typer.echo(render_result(rid, r))
    raise typer.Exit(common.EXIT_OK if all(r.ok for _, r in results) else common.EXIT_FINDINGS)


def extract_cmd(
    schema: str = typer.Option(..., "--schema", help="The JSON Schema of every row's value."),
    input_path: Path = typer.Option(..., "--input", help="JSONL rows {id, prompt} or {id, text}."),
    output_path: Path = typer.Option(..., "--output", help="JSONL results (appended; resumable)."),
    rules: str | None = typer.Option(None, "--rules", help="A rules file (CEL rules, fallback)."),
    metrics_path: Path | None = typer.Option(None, "--metrics", help="JSONL metrics, one row per id."),
    template: str = typer.Option("{text}", "--prompt-template", help="For {id, text} rows."),
    model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
    max_attempts: int | None = typer.Option(None, "--max-attempts", min=1),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=1),
    token_budget: int | None = typer.Option(None, "--token-budget", min=1),
    time_budget: float | None = typer.Option(None, "--time-budget", min=0.001, help="Seconds per row."),
    feedback: bool | None = typer.Option(None, "--feedback/--no-feedback"),
    partial_ok: bool | None = typer.Option(
        None,
        "--partial-ok/--no-partial-ok",
        help=PARTIAL_OK_HELP,
    ),
    allow_degrade: bool | None = typer.Option(
        None,
        "--allow-degrade/--no-degrade",
        help=ALLOW_DEGRADE_HELP,
    ),
    fallback: str | None = typer.Option(None, "--fallback"),
    decode_mode: str | None = typer.Option(None, "--decode-mode", help="constrained | unconstrained"),
    open_objects: bool | None = typer.Option(
        None,
        "--open-objects/--close-objects",
        help="Objects without additionalProperties take undeclared members (default: closed "
        "while generating, or the schema's x-runtime open_objects).",
    ),
    schema_prompt: str = typer.Option(
        "compact", "--schema-prompt", help="How the prompt shows the schema: compact | json | none."
    ),
    ground: bool = typer.Option(
        False, "--ground", help="Ground every string without enum/const/format/pattern in the row's source."
    ),
    backend_spec: str | None = typer.Option(
        None, "--backend", help="llama-cpp: the GGUF run in-process by llama.cpp (default: transformers)."
    ),
    server: str | None = server_cli.server_option(),
    dialect: str | None = server_cli.dialect_option(),
    api_key: str | None = server_cli.api_key_option(),
    request_timeout: float = server_cli.timeout_option(),
    concurrency: int = typer.Option(
        1,
        "--concurrency",
        min=1,
        help="With --server: rows in flight at once (a new one starts as one ends).",
    ),
    batch: int = typer.Option(
        1,
        "--batch",
        min=1,
        help="Rows the local model generates per forward pass (continuous batching); 1: one row at a time.",
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="NDJSON events on stdout, each with the row's id: every attempt's tokens and "
        "settled values, an end event with the StructuredResult, a summary event last.",
    ),
    fmt: str = common.format_option(),
) -> None:
    fmt = common.output_format(fmt)
    common.check_output(output_path, str(input_path))
    common.check_output(metrics_path, str(input_path), str(output_path))
    if concurrency > 1 and server is None:
        common.fail("--concurrency needs --server", "the local model runs one row at a time")
    if concurrency > 1 and stream:
        common.fail("--stream writes one row's events at a time", "give --concurrency 1 with --stream")
    if batch > 1:
        _check_batch(server, stream, backend_spec)
    from gramwright.cli.generate_cmd import schema_rendering

    rendering = schema_rendering(schema_prompt)
    from gramwright.pipeline import run
    from gramwright.pipeline.batch import read_done, read_inputs
    from gramwright.pipeline.metrics import summarize

    with common.user_errors():
        overrides = _policy_overrides(
            max_attempts=max_attempts,
            max_tokens=max_tokens,
            token_budget=token_budget,
            time_budget_s=time_budget,
            feedback_on_fail=feedback,
            partial_ok=partial_ok,
            allow_degrade=allow_degrade,
            fallback=fallback,
            decode_mode=decode_mode,
            open_objects=open_objects,
        )
        source, policy, ruleset = _load(schema, rules, overrides, ground)
        source = source.for_generation(policy.open_objects)  # compiled once for every row
        inputs = read_inputs(input_path, template)
        plan = None
        if server is not None:
            backend = server_cli.make_backend(
                server,
                dialect=dialect,
                api_key=api_key,
                model=model,
                schema_prompt=rendering,
                timeout_s=request_timeout,
            )
            plan = backend.prepare(source)
            server_cli.say_plan(plan)  # what the dialect cannot carry: before any request
        else:
            backend = _backend(backend_spec, model, rendering)
            if batch > 1 and hasattr(backend, "batch_size"):
                backend.batch_size = batch

        def solve(item: Any) -> Any:
            # grounded members copy from the row's source (built once per text, cached); a prompt
            # row has none: run() grounds it in its prompt
            row = source.with_source(item.source) if source.grounded and item.source is not None else source
            if not stream:
                return run(row, item.prompt, policy=policy, rules=ruleset, backend=backend)
            from gramwright.cli.render.stream import with_fields
            from gramwright.streaming.run import stream_pipeline

            emit = with_fields(id=item.id)
            return stream_pipeline(row, item.prompt, emit, backend=backend, policy=policy, rules=ruleset)

        def solve_many(todo: list[Any], write: Any) -> None:
            from gramwright.pipeline.rounds import Row, run_rows

            by_id = {item.id: item for item in todo}
            run_rows(
                source,
                [Row(item.id, item.prompt, item.source if source.grounded else None) for item in todo],
                backend=backend,
                policy=policy,
                rules=ruleset,
                window=ROUND_ROWS * batch,
                on_result=lambda row, result: write(by_id[row.key], result),
            )

        before = len(read_done(output_path))
        started = time.perf_counter()
        try:
            many = solve_many if batch > 1 else None
            rows = _extract(inputs, output_path, metrics_path, solve, concurrency, many)
        except KeyboardInterrupt:
            if not stream:
                raise
            from gramwright.cli.streaming_cli import EXIT_INTERRUPTED

            # the row's end event (cancelled) is written; the rows before it are in --output
            raise typer.Exit(EXIT_INTERRUPTED) from None
        wall = time.perf_counter() - started
    summary = summarize([_metrics_of(r) for r in rows])
    if plan is not None:
        summary["server"] = server_cli.server_summary(plan, rows, len(rows) - before, wall, concurrency)
    if stream:
        from gramwright.cli.render.stream import write_event

        write_event({"event": "summary", **summary})
    else:
        _print_summary(summary, fmt)
    raise typer.Exit(common.EXIT_OK if summary["status"]["ok"] == len(rows) else common.EXIT_FINDINGS)


def report_cmd(
    metrics_path: Path = typer.Argument(..., help="A metrics JSONL file (extract --metrics)."),
    fmt: str = common.format_option(),
) -> None:
    """Print the batch summary from a metrics file."""
    fmt = common.output_format(fmt)
    from gramwright.pipeline.metrics import read_metrics, summarize

    with common.user_errors():
        summary = summarize(read_metrics(metrics_path))
    _print_summary(summary, fmt)


def _metrics_of(row: dict[str, Any]) -> dict[str, Any]:
    from gramwright.pipeline.batch import metrics_row

    return metrics_row(row)


def _check_batch(server: str | None, stream: bool, backend_spec: str | None) -> None:
    """--batch needs the local transformers model and one writer of events."""
    if server is not None:
        common.fail("--batch batches the local model", "with --server give --concurrency N instead")
    if stream:
        common.fail("--stream writes one row's events at a time", "give --batch 1 with --stream")
    if backend_spec == "llama-cpp":
        common.fail(
            "--batch needs the transformers backend", "leave out --backend llama-cpp, or give --batch 1"
        )


def _extract(
    inputs: list[Any],
    output: Path,
    metrics: Path | None,
    solve: Any,
    concurrency: int = 1,
    solve_many: Any = None,
) -> list[dict[str, Any]]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from gramwright.pipeline.batch import read_done, run_batch

    done = {str(r.get("id")) for r in read_done(output)}
    todo = sum(1 for i in inputs if i.id not in done)
    if done:
        typer.echo(f"resuming: {len(done)} row(s) already in {output}, {todo} to go", err=True)
    columns = (
        TextColumn("extract"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    console = Console(stderr=True)
    with Progress(*columns, console=console, disable=not sys.stderr.isatty(), transient=True) as progress:
        task = progress.add_task("", total=todo)

        def advance(item: Any, row: dict[str, Any]) -> None:
            progress.update(task, advance=1, description=f"{item.id}: {row['status']}")

        return run_batch(
            inputs,
            output,
            solve,
            metrics=metrics,
            on_row=advance,
            concurrency=concurrency,
            solve_many=solve_many,
        )
