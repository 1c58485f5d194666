"""One snapshot file: what a grammar source compiles to, as reviewable text, and back.

A snapshot holds a header (the source, its SHA-256, the gramwright version, the export targets),
the compile report (every keyword occurrence: exact / approximated / discarded, with its pointer),
the *language facts* of a schema (each object's members, which are required and whether it is
closed; each enum, const and type list), the canonical GBNF, and one section per export target.

The report and the facts are kept in a line format that :func:`parse_snapshot` reads back, so a
check can say what a change means for the model (a new enum member, a member that became optional,
a keyword that moved from exact to approximated) by comparing data, not diff lines. The grammar
sections come last and are compared as text only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gramwright.pointer import join_pointer
from gramwright.schema.facts import subschemas
from gramwright.schema.report import ReportEntry
from gramwright.sources import CompiledSource

__all__ = [
    "FORMAT",
    "Fact",
    "StoredSnapshot",
    "language_facts",
    "parse_snapshot",
    "render_body",
    "render_snapshot",
]

FORMAT = "gramwright snapshot v1"
_SOURCE = "# source: "
_HASH = "# source-sha256: "
_VERSION = "# gramwright: "
_TARGETS = "# targets: "
_REPORT = "## compile report"
_FACTS = "## language"
_GBNF = "## gbnf"
_EXPORT = "## export "
FACT_KINDS = ("type", "properties", "required", "closed", "enum", "const")


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact about the language at a schema pointer: ``kind`` is one of :data:`FACT_KINDS`,
    ``value`` a JSON value (a list of type names, member names or enum members; a bool; the const)."""

    kind: str
    pointer: str
    value: Any

    def line(self) -> str:
        return f"{self.kind} {_dump(self.pointer)} {_dump(self.value)}"


@dataclass
class StoredSnapshot:
    """A snapshot file read back: the header fields, the report and facts as data, and the body
    (everything below the header) that a check compares."""

    source: str = ""
    source_sha256: str = ""
    version: str = ""
    targets: tuple[str, ...] = ()
    report: list[ReportEntry] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    body: str = ""


def dump_json_value(value: Any) -> str:
    """Compact JSON with sorted keys: the one text of a value in a snapshot and in comparisons."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_dump = dump_json_value


def _closed(schema: dict[str, Any]) -> bool:
    return schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False


def _walk(schema: Any, pointer: str) -> Iterator[Fact]:
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if isinstance(kind, str | list):
        yield Fact("type", pointer, sorted([kind] if isinstance(kind, str) else map(str, kind)))
    props = schema.get("properties")
    if isinstance(props, dict):
        yield Fact("properties", pointer, sorted(props))
        yield Fact("closed", pointer, _closed(schema))
    required = schema.get("required")
    if isinstance(required, list):
        yield Fact("required", pointer, sorted(str(name) for name in required))
    if isinstance(schema.get("enum"), list):
        yield Fact("enum", pointer, sorted(schema["enum"], key=_dump))
    if "const" in schema:
        yield Fact("const", pointer, schema["const"])
    for keyword, key, sub in subschemas(schema):
        names = (keyword,) if key is None else (keyword, key)
        yield from _walk(sub, join_pointer(pointer, *names))


def language_facts(schema: Any) -> list[Fact]:
    """What the schema says the model may write, per pointer, in document order (enum members
    sorted by their JSON text)."""
    return list(_walk(schema, ""))


def _report_line(entry: ReportEntry) -> str:
    reason = f": {entry.reason}" if entry.reason else ""
    return f"{entry.status} {_dump(entry.pointer)} {entry.keyword}{reason}"


def render_body(compiled: CompiledSource, gbnf: str, exports: Sequence[tuple[str, str]] = ()) -> str:
    """Everything below the header: the report, the language facts, the GBNF, the exports. The
    syrupy extension stores this alone (a header with a hash and a version belongs to files that
    ``gramwright snapshot`` owns)."""
    counts = {status: 0 for status in ("exact", "approximated", "discarded")}
    for entry in compiled.report:
        counts[entry.status] += 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    lines = [f"{_REPORT}: {summary}" if compiled.is_schema else f"{_REPORT}: a grammar source, no schema"]
    lines += [_report_line(e) for e in sorted(compiled.report, key=lambda e: e.pointer)]
    if compiled.is_schema:
        lines.append(_FACTS)
        lines += [fact.line() for fact in language_facts(compiled.schema)]
    lines.append(_GBNF)
    text = "\n".join(lines) + "\n" + gbnf.rstrip("\n") + "\n"
    for target, exported in exports:
        text += f"{_EXPORT}{target}\n{exported.rstrip(chr(10))}\n"
    return text


def render_snapshot(
    source: str,
    sha256: str,
    version: str,
    compiled: CompiledSource,
    gbnf: str,
    exports: Sequence[tuple[str, str]],
) -> str:
    """The snapshot text. ``exports``: (target, text) pairs in the order asked for."""
    header = [
        f"# {FORMAT}",
        f"{_SOURCE}{source}",
        f"{_HASH}{sha256}",
        f"{_VERSION}{version}",
        f"{_TARGETS}{', '.join(t for t, _ in exports) or '-'}",
    ]
    return "\n".join(header) + "\n" + render_body(compiled, gbnf, exports)


def _parse_report_line(line: str) -> ReportEntry | None:
    status, _, rest = line.partition(" ")
    if status not in ("exact", "approximated", "discarded"):
        return None
    try:
        pointer, end = json.JSONDecoder().raw_decode(rest)
    except json.JSONDecodeError:
        return None
    keyword, _, reason = rest[end:].strip().partition(": ")
    return ReportEntry(str(pointer), keyword, status, reason)  # type: ignore[arg-type] # checked above


def _parse_fact_line(line: str) -> Fact | None:
    kind, _, rest = line.partition(" ")
    if kind not in FACT_KINDS:
        return None
    decoder = json.JSONDecoder()
    try:
        pointer, end = decoder.raw_decode(rest)
        value = json.loads(rest[end:])
    except json.JSONDecodeError:
        return None
    return Fact(kind, str(pointer), value)


def parse_snapshot(text: str) -> StoredSnapshot:
    """Read a snapshot back. Lines it does not understand are kept in the body (and so show in
    the diff) but give no facts: a hand-edited or foreign file is compared, never trusted."""
    stored = StoredSnapshot()
    lines = text.splitlines()
    body_from = 0
    for i, line in enumerate(lines):
        if line.startswith(_SOURCE):
            stored.source = line[len(_SOURCE) :]
        elif line.startswith(_HASH):
            stored.source_sha256 = line[len(_HASH) :].strip()
        elif line.startswith(_VERSION):
            stored.version = line[len(_VERSION) :].strip()
        elif line.startswith(_TARGETS):
            value = line[len(_TARGETS) :].strip()
            stored.targets = () if value == "-" else tuple(t.strip() for t in value.split(","))
        elif not line.startswith(f"# {FORMAT}"):
            body_from = i
            break
    else:
        body_from = len(lines)
    section = ""
    for line in lines[body_from:]:
        if line.startswith("## "):
            section = line
            if section.startswith(_GBNF):  # the grammar texts: compared, not parsed
                break
            continue
        if section.startswith(_REPORT):
            entry = _parse_report_line(line)
            if entry is not None:
                stored.report.append(entry)
        elif section == _FACTS:
            fact = _parse_fact_line(line)
            if fact is not None:
                stored.facts.append(fact)
    stored.body = "\n".join(lines[body_from:]) + ("\n" if lines[body_from:] else "")
    return stored


def body_of(text: str) -> str:
    """The part of a snapshot text a check compares: everything below the header."""
    return parse_snapshot(text).body
