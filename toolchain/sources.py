"""Turn a user's grammar source into the one IR: a GBNF file, a JSON Schema, or a bundled name.

Pure core (no printing). The CLI and the TUI both call ``load_source``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gramwright.errors import SourceError
from gramwright.grammar.analysis import prepare
from gramwright.grammar.ir import Grammar

SourceKind = Literal["gbnf", "schema", "bundled"]
Whitespace = Literal["compact", "flexible"]




@dataclass
class ReportItem:
    pointer: str
    keyword: str
    status: str  # exact | approximated | discarded
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {
            "pointer": self.pointer,
            "keyword": self.keyword,
            "status": self.status,
            "reason": self.reason,
        }


@dataclass
class LoadedGrammar:
    grammar: Grammar  # prepared: dead parts pruned, unreachable rules dropped
    kind: SourceKind
    name: str
    compile_ms: float
    report: list[ReportItem] = field(default_factory=list)
    rule_pointers: dict[str, str] = field(default_factory=dict)
    schema: Any = None
    # schemas: the member orders the grammar writes objects in (for "reorder" diagnoses)
    member_orders: list[tuple[str, ...]] = field(default_factory=list)

    def pointers_for(self, rules: list[str]) -> list[str]:
        """Schema pointers for rule names (for "rejected by keyword …" messages)."""
        return [self.rule_pointers[r] for r in rules if r in self.rule_pointers]


def parse_json_text(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc


def load_source(
    path: str, *, text: str | None = None, whitespace: Whitespace = "compact", close_objects: bool = False
) -> LoadedGrammar:
    """Load ``path`` (``.gbnf``, a JSON Schema ``.json``, or a bundled grammar name).
    ``close_objects``: schemas only — an absent ``additionalProperties`` means ``false``."""
    from gramwright.grammar import bundled
    from gramwright.grammar.gbnf import parse_gbnf

    p = Path(path)
    t0 = time.perf_counter()
    if text is None and not p.exists():
        if path in bundled.bundled_names():
            g = prepare(bundled.load_bundled(path))
            return LoadedGrammar(g, "bundled", path, (time.perf_counter() - t0) * 1000)
        names = ", ".join(bundled.bundled_names())
        raise SourceError(path, "no such file", f"bundled grammars: {names}")
    if text is None:
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SourceError(path, f"cannot read: {exc}") from exc
    if p.suffix.lower() == ".gbnf":
        g = prepare(parse_gbnf(text, source=path))
        return LoadedGrammar(g, "gbnf", path, (time.perf_counter() - t0) * 1000)
    if p.suffix.lower() == ".json" or text.lstrip().startswith(("{", "true", "false")):
        return _load_schema(path, parse_json_text(text, path), whitespace, close_objects)
    raise SourceError(path, "unknown grammar source", "use a .gbnf file or a JSON Schema .json file")


def _load_schema(path: str, schema: Any, whitespace: Whitespace, close_objects: bool) -> LoadedGrammar:
    from gramwright.schema import CompileOptions, compile_schema

    base_uri = Path(path).resolve().as_uri() if Path(path).exists() else None
    options = CompileOptions(whitespace=whitespace, close_objects=close_objects)
    compiled = compile_schema(schema, base_uri=base_uri, options=options)
    report = [ReportItem(e.pointer, e.keyword, e.status, e.reason) for e in compiled.report.entries]
    return LoadedGrammar(
        grammar=prepare(compiled.grammar),
        kind="schema",
        name=path,
        compile_ms=compiled.compile_ms,
        report=report,
        rule_pointers=dict(compiled.rule_pointers),
        schema=schema,
        member_orders=list(compiled.member_orders),
    )
