"""example/invalid: ``default`` and ``examples`` must satisfy their own subschema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import referencing
import referencing.exceptions

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.registry import node_rule
from gramwright.lint.rules.meta import _VALIDATOR_BY_DRAFT
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer

_CACHE_KEY = "example/invalid:validator"


def _validator(ctx: LintContext) -> Any:
    cached = ctx.cache.get(_CACHE_KEY)
    if cached is None:
        cls = _VALIDATOR_BY_DRAFT[ctx.dialect.draft]
        # An empty registry of our own: jsonschema's default one would fetch remote refs. Local refs
        # resolve against the document itself (the validator's root resource).
        registry: referencing.Registry[Any] = referencing.Registry()
        cached = ctx.cache[_CACHE_KEY] = cls(ctx.schema, registry=registry, format_checker=cls.FORMAT_CHECKER)
    return cached


def _first_error(ctx: LintContext, node: Node, instance: Any) -> str | None:
    try:
        validator = _validator(ctx).evolve(schema=node.schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    except (referencing.exceptions.Unresolvable, jsonschema.exceptions.SchemaError, RecursionError):
        return None
    except Exception:  # noqa: BLE001 - a broken subschema is meta/invalid-schema's finding, not ours
        return None
    if error is None:
        return None
    where = str(error.json_path) if error.json_path != "$" else ""
    return (f"{where}: " if where else "") + str(error.message)[:160]


@node_rule(
    "example/invalid",
    on=("default", "examples"),
    what="`default` or `examples` values that fail their own subschema.",
    why="Examples become few-shot hints in prompts and defaults get filled in by tools: an invalid one "
    "teaches the model the wrong shape. `default` is also provider-dependent (Anthropic allows it; "
    "OpenAI has answered 400 `'default' is not permitted`).",
    anchors="SPC oas3-valid-schema-example, SM lint doc",
    default="warn",
)
def invalid_example(node: Node, ctx: LintContext) -> Iterator[Finding]:
    if "default" in node.obj:
        problem = _first_error(ctx, node, node.obj["default"])
        if problem:
            yield Finding(
                join_pointer(node.pointer, "default"),
                f"`default` does not validate: {problem}",
                "fix the default or the schema",
            )
    examples = node.obj.get("examples")
    if isinstance(examples, list):
        for i, example in enumerate(examples):
            problem = _first_error(ctx, node, example)
            if problem:
                yield Finding(
                    join_pointer(node.pointer, "examples", i),
                    f"example {i} does not validate: {problem}",
                    "fix the example or the schema",
                )
