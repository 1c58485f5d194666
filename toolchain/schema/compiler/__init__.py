"""JSON Schema → grammar IR. See :mod:`.core` for the pipeline, :mod:`.keywords` for the keywords."""

from gramwright.schema.compiler.core import Compiler
from gramwright.schema.compiler.options import CompileOptions

__all__ = ["CompileOptions", "Compiler"]
