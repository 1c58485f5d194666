"""Turn a user's grammar source into the one compiled-source type: a GBNF file, a JSON Schema, or a
bundled grammar name → :class:`CompiledSource`.

Everything a later layer needs is kept here, computed once: the prepared grammar, the compile
report, the rule → schema-pointer map, the member orders (for "reorder" diagnoses) and the
schema's ``$ref`` registry (so validation resolves a sibling file's ``$ref`` exactly as the
compiler did). Pure core: no printing. The CLI, the TUI and the public API all call
:func:`load_source`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gramwright.errors import GramwrightError, SourceError
from gramwright.grammar.analysis import prepare
from gramwright.grammar.ir import Grammar
from gramwright.schema.report import ReportEntry

if TYPE_CHECKING:
    from gramwright.schema.grounding import GroundSpec, SourceExport
    from gramwright.schema.resolve import SchemaRegistry

__all__ = ["CompiledSource", "load_for_generation", "load_source"]

SourceKind = Literal["gbnf", "schema", "bundled", "edit"]  # edit: built from files by editors.generate
Whitespace = Literal["compact", "flexible"]


@dataclass
class CompiledSource:
    """A grammar source compiled once, with everything validation and diagnostics need."""

    grammar: Grammar  # prepared: dead parts pruned, unreachable rules dropped
    kind: SourceKind
    name: str
    compile_ms: float
    report: list[ReportEntry] = field(default_factory=list)
    rule_pointers: dict[str, str] = field(default_factory=dict)
    schema: Any = None
    # schemas: the member orders the grammar writes objects in (for "reorder" diagnoses)
    member_orders: list[tuple[str, ...]] = field(default_factory=list)
    # schemas: the documents the compile resolved (``$ref`` to files beside the schema included)
    registry: SchemaRegistry | None = field(default=None, repr=False)
    whitespace: Whitespace = "compact"
    close_objects: bool = False
    # ``close_objects``: the object subschemas that took no undeclared members (JSON Pointers)
    closed_objects: list[str] = field(default_factory=list)
    # set once generation's choice is made (closed, or open by opt-out); None: the spec's default
    # for check and export, not yet decided for generation
    generation_objects: Literal["closed", "open"] | None = None
    _variants: dict[bool, CompiledSource] = field(default_factory=dict, repr=False, compare=False)
    # ``x-grounded`` members (placeholder rules; see ``schema.grounding``) and, once
    # :meth:`with_source` built them in, the source text their values come from
    grounded: list[GroundSpec] = field(default_factory=list)
    source_text: str | None = None
    ground_ms: float = 0.0  # building the source's grammar (0 when it came from the cache)
    _by_source: dict[str, CompiledSource] = field(default_factory=dict, repr=False, compare=False)
    _origin: CompiledSource | None = field(default=None, repr=False, compare=False)

    @property
    def is_schema(self) -> bool:
        return self.kind == "schema"

    @property
    def exact(self) -> bool:
        """Every schema keyword is enforced by the grammar itself (nothing approximated or dropped)."""
        return all(item.status == "exact" for item in self.report)

    def inexact(self) -> list[ReportEntry]:
        return [item for item in self.report if item.status != "exact"]

    def with_whitespace(self, whitespace: Whitespace) -> CompiledSource:
        """The same schema compiled with other whitespace (``check`` asks whether a pretty-printed
        document would pass with ``flexible``); a GBNF source has one grammar and is returned."""
        if not self.is_schema or whitespace == self.whitespace:
            return self
        if self.source_text is not None:
            return self.ungrounded().with_whitespace(whitespace).with_source(self.source_text)
        other = _compile_schema(self.name, self.schema, whitespace, self.close_objects)
        other.generation_objects = self.generation_objects
        return other

    def for_generation(self, open_objects: bool | None = None) -> CompiledSource:
        """The source a model generates under. Objects are closed (an object schema that declares
        members and says nothing of ``additionalProperties`` takes no others, as OpenAI's strict
        mode and XGrammar do) unless ``open_objects`` or the schema's ``x-runtime``
        ``open_objects: true`` keeps the specification's open default. ``None`` keeps a choice
        made before (a source from :func:`load_for_generation`), else asks the schema. Every
        generated value still validates against the schema as written: closing only narrows
        what the model may write. GBNF and bundled grammars are returned as they are."""
        if not self.is_schema:
            return self
        if self.source_text is not None:
            if open_objects is None and self.generation_objects is not None:
                return self
            return self.ungrounded().for_generation(open_objects).with_source(self.source_text)
        if open_objects is None:
            if self.generation_objects is not None:
                return self
            open_objects = runtime_open_objects(self.schema, self.name)
        wanted: Literal["closed", "open"] = "open" if open_objects else "closed"
        if self.generation_objects == wanted:
            return self
        if bool(open_objects) != self.close_objects:  # compiled that way already
            return dataclasses.replace(self, generation_objects=wanted, _variants={})
        variant = self._variants.get(open_objects)
        if variant is None:
            variant = _compile_schema(self.name, self.schema, self.whitespace, not open_objects)
            variant.generation_objects = wanted
            self._variants[open_objects] = variant
        return variant

    def with_source(self, text: str) -> CompiledSource:
        """This source with its grounded members built from ``text`` (their values become
        substrings / numbers of it). Cached per text: a retry or a repeated source rebuilds
        nothing. A source without grounded members is returned as it is."""
        if not self.grounded:
            return self
        if self.source_text is not None:
            if self.source_text == text:
                return self
            raise ValueError("this source is grounded already; ground the ungrounded source")
        hit = self._by_source.get(text)
        if hit is not None:
            hit.ground_ms = 0.0
            return hit
        from gramwright.grammar.errors import EmptyLanguageError
        from gramwright.schema.grounding import ground_grammar

        t0 = time.perf_counter()
        built = ground_grammar(self.grammar, self.grounded, text)
        try:
            grammar = prepare(built.grammar)
        except EmptyLanguageError:
            where = ", ".join(spec.pointer or "/" for spec in self.grounded)
            raise SourceError(
                self.name,
                f"no value in the source fits the grounded members ({where})",
                "allow null or make them optional, or check the source text",
            ) from None
        report = list(self.report)
        for spec in built.unbounded:
            report.append(
                ReportEntry(
                    f"{spec.pointer}/maxLength",
                    "maxLength",
                    "approximated",
                    "x-grounded: too many distinct substrings under the bound; validation checks it",
                )
            )
        grounded = dataclasses.replace(
            self,
            grammar=grammar,
            report=report,
            source_text=text,
            ground_ms=(time.perf_counter() - t0) * 1000,
            _variants={},
            _by_source={},
            _origin=self,
        )
        if len(self._by_source) >= 16:  # a batch's sources come one after another
            self._by_source.pop(next(iter(self._by_source)))
        self._by_source[text] = grounded
        return grounded

    def for_export(self, text: str) -> SourceExport:
        """The grammar to export with ``text``'s grounding in it for a target with a substring
        constraint, prepared (see ``schema.grounding.export_grounding``; a target without one
        exports :meth:`with_source`'s grammar, the automaton written out as rules)."""
        from gramwright.grammar.errors import EmptyLanguageError
        from gramwright.schema.grounding import export_grounding

        built = export_grounding(self.ungrounded().grammar, self.grounded, text)
        try:
            return dataclasses.replace(built, grammar=prepare(built.grammar))
        except EmptyLanguageError:
            where = ", ".join(spec.pointer or "/" for spec in self.grounded)
            raise SourceError(
                self.name,
                f"no value in the source fits the grounded members ({where})",
                "allow null or make them optional, or check the source text",
            ) from None

    def ungrounded(self) -> CompiledSource:
        """The source as compiled from the schema, without a source text built in."""
        if self.source_text is None:
            return self
        assert self._origin is not None  # set by ``with_source``
        return self._origin

    def pointers_for(self, rules: list[str]) -> list[str]:
        """Schema pointers for rule names (for "rejected by keyword …" messages)."""
        return [self.rule_pointers[r] for r in rules if r in self.rule_pointers]


def runtime_open_objects(schema: Any, where: str = "") -> bool:
    """The schema's ``x-runtime`` ``open_objects`` (false when absent); a value that is not a
    boolean is a :class:`SourceError` naming its pointer."""
    from gramwright.x_runtime import parse_runtime

    block = schema.get("x-runtime") if isinstance(schema, dict) else None
    if not isinstance(block, dict) or "open_objects" not in block:
        return False
    fields, problems = parse_runtime({"open_objects": block["open_objects"]})
    for problem in problems:
        if problem.kind == "invalid":
            raise SourceError(where, f"{problem.pointer}: {problem.message}", "write true or false")
    return bool(fields.get("open_objects", False))


def load_for_generation(
    path: str,
    *,
    text: str | None = None,
    whitespace: Whitespace = "compact",
    open_objects: bool | None = None,
    ground: bool = False,
    source_text: str | None = None,
) -> CompiledSource:
    """:func:`load_source` for a model to generate under, compiled once: objects closed unless
    ``open_objects`` (``None``: the schema's ``x-runtime`` ``open_objects``, else closed). See
    :meth:`CompiledSource.for_generation`. ``ground``: every plain string of the schema is
    ``x-grounded``; ``source_text``: the grounded members' values come from it
    (:meth:`CompiledSource.with_source`)."""
    close = None if open_objects is None else not open_objects
    compiled = load_source(path, text=text, whitespace=whitespace, close_objects=close, ground=ground)
    if compiled.is_schema and close is not None:
        compiled.generation_objects = "closed" if close else "open"
    return compiled if source_text is None else compiled.with_source(source_text)


def load_source(
    path: str,
    *,
    text: str | None = None,
    whitespace: Whitespace = "compact",
    close_objects: bool | None = False,
    cancelled: Callable[[], bool] | None = None,
    ground: bool = False,
) -> CompiledSource:
    """Load and compile ``path``: a ``.gbnf`` file, a JSON Schema ``.json`` file, or a bundled
    grammar name (``json``, ``arithmetic``, …). ``text`` gives the content instead of reading the
    file (the TUI's unsaved buffer). ``close_objects``: schemas only — an absent
    ``additionalProperties`` means no other members (see ``CompileOptions``); ``False``, the
    default, is the specification's open objects (``check``, ``compile``, exports); ``None`` is
    generation's default (closed unless the schema's ``x-runtime`` says ``open_objects: true``),
    and marks the result as decided for generation. ``cancelled``: schemas only — asked while
    compiling; True stops it with :class:`~gramwright.schema.errors.CompileCancelled`.

    Raises a :class:`~gramwright.errors.GramwrightError` subclass (``SourceError``,
    ``SchemaError``, ``GrammarError``) that names the file and what to do.
    """
    from gramwright.grammar import bundled
    from gramwright.grammar.gbnf import parse_gbnf

    p = Path(path)
    t0 = time.perf_counter()
    if text is None and not p.exists():
        if path in bundled.bundled_names():
            g = prepare(bundled.load_bundled(path))
            return CompiledSource(g, "bundled", path, (time.perf_counter() - t0) * 1000)
        names = ", ".join(bundled.bundled_names())
        raise SourceError(path, "no such file", f"give a .gbnf or .json file, or a bundled grammar: {names}")
    if text is None:
        if p.is_dir():
            raise SourceError(path, "is a directory", "give a .gbnf or JSON Schema .json file")
        text = _read_text(p, path)
    if p.suffix.lower() == ".gbnf":
        g = prepare(parse_gbnf(text, source=path))
        return CompiledSource(g, "gbnf", path, (time.perf_counter() - t0) * 1000)
    stripped = text.lstrip("\ufeff \t\r\n")
    if p.suffix.lower() == ".json" or stripped.startswith(("{", "true", "false")):
        from gramwright.schema.grounding import ground_schema
        from gramwright.schema.load import parse_schema_text

        schema = parse_schema_text(text, path)  # it drops a byte-order mark itself
        schema = ground_schema(schema, ground_all=ground)
        if close_objects is None:
            close = not runtime_open_objects(schema, path)
            compiled = _compile_schema(path, schema, whitespace, close, cancelled)
            compiled.generation_objects = "closed" if close else "open"
            return compiled
        return _compile_schema(path, schema, whitespace, close_objects, cancelled)
    raise SourceError(path, "unknown grammar source", "use a .gbnf file or a JSON Schema .json file")


def _read_text(p: Path, path: str) -> str:
    from gramwright.readlimit import read_limited

    try:
        data = read_limited(p, "grammar source")
    except OSError as exc:
        raise SourceError(path, f"cannot read: {exc.strerror or exc}") from None
    if p.suffix.lower() != ".gbnf":  # the one schema reader: BOM, UTF-16, binary, bad UTF-8
        from gramwright.schema.load import decode_schema_bytes

        return decode_schema_bytes(data, path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            path, f"not valid UTF-8 at byte {exc.start}", "save the file as UTF-8 text"
        ) from None


def _compile_schema(
    path: str,
    schema: Any,
    whitespace: Whitespace,
    close_objects: bool,
    cancelled: Callable[[], bool] | None = None,
) -> CompiledSource:
    from gramwright.schema import CompileOptions, compile_schema

    base_uri = Path(path).resolve().as_uri() if Path(path).exists() else None
    options = CompileOptions(whitespace=whitespace, close_objects=close_objects)
    try:
        compiled = compile_schema(
            schema, base_uri=base_uri, options=options, source=path, cancelled=cancelled
        )
    except GramwrightError as exc:
        if not exc.where.startswith(path):
            exc.where = f"{path}, {exc.where}" if exc.where else path
        raise
    return CompiledSource(
        grammar=prepare(compiled.grammar),
        kind="schema",
        name=path,
        compile_ms=compiled.compile_ms,
        report=list(compiled.report.entries),
        rule_pointers=dict(compiled.rule_pointers),
        schema=schema,
        member_orders=list(compiled.member_orders),
        registry=compiled.registry,
        whitespace=whitespace,
        close_objects=close_objects,
        closed_objects=sorted(compiled.closed_objects),
        grounded=list(compiled.grounded),
    )
