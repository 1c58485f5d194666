"""What a change means for the model, from the language facts and compile reports of two schemas;
and the snapshot text read back (report and facts as data, unknown lines compared but not trusted)."""

from __future__ import annotations

from typing import Any

import pytest

from gramwright.grammar.gbnf import emit_gbnf
from gramwright.schema.report import ReportEntry
from gramwright.snapshot import language_changes, language_facts, parse_snapshot, render_snapshot
from gramwright.snapshot.meaning import summary
from gramwright.sources import load_source


def _changes(old: Any, new: Any) -> list[tuple[str, str, str]]:
    found = language_changes(language_facts(old), language_facts(new), [], [])
    return [(c.direction, c.pointer, c.what) for c in found]


CLOSED = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"enum": [1, "1"]}, {"enum": [1]}, [("narrower", "", 'enum member removed: "1"')]),
        ({"type": "string"}, {"type": ["string", "null"]}, [("wider", "", "type added: null")]),
        (
            {"type": "string"},
            {"type": "string", "enum": ["a"]},
            [("narrower", "", "enum added: only its members may be written")],
        ),
        (
            CLOSED,
            {**CLOSED, "properties": {"a": {"type": "string"}, "b": {}}},
            [("wider", "", "member added: b")],
        ),
        (
            {"type": "object", "properties": {"a": {}}},
            {"type": "object", "properties": {"a": {}, "b": {}}},
            [("narrower", "", "member added: b")],
        ),
        (
            CLOSED,
            {**CLOSED, "additionalProperties": True},
            [("wider", "", "object at / opened to undeclared members")],
        ),
        ({"const": "x"}, {"const": "y"}, [("changed", "", 'const "x" → "y"')]),
        (
            {"properties": {"a": {}}, "required": ["a"]},
            {"properties": {"a": {}}, "required": []},
            [("wider", "", "member 'a' became optional")],
        ),
        (
            {"properties": {"a": {}}},
            {"properties": {"a": {}}, "required": ["a"]},
            [("narrower", "", "member 'a' became required")],
        ),
        (
            {"items": {"enum": ["x"]}},
            {"items": {"enum": ["x", "y"]}},
            [("wider", "/items", 'enum member added: "y"')],
        ),
    ],
    ids=[
        "enum-removed-member",
        "type-added",
        "enum-added",
        "closed-member-added",
        "open-member-added",
        "opened",
        "const",
        "optional",
        "required",
        "nested",
    ],
)
def test_fact_changes(old: Any, new: Any, expected: list[tuple[str, str, str]]) -> None:
    assert _changes(old, new) == expected


def test_report_changes() -> None:
    old = [
        ReportEntry("/a/minimum", "minimum", "exact"),
        ReportEntry("/b/pattern", "pattern", "approximated"),
    ]
    new = [
        ReportEntry("/a/minimum", "minimum", "discarded", "gone"),
        ReportEntry("/b/pattern", "pattern", "exact"),
        ReportEntry("/c/maximum", "maximum", "exact"),
    ]
    changes = language_changes([], [], old, new)
    assert [(c.direction, c.pointer) for c in changes] == [
        ("wider", "/a/minimum"),
        ("narrower", "/b/pattern"),
        ("narrower", "/c/maximum"),
    ]
    assert "moved from exact to discarded" in changes[0].what and summary(changes) == "changed"
    removed = language_changes([], [], old[:1], [])
    assert [(c.direction, c.what) for c in removed] == [
        ("wider", "minimum removed, was enforced by the grammar")
    ]
    assert summary([]) is None


def test_a_snapshot_reads_back_as_data(tmp_path: Any) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"type":"object","properties":{"a":{"enum":[1,2]}},"required":["a"]}', encoding="utf-8")
    compiled = load_source(str(path))
    text = render_snapshot(
        "s.json", "ab" * 32, "9.9", compiled, emit_gbnf(compiled.grammar), [("lark", "x\n")]
    )
    stored = parse_snapshot(text)
    assert (stored.source, stored.source_sha256, stored.version, stored.targets) == (
        "s.json",
        "ab" * 32,
        "9.9",
        ("lark",),
    )
    assert stored.report == sorted(compiled.report, key=lambda e: e.pointer)
    assert stored.facts == language_facts(compiled.schema)
    assert stored.body.startswith("## compile report: ") and stored.body.endswith("## export lark\nx\n")
    # a hand-edited line is not a fact, but it stays in the body and so in the comparison
    edited = parse_snapshot(text.replace('enum "/properties/a" [1,2]', 'enum "/properties/a" [1,2'))
    assert len(edited.facts) == len(stored.facts) - 1 and edited.body != stored.body
    assert parse_snapshot("").body == "" and parse_snapshot("").facts == []
