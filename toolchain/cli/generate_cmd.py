"""`gramwright generate`: a local model under token masks, with metrics and validation."""

from __future__ import annotations

import sys
from typing import Any

import typer

from gramwright.cli import common

HELP = """Generate with a local model under grammar masks (the embedded SmolLM2 by default).

Form is guaranteed by the mask; content is not — a schema-constrained result is also validated
with jsonschema and the verdict is reported.

Examples:

  gramwright generate --schema po.json --prompt "采购两台笔记本电脑，供应商是联想"

  gramwright generate --grammar grammars/arithmetic.gbnf --prompt "Write a sum" --json

  gramwright generate --schema po.json --prompt "..." --no-constrain   # the unconstrained baseline
  gramwright generate --schema po.json --prompt "..." --close-objects  # no invented keys
"""


def register(app: typer.Typer) -> None:
    @app.command("generate", help=HELP)
    def generate_cmd(
        prompt: str = typer.Option(..., "--prompt", "-p", help="The user request."),
        schema: str | None = typer.Option(None, "--schema", help="A JSON Schema file."),
        grammar: str | None = typer.Option(None, "--grammar", help="A .gbnf file or bundled name."),
        model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
        max_tokens: int = typer.Option(256, "--max-tokens", min=1),
        temperature: float = typer.Option(0.0, "--temperature", min=0.0, help="0 = greedy."),
        top_k: int = typer.Option(0, "--top-k", min=0),
        top_p: float = typer.Option(1.0, "--top-p", min=0.0, max=1.0),
        seed: int | None = typer.Option(None, "--seed"),
        no_constrain: bool = typer.Option(False, "--no-constrain", help="No masks (baseline)."),
        close_objects: bool = typer.Option(
            False,
            "--close-objects",
            help="Schemas: objects without additionalProperties take no other members, so the model "
            "cannot invent keys (the output still validates against the schema as written).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON result object."),
    ) -> None:
        if (schema is None) == (grammar is None):
            common.fail("give exactly one of --schema or --grammar")
        with common.user_errors():
            result = run_generation(
                source=schema or grammar or "",
                prompt=prompt,
                model=model,
                max_tokens=max_tokens,
                temperature=temperature,
                top_k=top_k,
                top_p=top_p,
                seed=seed,
                constrain=not no_constrain,
                stream=not as_json and sys.stdout.isatty(),
                close_objects=close_objects,
            )
        if as_json:
            typer.echo(common.dump_json(result), nl=False)
        else:
            if not sys.stdout.isatty():
                typer.echo(result["text"])
            else:
                typer.echo("")
            m = result["metrics"]
            typer.echo(
                f"finish_reason={result['finish_reason']} tokens={result['tokens']} "
                f"{m.get('ms_per_token')} ms/token"
                + (f" mask p50={m['mask_us_p50']}µs p99={m['mask_us_p99']}µs" if "mask_us_p50" in m else "")
                + (f" clipped_mass avg={m['clipped_mass_avg']}" if "clipped_mass_avg" in m else ""),
                err=True,
            )
            if "valid" in result:
                verdict = "valid" if result["valid"] else f"INVALID: {result['errors'][:3]}"
                typer.echo(f"schema validation: {verdict} (content is not guaranteed by masks)", err=True)
        ok = result["finish_reason"] == "stop" and result.get("valid", True)
        raise typer.Exit(common.EXIT_OK if ok else common.EXIT_FINDINGS)


def run_generation(
    *,
    source: str,
    prompt: str,
    model: str | None,
    max_tokens: int,
    temperature: float,
    top_k: int,
    top_p: float,
    seed: int | None,
    constrain: bool,
    stream: bool,
    close_objects: bool = False,
) -> dict[str, Any]:
    """Load, compile, generate, validate; returns the JSON result object."""
    from rich.console import Console

    from gramwright.decode.generate import generate
    from gramwright.decode.prompt import system_prompt
    from gramwright.decode.sampling import SamplingParams
    from gramwright.engine.cache import load_engine, save_engine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.grammar.gbnf import emit_gbnf
    from gramwright.models.loader import apply_chat_template, load_model
    from gramwright.sources import load_source
    from gramwright.validate import validate_output

    console = Console(stderr=True)
    loaded_grammar = load_source(source, close_objects=close_objects)
    with console.status("loading model…") as status:
        lm = load_model(model, progress=lambda msg: status.update(msg))
    console.print(f"model {lm.name} on {lm.device} ({lm.load_s:.1f}s{', cached' if lm.from_cache else ''})")
    vocab = TokenVocabulary.from_loaded(lm)
    engine = load_engine(loaded_grammar.grammar, vocab) if constrain else None
    system = system_prompt(
        schema=loaded_grammar.schema if loaded_grammar.kind == "schema" else None,
        grammar_text=None if loaded_grammar.kind == "schema" else emit_gbnf(loaded_grammar.grammar),
    )
    text_prompt = apply_chat_template(lm.tokenizer, system, prompt)

    def show(step: Any) -> None:
        sys.stdout.write(step.text.decode("utf-8", "replace"))
        sys.stdout.flush()

    result = generate(
        lm.model,
        lm.tokenizer,
        text_prompt,
        engine=engine,
        max_tokens=max_tokens,
        params=SamplingParams(temperature, top_k, top_p),
        seed=seed,
        on_step=show if stream else None,
        eos_ids=vocab.eos_ids,
    )
    if engine is not None:
        result.metrics["grammar_cache_hit"] = engine.from_cache
        save_engine(engine)
    out: dict[str, Any] = {
        "text": result.text,
        "finish_reason": result.finish_reason,
        "tokens": len(result.steps),
        "constrained": constrain,
        "metrics": result.metrics,
    }
    if loaded_grammar.kind == "schema":
        out.update(validate_output(result.text, loaded_grammar.schema, result.finish_reason))
    return out
