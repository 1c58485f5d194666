"""Typed schema errors: each says where (file:line:col or JSON Pointer) and what, in one line."""

from __future__ import annotations

from gramwright.errors import SchemaError
from gramwright.pointer import last_token

__all__ = ["SchemaCompileError", "SchemaError", "SchemaLoadError", "UnsatisfiableSchema", "UnsupportedSchema"]


class SchemaLoadError(SchemaError):
    """A schema file that cannot be read or is not valid JSON; points at file:line:column."""

    def __init__(self, path: str, message: str, *, line: int = 0, column: int = 0) -> None:
        self.path = path
        self.line = line
        self.column = column
        where = f"{path}:{line}:{column}" if line else path
        super().__init__(message, where=where, hint="fix the JSON syntax at that position" if line else "")


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
