"""``compile_schema``: the package's one entry point."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from gramwright.grammar.ir import Grammar
from gramwright.schema.compiler.core import Compiler, real_pointer
from gramwright.schema.compiler.options import CompileOptions
from gramwright.schema.compiler.shapes import json_name
from gramwright.schema.depth import BEYOND_RECURSION, MAX_SCHEMA_DEPTH, check_schema_depth, schema_depth
from gramwright.schema.errors import SchemaTooDeep, UnsupportedSchema
from gramwright.schema.grounding import GroundSpec
from gramwright.schema.report import CompileReport
from gramwright.schema.resolve import SchemaRegistry


@dataclass
class CompiledSchema:
    """The grammar, what became of every keyword, and which schema location each rule stands for."""

    grammar: Grammar
    report: CompileReport
    compile_ms: float
    rule_pointers: dict[str, str] = field(default_factory=dict)
    registry: SchemaRegistry | None = field(default=None, repr=False)
    # The declared member order of each object grammar (what the member-order search follows).
    member_orders: list[tuple[str, ...]] = field(default_factory=list, repr=False)
    # ``close_objects``: the object subschemas that took no undeclared members (JSON Pointers)
    closed_objects: list[str] = field(default_factory=list)
    # ``x-grounded`` members: placeholder rules a source replaces at generation (``schema.grounding``)
    grounded: list[GroundSpec] = field(default_factory=list)

    def pointer_of(self, rules: list[str]) -> str | None:
        """The schema pointer of the innermost rule in ``rules`` that stands for a subschema."""
        for name in reversed(rules):
            if name in self.rule_pointers:
                return self.rule_pointers[name]
        return None


def compile_schema(
    schema: dict[str, Any] | bool,
    *,
    base_uri: str | None = None,
    options: CompileOptions | None = None,
    registry: SchemaRegistry | None = None,
    source: str = "",
    cancelled: Callable[[], bool] | None = None,
) -> CompiledSchema:
    """Compile a JSON Schema (draft-04 … 2020-12) into the grammar IR.

    Raises :class:`gramwright.schema.errors.SchemaCompileError` (unsatisfiable or refused schema,
    with the JSON Pointer at fault), :class:`~gramwright.schema.errors.SchemaTooDeep` past
    :data:`~gramwright.schema.depth.MAX_SCHEMA_DEPTH` nested subschemas (``source``, the file
    name, is what that error names) and ``TimeoutError`` past ``options.timeout_s``. Pass a
    ``registry`` to share resolved documents with a validator (the conformance runner does).
    ``cancelled`` is asked between subschemas; once it answers True the compilation stops with
    :class:`~gramwright.schema.errors.CompileCancelled` (a thread cannot be stopped from outside).
    """
    options = options or CompileOptions()
    source = source or _source_name(base_uri)
    if not isinstance(schema, dict | bool):
        # a JSON array, string, number or null: no schema at all (the registry would crash on it)
        raise UnsupportedSchema(
            "",
            f"invalid schema: a schema is a JSON object or a boolean, not {json_name(schema)} ({source})",
            hint='wrap the constraints in an object, e.g. {"type": "array"} instead of [...]',
        )
    # the compiler recurses once per subschema: measure first (iteratively), refuse past the limit
    check_schema_depth(schema, source)
    t0 = time.perf_counter()
    if registry is None:
        registry = SchemaRegistry(
            schema, base_uri=base_uri, default_draft=options.default_draft, remotes=options.remotes
        )
    compiler = Compiler(registry, options, cancelled)
    try:
        grammar = compiler.compile()
    except RecursionError:
        # deep in a way the measure does not follow (a $ref into another document): still one
        # line, never a bare RecursionError
        depth, pointer = schema_depth(schema)
        raise SchemaTooDeep(
            source, depth, MAX_SCHEMA_DEPTH, nesting=BEYOND_RECURSION, pointer=pointer
        ) from None
    ms = (time.perf_counter() - t0) * 1000.0
    orders = list(dict.fromkeys(compiler.member_orders))
    closed = list(dict.fromkeys(real_pointer(p) for p in compiler.closed_objects))
    return CompiledSchema(
        grammar,
        compiler.report,
        ms,
        dict(compiler.rule_pointers),
        registry,
        orders,
        closed,
        [g for g in compiler.grounded if g.rule in grammar.rules],
    )


def _source_name(base_uri: str | None) -> str:
    """The file a ``file://`` base URI names (what errors say), else ``schema``."""
    if base_uri and base_uri.startswith("file://"):
        return unquote(urlsplit(base_uri).path)
    return base_uri or "schema"
