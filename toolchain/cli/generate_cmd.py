"""`gramwright generate`: a local model under token masks, with metrics and validation.

What it prints, and where, is :mod:`gramwright.cli.render.generate`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from gramwright.cli import common, server_cli, tools_cli

if TYPE_CHECKING:
    from gramwright.decode.prompt import SchemaRendering

HELP = """Generate with a local model under grammar masks (the embedded SmolLM2 by default).

Form is guaranteed by the mask; content is not — a schema-constrained result is also validated
with jsonschema and the verdict is reported.

A schema's objects are closed while generating: an object that lists its members and says nothing
of additionalProperties takes no others, so the model cannot invent keys (as OpenAI's strict mode
and XGrammar do; `check` and `compile` keep the spec's open objects). --open-objects, or
"x-runtime": {"open_objects": true} in the schema, keeps them open.

Examples:

  gramwright generate --schema po.json --prompt "采购两台笔记本电脑，供应商是联想"

  gramwright generate --grammar grammars/arithmetic.gbnf --prompt "Write a sum" --json

  gramwright generate --schema po.json --prompt "..." --no-constrain   # the unconstrained baseline
  gramwright generate --schema po.json --prompt "..." --open-objects   # allow undeclared keys
  gramwright generate --schema po.json --prompt "..." --device cpu --threads 1 --no-fast-forward
  gramwright generate --schema po.json --prompt "..." --dtype bfloat16  # faster on AMX CPUs, GPUs

  gramwright generate --tools tools.json --prompt "Weather in Oslo?"    # tool calls (docs/tools.md)

  gramwright generate --tools tools.json --tool-choice get_weather --parallel 1 --prompt "..."

  gramwright generate --schema po.json --reasoning 64 --prompt "..."   # <think> ≤ 64 tokens first

  gramwright generate --schema po.json --prompt "..." --backend llama-cpp  # the GGUF in llama.cpp
  gramwright generate --schema po.json --prompt "..." --server http://localhost:8080  # a server
  gramwright generate --schema po.json --prompt "..." --stream --timeout 30   # NDJSON events

--stream writes one JSON object per line as it happens: a token event per token, a value event
per JSON Pointer once the grammar has settled that value (a string at its closing quote, a number
once no byte the grammar allows could extend it), and last an end event with finish_reason
(stop | length | timeout | cancelled), the members final and still open, and the result.

Grounded values (docs/grounding.md): members marked "x-grounded": true — or, with --ground,
every plain string — can only copy values from a source text: --source FILE (- reads stdin),
else the prompt itself. The result lists each grounded value's span in that text.

  gramwright generate --schema docs/examples/contact_grounded.json --source note.txt \
      --prompt "Extract the contact: $(cat note.txt)"
  echo "Ship 3 boxes to Oslo" | gramwright generate --schema s.json --ground --source - --prompt "..."
"""


def register(app: typer.Typer) -> None:
    app.command("generate", help=HELP)(generate_cmd)


def generate_cmd(
    prompt: str = typer.Option(
        ...,
        "--prompt",
        "-p",
        help="The user request.",
        callback=common.nonempty_option("--prompt", "the request, e.g. --prompt 'A cat named Tom, 3'"),
    ),
    schema: str | None = typer.Option(None, "--schema", help="A JSON Schema file."),
    grammar: str | None = typer.Option(None, "--grammar", help="A .gbnf file or bundled name."),
    model: str | None = typer.Option(
        None, "--model", help="A local HF model dir or .gguf (with --server: the served model's id)."
    ),
    backend: str = typer.Option(
        "transformers",
        "--backend",
        help="transformers | llama-cpp (the GGUF run in-process by llama.cpp, under the same masks).",
    ),
    server: str | None = server_cli.server_option(),
    dialect: str | None = server_cli.dialect_option(),
    api_key: str | None = server_cli.api_key_option(),
    request_timeout: float = server_cli.timeout_option(),
    max_tokens: int = typer.Option(256, "--max-tokens", min=1),
    temperature: float = typer.Option(0.0, "--temperature", min=0.0, help="0 = greedy."),
    top_k: int = typer.Option(0, "--top-k", min=0),
    top_p: float = typer.Option(1.0, "--top-p", min=0.0, max=1.0),
    seed: int | None = typer.Option(None, "--seed"),
    no_constrain: bool = typer.Option(False, "--no-constrain", help="No masks (baseline)."),
    open_objects: bool = typer.Option(
        False,
        "--open-objects",
        help="Schemas: objects without additionalProperties may take undeclared members (the "
        "spec's default; without it they are closed, so the model cannot invent keys).",
    ),
    close_objects: bool = typer.Option(
        False,
        "--close-objects",
        hidden=True,
        help="Closed objects are the default; this only overrides a schema's x-runtime open_objects: true.",
    ),
    schema_prompt: str = typer.Option(
        "compact",
        "--schema-prompt",
        help="How the prompt shows the schema: compact (a type definition) | json | none. One "
        "that leaves no room for --max-tokens is left out, with a note.",
    ),
    device: str = common.device_option(),
    threads: int | None = common.threads_option(),
    dtype: str = common.dtype_option(),
    fast_forward: bool = common.fast_forward_option(),
    tools: str | None = tools_cli.tools_option(),
    tool_choice: str = tools_cli.tool_choice_option(),
    parallel: int | None = tools_cli.parallel_option(),
    reasoning_tokens: int | None = tools_cli.reasoning_option(),
    reasoning_open: str = tools_cli.reasoning_open_option(),
    reasoning_close: str = tools_cli.reasoning_close_option(),
    source_path: str | None = typer.Option(
        None,
        "--source",
        help="Schemas: the text x-grounded values are copied from (a file, or - for stdin); "
        "default: the prompt.",
    ),
    ground: bool = typer.Option(
        False, "--ground", help="Schemas: ground every string without enum/const/format/pattern."
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="NDJSON events on stdout as they happen: tokens, each JSON value once the grammar "
        "has settled it, and an end event with the result (docs/streaming.md).",
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", min=0.0, help="Seconds of generation; then the stream ends as timeout."
    ),
    fmt: str = common.format_option(),
    as_json: bool = common.json_option(),
) -> None:
    fmt = common.output_format(fmt, as_json)
    if timeout is not None and not stream:
        common.fail("--timeout ends a streamed run", "add --stream")
    if [schema, grammar, tools].count(None) != 2:
        common.fail("give exactly one of --schema, --grammar or --tools", "e.g. --schema po.json")
    reasoning = tools_cli.reasoning_of(reasoning_tokens, reasoning_open, reasoning_close)
    if stream and reasoning is not None:
        common.fail("--stream streams the value alone", "drop --reasoning, or --stream")
    if tools is not None:
        if stream:
            common.fail("--stream is for --schema and --grammar", "drop --stream with --tools")
        from gramwright.generation import SamplingOptions

        session = tools_cli.session_of(tools, tool_choice, parallel)  # fails before the model loads
        sampling = SamplingOptions(max_tokens, temperature, top_k, top_p, seed)
        tools_cli.generate_turn(session, prompt, model=model, sampling=sampling, reasoning=reasoning, fmt=fmt)
    rendering = schema_rendering(schema_prompt)
    if open_objects and close_objects:
        common.fail("give --open-objects or --close-objects, not both", "closed is the default")
    from rich.console import Console

    from gramwright.cli.render import generate as render
    from gramwright.engine.collector import frozen_after_cold_masks
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import load_for_generation

    if backend not in ("transformers", "llama-cpp"):
        common.fail(f"unknown --backend {backend!r}", "use transformers or llama-cpp")
    if reasoning is not None and (server is not None or backend != "transformers"):
        common.fail(
            "--reasoning runs on the local transformers backend", "drop --reasoning, --server or --backend"
        )
    if server is not None:
        with common.user_errors():
            source = load_for_generation(
                schema or grammar or "", open_objects=_objects(open_objects, close_objects), ground=ground
            )
            if source.grounded:
                text = prompt if source_path is None else common.read_text(source_path, "--source")
                source = source.with_source(text)
        remote = server_cli.make_backend(
            server,
            dialect=dialect,
            api_key=api_key,
            model=model,
            schema_prompt=rendering,
            timeout_s=request_timeout,
        )
        sampling = SamplingOptions(max_tokens, temperature, top_k, top_p, seed)
        raise typer.Exit(
            server_cli.generate_on_server(
                remote,
                source,
                prompt,
                max_tokens=max_tokens,
                sampling=sampling,
                constrain=not no_constrain,
                fmt=fmt,
            )
        )
    console = Console(stderr=True)
    echo_tokens = fmt == "human" and sys.stdout.isatty()
    # the tokens so far: echoed to a terminal, and kept for the cancelled result Ctrl-C prints
    typed = _Typed(echo=echo_tokens)
    try:
        # the CLI owns its (short) process: no full collections over the engine's memo tables
        # while it generates (a library leaves the collector alone; see engine/collector.py)
        with common.user_errors(), frozen_after_cold_masks():
            # the source first: a bad schema fails before a model is loaded
            source = load_for_generation(
                schema or grammar or "", open_objects=_objects(open_objects, close_objects), ground=ground
            )
            if source.grounded:
                text = prompt if source_path is None else common.read_text(source_path, "--source")
                source = source.with_source(text)
                console.print(render.grounding_line(source, source_path))
            generator: Any
            if backend == "llama-cpp":
                from gramwright.llamacpp_generation import LlamaCppGenerator

                generator = LlamaCppGenerator(model)
            else:
                generator = Generator(model, device=device, threads=threads, dtype=dtype)
            if not no_constrain:  # a budget below the shortest output: refused before the model loads
                generator.check_budget(source, max_tokens)
            with console.status("loading model…") as status:
                lm = generator.load_model(progress=lambda msg: status.update(msg))
            if backend == "llama-cpp":
                console.print(f"model {generator.name} in llama.cpp ({generator.load_s:.1f}s)")
            else:
                console.print(render.model_line(lm))
            if stream:
                raise typer.Exit(
                    _stream(
                        generator,
                        source,
                        prompt,
                        SamplingOptions(max_tokens, temperature, top_k, top_p, seed),
                        constrain=not no_constrain,
                        timeout=timeout,
                        rendering=rendering,
                        fast_forward=fast_forward,
                    )
                )
            result = generator.run(
                source,
                prompt,
                sampling=SamplingOptions(max_tokens, temperature, top_k, top_p, seed),
                constrain=not no_constrain,
                on_token=typed.append if echo_tokens or fmt == "json" else None,
                schema_prompt=rendering,
                **({"reasoning": reasoning} if reasoning is not None else {}),
                # llama.cpp's backend decodes on its own (no fast-forward there)
                **({} if backend == "llama-cpp" else {"fast_forward": fast_forward}),
            )
    except KeyboardInterrupt:
        if fmt == "json":  # a script reading stdout still gets one JSON value, saying so
            typer.echo(common.dump_json(typed.cancelled(constrained=not no_constrain)), nl=False)
        else:
            typer.echo("\ncancelled (Ctrl-C)", err=True)
        from gramwright.cli.streaming_cli import EXIT_INTERRUPTED

        raise typer.Exit(EXIT_INTERRUPTED) from None
    if fmt == "json":
        typer.echo(common.dump_json(result.to_dict()), nl=False)
    else:
        typer.echo("" if echo_tokens else result.text)
        for line in render.stderr_lines(result, max_tokens, source.source_text):
            typer.echo(line, err=True)
    raise typer.Exit(common.EXIT_OK if result.ok else common.EXIT_FINDINGS)


class _Typed:
    """The steps of a run as they come (``append`` is the ``on_token`` callback)."""

    def __init__(self, *, echo: bool) -> None:
        self.echo = echo
        self.parts: list[bytes] = []

    def append(self, step: Any) -> None:
        self.parts.append(step.text)
        if self.echo:
            from gramwright.cli.render.generate import show_token

            show_token(step)

    def cancelled(self, *, constrained: bool) -> dict[str, Any]:
        """What a cancelled run had written: not a result to use (``valid`` false)."""
        return {
            "text": b"".join(self.parts).decode("utf-8", "replace"),
            "finish_reason": "cancelled",
            "tokens": len(self.parts),
            "constrained": constrained,
            "valid": False,
        }


def _stream(
    generator: Any,
    source: Any,
    prompt: str,
    sampling: Any,
    *,
    constrain: bool,
    timeout: float | None,
    rendering: SchemaRendering,
    fast_forward: bool,
) -> int:
    """``--stream``: the events on stdout; the exit code (130 after Ctrl-C, whose end event,
    ``cancelled``, is written first)."""
    from gramwright.cli.render.stream import write_event
    from gramwright.cli.streaming_cli import EXIT_INTERRUPTED, generate_exit
    from gramwright.streaming.run import stream_generation

    try:
        result = stream_generation(
            source,
            prompt,
            write_event,
            generator=generator,
            sampling=sampling,
            constrain=constrain,
            timeout_s=timeout,
            schema_prompt=rendering,
            fast_forward=fast_forward,
        )
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return generate_exit(result)


def schema_rendering(value: str) -> SchemaRendering:
    """``--schema-prompt``'s value, or a usage error naming the choices."""
    from gramwright.decode.prompt import SCHEMA_RENDERINGS

    for name in SCHEMA_RENDERINGS:
        if value == name:
            return name
    common.fail(f"unknown --schema-prompt {value!r}", "use " + " | ".join(SCHEMA_RENDERINGS))


def _objects(open_objects: bool, close_objects: bool) -> bool | None:
    """True/False when a flag says, None: as the schema's x-runtime says (else closed)."""
    if open_objects:
        return True
    return False if close_objects else None
