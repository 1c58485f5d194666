"""Prompts for constrained generation: the schema (with its descriptions) goes into the prompt.

The mask guarantees form; the model still needs to know what the fields *mean* — llama.cpp's docs
warn that the model "has no visibility into the schema" unless the prompt shows it.
"""

from __future__ import annotations

import json
from typing import Any

SYSTEM_SCHEMA = (
    "You are a precise assistant that answers only with JSON. "
    "Your answer must be one JSON value that follows this JSON Schema "
    "(the field descriptions say what each field means):\n{schema}"
)
SYSTEM_GRAMMAR = "You answer only in the format defined by this grammar (GBNF):\n{grammar}"


def system_prompt(schema: Any | None = None, grammar_text: str | None = None) -> str | None:
    if schema is not None:
        return SYSTEM_SCHEMA.format(schema=json.dumps(schema, ensure_ascii=False))
    if grammar_text is not None:
        return SYSTEM_GRAMMAR.format(grammar=grammar_text)
    return None
