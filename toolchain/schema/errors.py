"""Typed schema errors: each says where (file:line:col or JSON Pointer) and what, in one line."""

from __future__ import annotations

from gramwright.errors import SchemaError
from gramwright.pointer import last_token

__all__ = [
    "CompileCancelled",
    "SchemaCompileError",
    "SchemaError",
    "SchemaLoadError",
    "SchemaTooDeep",
    "UnsatisfiableSchema",
    "UnsupportedSchema",
]


class SchemaLoadError(SchemaError):
    """A schema file that cannot be read or is not valid JSON; points at file:line:column."""

    def __init__(self, path: str, message: str, *, line: int = 0, column: int = 0, hint: str = "") -> None:
        self.path = path
        self.line = line
        self.column = column
        where = f"{path}:{line}:{column}" if line else path
        super().__init__(
            message, where=where, hint=hint or ("fix the JSON syntax at that position" if line else "")
        )


class SchemaTooDeep(SchemaLoadError):
    """A schema nested deeper than gramwright reads (``docs/limits.md``): ``depth`` levels found,
    ``limit`` allowed. ``nesting`` says what was counted — the JSON text's objects and arrays, or
    subschemas inside subschemas (``$ref`` targets included) — and ``pointer`` where the deepest
    one is, when known."""

    def __init__(
        self,
        path: str,
        depth: int,
        limit: int,
        *,
        nesting: str,
        pointer: str = "",
        line: int = 0,
        column: int = 0,
    ) -> None:
        self.depth = depth
        self.limit = limit
        self.nesting = nesting
        self.pointer = pointer
        if depth > limit:
            message = f"schema nested {depth} levels deep ({nesting}); gramwright reads up to {limit}"
        else:  # the compiler ran out of stack below the measured limit (see compile_schema)
            message = (
                f"schema nested too deeply to compile ({nesting}; {depth} levels measured, limit {limit})"
            )
        super().__init__(
            path,
            message,
            line=line,  # in a text: where the nesting first goes past the limit
            column=column,
            hint="flatten the nesting: real-world schemas stay under 30 levels (see docs/limits.md)",
        )


class SchemaCompileError(SchemaError):
    """The schema cannot be compiled: it is unsatisfiable, or uses something we refuse.

    ``keyword`` is the keyword at fault (the last pointer segment when it names one); the
    conformance runner groups refusals by it.
    """

    def __init__(self, pointer: str, reason: str, *, keyword: str = "", hint: str = "") -> None:
        self.pointer = pointer
        self.reason = reason
        self.keyword = keyword or last_token(pointer)
        super().__init__(reason, where=f"schema {pointer or '#'}", hint=hint)


class UnsatisfiableSchema(SchemaCompileError):
    """No JSON value satisfies the schema (a grammar for it would accept nothing)."""


class UnsupportedSchema(SchemaCompileError):
    """The schema uses something the compiler refuses (unresolvable $ref, unknown dialect, …)."""


class CompileCancelled(Exception):
    """The caller cancelled the compilation (``compile_schema(cancelled=...)`` said so): no result,
    and nothing to report (the TUI cancels a compile whose text changed, or when it quits)."""
