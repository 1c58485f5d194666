"""JSON Schema → grammar IR. See :mod:`.core` for the pipeline, :mod:`.keywords` for the keywords."""

from toolchain.schema.compiler.core import Compiler
from toolchain.schema.compiler.options import CompileOptions

__all__ = ["CompileOptions", "Compiler"]
