"""The TUI's UI-free core: one schema file and the calls the panels make into the toolchain.

Every result comes from the same functions the CLI uses (``lint_schema``, ``load_source``,
``emit_gbnf``, ``check_document``, ``atomic_write_text``); this class only remembers the file, the
saved text and the last compile, so the widgets stay free of toolchain calls and can be tested
apart from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gramwright.errors import SourceError
from gramwright.fsutil import atomic_write_text
from gramwright.lint import DEFAULT_PROFILE, LintReport, available_profiles, lint_schema
from gramwright.schema.errors import SchemaLoadError
from gramwright.schema.load import decode_schema_bytes
from gramwright.schema.load import parse_schema_text as parse_schema
from gramwright.schema.report import ReportEntry
from gramwright.sources import CompiledSource, load_source

if TYPE_CHECKING:
    from gramwright.checking import CheckResult

Whitespace = Literal["compact", "flexible"]

NEW_SCHEMA = '{\n  "type": "object",\n  "properties": {},\n  "additionalProperties": false\n}\n'


@dataclass(frozen=True)
class ParseResult:
    """The schema text parsed, or where the JSON parser stopped (1-based line and column)."""

    value: Any = None
    error: str = ""
    line: int = 0
    column: int = 0

    @property
    def ok(self) -> bool:
        return not self.error


def parse_schema_text(text: str) -> ParseResult:
    """The editor's text through the one schema reader (any JSON value: lint reports the rest)."""
    try:
        return ParseResult(parse_schema(text, any_value=True))
    except SchemaLoadError as exc:
        return ParseResult(error=exc.message, line=exc.line, column=exc.column)


@dataclass
class CompiledView:
    """One compile of one text: what the grammar panel shows and what the check panel runs."""

    text: str
    loaded: CompiledSource
    gbnf: str
    whitespace: Whitespace
    _recognizer_grammar: Any = field(default=None, repr=False)

    @property
    def rule_count(self) -> int:
        return len(self.loaded.grammar.rules)

    @property
    def inexact(self) -> list[ReportEntry]:
        return [item for item in self.loaded.report if item.status != "exact"]

    def recognizer_grammar(self) -> Any:
        from gramwright.recognizer import compile_grammar

        if self._recognizer_grammar is None:
            self._recognizer_grammar = compile_grammar(self.loaded.grammar)
        return self._recognizer_grammar


class SchemaSession:
    """A schema file being edited: its path, the text last saved, and the lint/compile/check calls."""

    def __init__(self, path: Path | None, saved_text: str = "", profile: str = DEFAULT_PROFILE) -> None:
        self.path = path
        self.saved_text = saved_text
        self.profile = profile
        self.whitespace: Whitespace = "compact"

    @classmethod
    def open(cls, path: Path | None, profile: str = DEFAULT_PROFILE) -> tuple[SchemaSession, str]:
        """The session and the text to edit: the file's, or a small new schema for a new file.

        Raises :class:`SourceError` for a file the editor cannot show: a folder, unreadable,
        binary (NUL bytes) or not UTF-8. A UTF-8 byte order mark is dropped (JSON has none; it
        is not written back on save)."""
        if path is not None and path.exists():
            text = _read_text(path).removeprefix("\ufeff")
            return cls(path, text, profile), text
        return cls(path, "", profile), NEW_SCHEMA

    @property
    def name(self) -> str:
        return self.path.name if self.path else "untitled.json"

    @property
    def is_schema(self) -> bool:
        """GBNF files compile and check too, but only JSON Schemas are linted."""
        return self.path is None or self.path.suffix.lower() != ".gbnf"

    def is_dirty(self, text: str) -> bool:
        return text != self.saved_text

    @staticmethod
    def profiles() -> list[str]:
        return available_profiles()

    def next_profile(self) -> str:
        names = self.profiles()
        current = self.profile.partition("@")[0]
        index = names.index(current) if current in names else -1
        return names[(index + 1) % len(names)]

    def lint(self, schema: Any, profile: str | None = None) -> LintReport:
        return lint_schema(schema, profile=profile or self.profile, file=self.name)

    def compile(self, text: str, cancelled: Callable[[], bool] | None = None) -> CompiledView:
        """Compile the buffer; ``cancelled`` (asked between subschemas) stops it early."""
        from gramwright.grammar.gbnf import emit_gbnf

        source = str(self.path) if self.path else self.name
        loaded = load_source(source, text=text, whitespace=self.whitespace, cancelled=cancelled)
        return CompiledView(text, loaded, emit_gbnf(loaded.grammar), self.whitespace)

    def check(self, view: CompiledView, data: bytes) -> CheckResult:
        """As `gramwright check` does: a final newline the grammar does not accept is ignored,
        and a rejection says when whitespace or member order is its cause."""
        from gramwright.checking import check_document
        from gramwright.recognizer import Recognizer

        def flexible() -> CompiledSource:
            return view.loaded.with_whitespace("flexible")

        # the editor shows the grammar's own form (what generation writes), byte for byte
        return check_document(
            view.loaded, Recognizer(view.recognizer_grammar()), data, flexible=flexible, form="bytes"
        )

    def save(self, text: str, path: Path | None = None) -> Path:
        target = path or self.path
        if target is None:
            raise ValueError("no file name yet: save as a path first")
        atomic_write_text(target, text)
        self.path = target
        self.saved_text = text
        return target

    def gbnf_path(self) -> Path:
        base = self.path or Path(self.name)
        if base.suffix.lower() == ".gbnf":  # never overwrite a GBNF source with its canonical form
            return base.with_name(base.stem + ".canonical.gbnf")
        return base.with_suffix(".gbnf")

    def export_gbnf(self, view: CompiledView, path: Path | None = None) -> Path:
        target = path or self.gbnf_path()
        atomic_write_text(target, view.gbnf)
        return target


def _read_text(path: Path) -> str:
    where = str(path)
    if path.is_dir():
        raise SourceError(where, "is a directory", "give a schema file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(where, f"cannot read: {exc.strerror or exc}") from None
    try:  # the one schema reader's checks (binary, UTF-16/32, bad UTF-8), GBNF files too
        return decode_schema_bytes(data, where)
    except SchemaLoadError as exc:
        raise SourceError(where, exc.message, exc.hint) from None
