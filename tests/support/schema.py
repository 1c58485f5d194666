"""The schema compiler tests' checker: compile a schema once, then ask whether instances or exact
texts are accepted (tests/schema/test_checker.py checks it works)."""

from __future__ import annotations

from typing import Any

from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.schema import CompiledSchema, CompileOptions, compile_schema
from gramwright.schema.canonical import accepts


def compiled(schema: dict[str, Any] | bool, **options: Any) -> CompiledSchema:
    return compile_schema(schema, options=CompileOptions(**options))


class Checker:
    """Compile once, then ask whether instances (canonical text, any member order) are accepted."""

    def __init__(self, schema: dict[str, Any] | bool, **options: Any) -> None:
        self.compiled = compiled(schema, **options)
        self.recognizer = Recognizer(compile_grammar(self.compiled.grammar))

    def __call__(self, instance: Any) -> bool:
        self.recognizer.reset()
        return accepts(self.recognizer, instance)

    def text(self, text: str) -> bool:
        """Whether exactly this JSON text is accepted."""
        self.recognizer.reset()
        ok = self.recognizer.try_feed(text.encode("utf-8")) and self.recognizer.is_accepting()
        self.recognizer.reset()
        return ok

    def status(self, pointer: str) -> str:
        for entry in self.compiled.report:
            if entry.pointer == pointer:
                return entry.status
        return "missing"
