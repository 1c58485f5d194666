"""The grammar IR: one representation for schemas, bundled grammars, user GBNF and editors."""

from gramwright.grammar.ir import (
    Alt,
    CharClass,
    Expr,
    Grammar,
    Literal,
    Ref,
    Repeat,
    Seq,
    alt,
    char_class,
    literal,
    repeat,
    seq,
)

__all__ = [
    "Alt",
    "CharClass",
    "Expr",
    "Grammar",
    "Literal",
    "Ref",
    "Repeat",
    "Seq",
    "alt",
    "char_class",
    "literal",
    "repeat",
    "seq",
]
