"""``--server``: ``generate`` and ``extract`` against a serving engine (vLLM, SGLang, llama.cpp),
and ``--backend llama-cpp`` (the GGUF in-process in llama.cpp, under gramwright's masks).

Thin: the backend, the dialects and the retries are :mod:`gramwright.serving`; this module holds
the shared options, makes the backend, and runs a one-attempt ``generate`` on a server; what is
printed is :mod:`gramwright.cli.render.server`. The API key comes from the environment
(``GRAMWRIGHT_API_KEY``) or ``--api-key`` and is never printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from gramwright.cli import common

if TYPE_CHECKING:
    from gramwright.decode.prompt import SchemaRendering
    from gramwright.serving import ServerBackend, ServingPlan
    from gramwright.sources import CompiledSource

__all__ = [
    "API_KEY_ENV",
    "api_key_option",
    "dialect_option",
    "generate_on_server",
    "make_backend",
    "say_plan",
    "server_option",
    "server_summary",
    "timeout_option",
]

API_KEY_ENV = "GRAMWRIGHT_API_KEY"


def server_option() -> Any:
    return typer.Option(
        None,
        "--server",
        help="A serving engine's base URL (vLLM, SGLang, llama.cpp), e.g. http://localhost:8000: "
        "each attempt is sent there with the grammar in the server's dialect, then validated here.",
    )


def dialect_option() -> Any:
    return typer.Option(
        None, "--dialect", help="With --server: vllm | sglang | llamacpp (default: asked from the server)."
    )


def api_key_option() -> Any:
    return typer.Option(
        None,
        "--api-key",
        envvar=API_KEY_ENV,
        show_default=False,
        help=f"With --server: the server's API key (better: the {API_KEY_ENV} environment variable). "
        "Sent as a bearer token, never printed.",
    )


def timeout_option() -> Any:
    return typer.Option(
        120.0,
        "--request-timeout",
        min=0.1,
        help="With --server: seconds without an answer before the request is sent again.",
    )


def make_backend(
    url: str,
    *,
    dialect: str | None,
    api_key: str | None,
    model: str | None,
    schema_prompt: SchemaRendering,
    timeout_s: float,
) -> ServerBackend:
    from gramwright.serving import ServerBackend
    from gramwright.serving.client import DIALECTS

    if dialect is not None and dialect not in DIALECTS:
        common.fail(f"unknown --dialect {dialect!r}", "use " + " | ".join(DIALECTS))
    with common.user_errors():  # a URL that is not http(s): one line, not a traceback
        return ServerBackend(
            url,
            dialect=dialect,
            api_key=api_key,
            model=model,
            schema_prompt=schema_prompt,
            timeout_s=timeout_s,
        )


def say_plan(plan: ServingPlan) -> None:
    """What the server gets and what it cannot carry: on stderr, before any request."""
    from gramwright.cli.render.server import plan_lines

    for line in plan_lines(plan):
        typer.echo(line, err=True)


def server_summary(
    plan: ServingPlan, rows: list[dict[str, Any]], new: int, wall_s: float, concurrency: int
) -> dict[str, Any]:
    """The serving part of ``extract``'s summary: the recognizer's verdicts on every completion the
    server returned (checked against the grammar sent), and this run's throughput."""
    checks = [c for r in rows for c in (r.get("metrics") or {}).get("server_grammar_checks", [])]
    accepted = sum(c == "accepted" for c in checks)
    prefix = sum(c == "prefix" for c in checks)
    return {
        **plan.to_dict(),
        "completions_checked": len(checks),
        "recognizer_accepted": accepted,
        "recognizer_prefix_of_cut": prefix,
        "recognizer_rejected": sum(c.startswith("rejected") for c in checks),
        "agreement": round((accepted + prefix) / len(checks), 4) if checks else None,
        "concurrency": concurrency,
        "rows_this_run": new,
        "wall_s": round(wall_s, 2),
        "rows_per_s": round(new / wall_s, 3) if wall_s > 0 and new else None,
        "connection_retries": sum(int((r.get("metrics") or {}).get("server_retries") or 0) for r in rows),
    }


def generate_on_server(
    backend: ServerBackend,
    source: CompiledSource,
    prompt: str,
    *,
    max_tokens: int,
    sampling: Any,
    constrain: bool,
    fmt: str,
    time_budget_s: float = 600.0,
) -> int:
    """One attempt on the server, validated as the local ``generate`` validates; the exit code."""
    from gramwright.cli.render import server as render
    from gramwright.pipeline.backend import AttemptRequest
    from gramwright.validate import validate_output

    with common.user_errors():
        plan = backend.prepare(source)
        say_plan(plan)
        request = AttemptRequest(source, prompt, prompt, 0, max_tokens, time_budget_s, constrain, sampling)
        out = backend.generate(request)
    validation = None
    if source.is_schema:
        validation = validate_output(out.text, source.schema, out.finish_reason, registry=source.registry)
    ok = out.finish_reason == "stop" and not out.grammar_error and (validation is None or validation.valid)
    if fmt == "json":
        payload = render.generate_payload(out, plan, validation, constrain, ok)
        typer.echo(common.dump_json(payload), nl=False)
    else:
        typer.echo(out.text)
        for line in render.generate_lines(out, validation, max_tokens):
            typer.echo(line, err=True)
    return common.EXIT_OK if ok else common.EXIT_FINDINGS
