"""Prompts for constrained generation: the schema (with its descriptions) goes into the prompt.

The mask guarantees form; the model still needs to know what the fields *mean* — llama.cpp's docs
warn that the model "has no visibility into the schema" unless the prompt shows it. The schema is
shown as a compact type definition by default (:mod:`gramwright.decode.schema_render`: a few
times fewer tokens than its JSON text), as JSON text on request, or not at all; when the chosen
rendering does not fit the model's context beside the output budget it is left out with a note —
the grammar still enforces the structure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from gramwright.decode.schema_render import render_compact

__all__ = ["SCHEMA_RENDERINGS", "PromptPlan", "SchemaRendering", "fit_system_prompt", "system_prompt"]

SchemaRendering = Literal["compact", "json", "none"]
SCHEMA_RENDERINGS: tuple[SchemaRendering, ...] = ("compact", "json", "none")

_JSON_ONLY = "You are a precise assistant that answers only with JSON."
SYSTEM_SCHEMA = (
    _JSON_ONLY + " Your answer must be one JSON value that follows this JSON Schema "
    "(the field descriptions say what each field means):\n{schema}"
)
SYSTEM_COMPACT = (
    _JSON_ONLY + " Your answer must be one JSON value of this type "
    "(`name?:` marks an optional member; a `//` line describes what follows it):\n{schema}"
)
SYSTEM_NONE = _JSON_ONLY
SYSTEM_GRAMMAR = "You answer only in the format defined by this grammar (GBNF):\n{grammar}"


def system_prompt(
    schema: Any | None = None,
    grammar_text: str | None = None,
    *,
    rendering: SchemaRendering = "compact",
) -> str | None:
    """The system prompt for a schema (shown as ``rendering``) or a GBNF grammar's text."""
    if schema is not None:
        if rendering == "json":
            return SYSTEM_SCHEMA.format(schema=json.dumps(schema, ensure_ascii=False))
        if rendering == "compact":
            return SYSTEM_COMPACT.format(schema=render_compact(schema))
        if rendering == "none":
            return SYSTEM_NONE
        raise ValueError(f"unknown schema rendering {rendering!r}: {' | '.join(SCHEMA_RENDERINGS)}")
    if grammar_text is not None:
        return SYSTEM_GRAMMAR.format(grammar=grammar_text)
    return None


@dataclass(frozen=True)
class PromptPlan:
    """The system prompt a generation uses: how the schema was shown (``rendering``), the whole
    prompt's tokens, and a ``note`` when the schema was left out because it did not fit."""

    system: str | None
    rendering: SchemaRendering | None  # None: no schema (a GBNF grammar, or a caller's prompt)
    prompt_tokens: int
    note: str = ""

    def metrics(self) -> dict[str, Any]:
        out: dict[str, Any] = {"prompt_tokens": self.prompt_tokens}
        if self.rendering is not None:
            out["schema_in_prompt"] = self.rendering
        if self.note:
            out["prompt_note"] = self.note
        return out


def fit_system_prompt(
    schema: Any,
    *,
    rendering: SchemaRendering,
    count: Callable[[str | None], int],
    context: int | None,
    max_tokens: int,
) -> PromptPlan:
    """The system prompt for ``schema`` shown as ``rendering``, or without the schema when that
    does not leave ``max_tokens`` of the model's ``context`` (``None``: unknown, always fits).
    ``count`` gives the tokens of the whole prompt (chat template and request included) for a
    system prompt. The last token sampled is never fed back, hence the ``- 1``."""
    system = system_prompt(schema, rendering=rendering)
    tokens = count(system)
    if rendering == "none" or context is None or tokens + max_tokens - 1 <= context:
        return PromptPlan(system, rendering, tokens)
    bare = system_prompt(schema, rendering="none")
    bare_tokens = count(bare)
    note = (
        f"the schema ({rendering} rendering) was left out of the prompt: with it the prompt is "
        f"{tokens:,} tokens and the model reads at most {context:,} ({max_tokens:,} kept for the "
        "output); the grammar still enforces the structure"
    )
    return PromptPlan(bare, "none", bare_tokens, note)


def plan_system_prompt(
    schema: Any | None,
    grammar_text: Callable[[], str],
    system: str | None,
    *,
    rendering: SchemaRendering,
    count: Callable[[str | None], int],
    context: int | None,
    max_tokens: int,
) -> PromptPlan:
    """The system prompt of one generation, for every backend: ``system`` when the caller gives
    one; for a schema (``schema`` not None), the schema fitted to the context
    (:func:`fit_system_prompt`); otherwise the grammar's text (``grammar_text()``, only then)."""
    if system is None and schema is not None:
        return fit_system_prompt(
            schema, rendering=rendering, count=count, context=context, max_tokens=max_tokens
        )
    if system is None:
        system = system_prompt(grammar_text=grammar_text())
    return PromptPlan(system, None, count(system))
