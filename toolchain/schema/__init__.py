"""JSON Schema → grammar: load, resolve ``$ref``, compile keyword by keyword, report exactness.

``compile_schema(schema)`` returns a :class:`CompiledSchema` whose grammar accepts the canonical
text (:mod:`gramwright.schema.canonical`) of every instance the schema accepts — never less — and
whose report says, per keyword occurrence, whether the grammar enforces it exactly.
"""

from gramwright.schema.api import CompiledSchema, compile_schema
from gramwright.schema.compiler.options import CompileOptions
from gramwright.schema.errors import (
    SchemaCompileError,
    SchemaLoadError,
    SchemaTooDeep,
    UnsatisfiableSchema,
    UnsupportedSchema,
)
from gramwright.schema.load import load_schema, read_schema_bytes
from gramwright.schema.report import CompileReport, ReportEntry

__all__ = [
    "CompileOptions",
    "CompileReport",
    "CompiledSchema",
    "ReportEntry",
    "SchemaCompileError",
    "SchemaLoadError",
    "SchemaTooDeep",
    "UnsatisfiableSchema",
    "UnsupportedSchema",
    "compile_schema",
    "load_schema",
    "read_schema_bytes",
]
