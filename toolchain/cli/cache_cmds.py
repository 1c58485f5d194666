"""`gramwright cache info|clear` and `gramwright warm`: the on-disk mask stores (docs/cache.md).

What they print is :mod:`gramwright.cli.render.cache`."""

from __future__ import annotations

import typer

from gramwright.cli import common

HELP = "The on-disk cache of token masks (per tokenizer; docs/cache.md)."
WARM_HELP = """Build the mask store for a model's tokenizer: the lexical states every JSON schema
shares (string bodies, numbers, literals, keys) and the bundled grammars, walked once, so the
first masks of a new schema in a new process come from disk."""


def register(app: typer.Typer) -> None:
    cache_app = typer.Typer(help=HELP, no_args_is_help=True)
    app.add_typer(cache_app, name="cache")
    cache_app.command(
        "info", help="Where the cache is: mask stores (size, entries, hit rates) and model conversions."
    )(info_cmd)
    cache_app.command("clear", help="Remove every mask store (model conversions stay).")(clear_cmd)
    app.command("warm", help=WARM_HELP)(warm_cmd)


def info_cmd(fmt: str = common.format_option(), as_json: bool = common.json_option()) -> None:
    from gramwright.cli.render.cache import info_lines
    from gramwright.engine.cache_info import cache_info

    fmt = common.output_format(fmt, as_json)
    with common.user_errors():
        got = cache_info()
    if fmt == "json":
        typer.echo(common.dump_json(got.as_dict()), nl=False)
        return
    for line in info_lines(got):
        typer.echo(line)


def clear_cmd(fmt: str = common.format_option(), as_json: bool = common.json_option()) -> None:
    from gramwright.cli.render.cache import clear_data, clear_line
    from gramwright.engine.cache_info import clear_cache
    from gramwright.fsutil import cache_root

    fmt = common.output_format(fmt, as_json)
    with common.user_errors():
        removed = clear_cache()
    if fmt == "json":
        typer.echo(common.dump_json(clear_data(cache_root(), removed)), nl=False)
    else:
        typer.echo(clear_line(cache_root(), removed))


def warm_cmd(
    model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
    fmt: str = common.format_option(),
    as_json: bool = common.json_option(),
) -> None:
    from rich.console import Console
    from rich.progress import Progress

    from gramwright.cli.render.cache import warm_data, warm_line
    from gramwright.engine.warm import PREFIXED_SCHEMAS, WARM_SCHEMAS, warm
    from gramwright.grammar.bundled import bundled_names, load_bundled
    from gramwright.models.vocabulary import vocabulary_of_model
    from gramwright.schema import compile_schema

    fmt = common.output_format(fmt, as_json)
    console = Console(stderr=True)
    with common.user_errors():
        with console.status("loading the tokenizer…"):
            vocab = vocabulary_of_model(model)
        grammars = [(f"schema {i}", compile_schema(s).grammar) for i, s in enumerate(WARM_SCHEMAS)]
        grammars += [(f"bundled {n}", load_bundled(n)) for n in bundled_names()]
        grammars += [(name, compile_schema(schema).grammar) for name, schema, _ in PREFIXED_SCHEMAS]
        prefixes = {name: texts for name, _, texts in PREFIXED_SCHEMAS}
        with Progress(console=console, disable=not console.is_terminal) as bar:
            task = bar.add_task("warming", total=len(grammars))

            def step(done: int, total: int, name: str) -> None:
                bar.update(task, completed=done, description=name)

            report = warm(grammars, vocab, progress=step, prefixes=prefixes)
    from gramwright.engine.cache_info import cache_info

    size = next((s.bytes for s in cache_info().stores if s.name == report.store.name), 0)
    if fmt == "json":
        typer.echo(common.dump_json(warm_data(report, size)), nl=False)
    else:
        typer.echo(warm_line(report, size))
