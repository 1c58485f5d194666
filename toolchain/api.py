"""The public functions that take a user's inputs as they come (paths, text, bytes) and return the
core's result types: what ``import gramwright`` offers, and what the CLI and the TUI call.

Each is a short composition of the layers below; none prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gramwright.sources import CompiledSource, Whitespace, load_source

if TYPE_CHECKING:
    from gramwright.checking import CheckForm, CheckResult
    from gramwright.lint import LintReport

__all__ = ["check_document", "compile_source", "lint_schema"]


def compile_source(
    source: str | Path,
    *,
    text: str | None = None,
    whitespace: Whitespace = "compact",
    close_objects: bool = False,
    ground: bool = False,
) -> CompiledSource:
    """Compile a grammar source once: a JSON Schema file, a ``.gbnf`` file or a bundled grammar
    name (``json``, ``arithmetic``, ``kv-config``). ``text`` gives the content instead of reading
    ``source`` (which then only names it). The result keeps the grammar, the compile report (which
    schema keywords the grammar enforces exactly), the rule → schema-pointer map and the ``$ref``
    registry. ``ground``: every plain string of a schema is ``x-grounded`` (its values then come
    from a source text: :meth:`CompiledSource.with_source`). Raises a
    :class:`~gramwright.errors.GramwrightError` subclass naming the file."""
    return load_source(
        str(source), text=text, whitespace=whitespace, close_objects=close_objects, ground=ground
    )


def check_document(
    source: str | Path | CompiledSource,
    document: bytes | str,
    *,
    exact: bool = False,
    form: CheckForm = "document",
) -> CheckResult:
    """Does ``document`` belong to the grammar? The verdict says where it stopped, what was
    allowed there and which schema keyword was at work. A schema's grammar judges the document
    as written (``form="document"``: its JSON value in any member order, number spelling and
    whitespace; the verdict says when it rests on an approximated keyword, with the validator's
    verdict) or byte for byte as generation writes it (``form="bytes"``: a rejection says whether
    whitespace, member order or number form is the cause). A GBNF grammar is always judged byte
    for byte. A final newline the grammar does not accept is ignored unless ``exact``."""
    from gramwright.checking import check_document as check
    from gramwright.recognizer import Recognizer, compile_grammar

    compiled = source if isinstance(source, CompiledSource) else compile_source(source)
    data = document.encode("utf-8") if isinstance(document, str) else document
    recognizer = Recognizer(compile_grammar(compiled.grammar))
    flexible = None
    if compiled.is_schema and compiled.whitespace == "compact":

        def flexible() -> CompiledSource:
            return compiled.with_whitespace("flexible")

    return check(compiled, recognizer, data, exact=exact, flexible=flexible, form=form)


def lint_schema(
    schema: Any | str | Path,
    *,
    profile: str = "gramwright",
    tokenizer: Any = None,
) -> LintReport:
    """Every lint diagnostic for a schema (a parsed value, or a path to a schema file) under a
    target ``profile`` (``gramwright``, ``openai-strict``, ``xgrammar``, …; see
    :func:`gramwright.lint.available_profiles`), with the cost estimate. ``tokenizer`` (optional,
    e.g. ``gramwright.models.load_tokenizer(None)``) makes the token estimates exact."""
    from gramwright.lint import LintOptions
    from gramwright.lint import lint_schema as lint

    file = "<schema>"
    if isinstance(schema, str | Path):
        from gramwright.schema.load import load_schema

        file = str(schema)
        schema, _ = load_schema(schema)
    options = LintOptions(tokenizer=tokenizer) if tokenizer is not None else None
    return lint(schema, profile=profile, options=options, file=file)
