"""`gramwright cache info|clear` and `gramwright warm`: the on-disk mask stores (docs/cache.md)."""

from __future__ import annotations

import typer

from gramwright.cli import common

HELP = "The on-disk cache of token masks (per tokenizer; docs/cache.md)."
WARM_HELP = """Build the mask store for a model's tokenizer: the lexical states every JSON schema
shares (string bodies, numbers, literals, keys) and the bundled grammars, walked once, so the
first masks of a new schema in a new process come from disk."""


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"


def register(app: typer.Typer) -> None:
    cache_app = typer.Typer(help=HELP, no_args_is_help=True)
    app.add_typer(cache_app, name="cache")

    @cache_app.command(
        "info", help="Where the cache is: mask stores (size, entries, hit rates) and model conversions."
    )
    def info(
        fmt: str = typer.Option("human", "--format", "-f", help="human | json"),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    ) -> None:
        from gramwright.engine.cache_info import cache_info

        fmt = common.output_format(fmt, as_json)
        with common.user_errors():
            got = cache_info()
        if fmt == "json":
            typer.echo(common.dump_json(got.as_dict()), nl=False)
            return
        typer.echo(f"cache: {got.root} ({_mb(got.bytes)} of {_mb(got.limit_bytes)})")
        if not got.stores:
            typer.echo("no mask stores (run `gramwright warm`, or any `gramwright generate`)")
        for s in got.stores:
            rate = "no lookups yet" if s.hit_rate is None else f"hit rate {s.hit_rate:.1%}"
            state = "" if s.current else " [stale: another engine version]"
            typer.echo(
                f"  {s.name}{state}: {s.entries} masks in {s.segments} segment(s), {_mb(s.bytes)}, "
                f"{rate} ({s.hits} hits, {s.misses} misses)"
            )
        if got.legacy_bytes:
            typer.echo(f"  old pickled engine cache: {_mb(got.legacy_bytes)} (never read; `cache clear`)")
        if got.conversions:
            typer.echo(
                f"model conversions: {got.root}/models ({_mb(got.conversion_bytes)}, shared by every"
                " virtualenv; `cache clear` keeps them)"
            )
        for c in got.conversions:
            what = "weights and tokenizer" if c.weights else "tokenizer"
            typer.echo(f"  {c.name}: {what}, {_mb(c.bytes)}")

    @cache_app.command("clear", help="Remove every mask store (model conversions stay).")
    def clear(
        fmt: str = typer.Option("human", "--format", "-f", help="human | json"),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    ) -> None:
        from gramwright.engine.cache_info import clear_cache
        from gramwright.fsutil import cache_root

        fmt = common.output_format(fmt, as_json)
        with common.user_errors():
            removed = clear_cache()
        if fmt == "json":
            typer.echo(common.dump_json({"root": str(cache_root()), "removed_bytes": removed}), nl=False)
        else:
            typer.echo(f"removed {_mb(removed)} from {cache_root()}")

    @app.command("warm", help=WARM_HELP)
    def warm_cmd(
        model: str | None = typer.Option(None, "--model", help="A local HF model dir or .gguf."),
        fmt: str = typer.Option("human", "--format", "-f", help="human | json"),
        as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    ) -> None:
        from rich.console import Console
        from rich.progress import Progress

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
        data = {
            "store": str(report.store),
            "grammars": report.grammars,
            "masks_walked": report.masks,
            "seconds": round(report.seconds, 2),
            "store_bytes": size,
        }
        if fmt == "json":
            typer.echo(common.dump_json(data), nl=False)
        else:
            typer.echo(
                f"warmed {report.store} in {report.seconds:.1f}s: {report.grammars} grammars, "
                f"{report.masks} masks walked, store {_mb(size)}"
            )
