"""The byte-level recognizer: the single acceptance engine under check, conformance and masks."""

from gramwright.recognizer.compiled import DEAD, CompiledGrammar
from gramwright.recognizer.recognizer import (
    InputRejected,
    Recognizer,
    Snapshot,
    clear_compile_cache,
    compile_grammar,
    describe_bytes,
)

__all__ = [
    "DEAD",
    "CompiledGrammar",
    "InputRejected",
    "Recognizer",
    "Snapshot",
    "clear_compile_cache",
    "compile_grammar",
    "describe_bytes",
]
