"""ECMA-262 regular expressions (JSON Schema ``pattern``) → grammar IR expressions.

``parser`` reads the pattern text into a syntax tree, ``translate`` turns the tree into an IR
expression with search semantics, ``charsets`` holds the code-point sets both use.
"""

from gramwright.regex.errors import RegexSyntaxError, RegexUnsupported
from gramwright.regex.parser import ECMA_READING
from gramwright.regex.translate import (
    ANY_STRING,
    DEFAULT_MAX_REPEAT,
    NOTHING,
    WIDENED,
    RegexResult,
    regex_to_expr,
)

__all__ = [
    "ANY_STRING",
    "DEFAULT_MAX_REPEAT",
    "ECMA_READING",
    "NOTHING",
    "WIDENED",
    "RegexResult",
    "RegexSyntaxError",
    "RegexUnsupported",
    "regex_to_expr",
]
