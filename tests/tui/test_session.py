"""The TUI's UI-free parts: the session's calls into the core, help data, rendering helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from gramwright.errors import SourceError
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.lint import available_profiles
from gramwright.sources import load_source
from gramwright.tui.help import TOPICS, topic
from gramwright.tui.sampler import SampleOutcome
from gramwright.tui.session import NEW_SCHEMA, SchemaSession, parse_schema_text
from gramwright.tui.widgets.errors import one_line, record
from gramwright.tui.widgets.sample import outcome_text, shade
from gramwright.validate import validate_output


def test_parse_error_has_line_and_column() -> None:
    ok = parse_schema_text('{"type": "object"}')
    assert ok.ok
    assert ok.value == {"type": "object"}
    bad = parse_schema_text('{\n  "type": "object"\n  "x": 1\n}')
    assert not bad.ok
    assert (bad.line, bad.column) == (3, 3)
    assert "delimiter" in bad.error


def test_open_existing_and_new(schema_path: Path, tmp_path: Path) -> None:
    session, text = SchemaSession.open(schema_path)
    assert text == schema_path.read_text(encoding="utf-8")
    assert not session.is_dirty(text)
    assert session.is_dirty(text + " ")
    new, new_text = SchemaSession.open(tmp_path / "new.json")
    assert new_text == NEW_SCHEMA
    assert new.is_dirty(new_text)


def test_compile_is_the_cli_compile(schema_path: Path) -> None:
    session, text = SchemaSession.open(schema_path)
    view = session.compile(text)
    loaded = load_source(str(schema_path))
    assert view.gbnf == emit_gbnf(loaded.grammar)
    assert view.rule_count == len(loaded.grammar.rules)
    assert view.inexact == [item for item in loaded.report if item.status != "exact"]


def test_check_ignores_one_trailing_newline(schema_path: Path) -> None:
    session, text = SchemaSession.open(schema_path)
    view = session.compile(text)
    doc = b'{"supplier":"a","total_amount":1,"items":[{"name":"x","qty":1,"unit_price":1}]}'
    with_newline = session.check(view, doc + b"\n")
    assert with_newline.accepted and with_newline.final_newline_ignored
    verdict = session.check(view, doc.replace(b'"qty":1', b'"qty":0'))
    assert not verdict.accepted
    assert verdict.schema_pointers == ["/properties/items/items/properties/qty"]


def test_check_of_a_pretty_document_names_whitespace_and_the_flexible_grammar(schema_path: Path) -> None:
    # the buffer, not the file, is what the flexible grammar is compiled from
    session, text = SchemaSession.open(schema_path)
    edited = text.replace('"maxLength": 64', '"maxLength": 3')
    view = session.compile(edited)
    pretty = (
        b'{\n  "supplier": "abc",\n  "total_amount": 1,\n'
        b'  "items": [{"name": "x", "qty": 1, "unit_price": 1}]\n}'
    )
    verdict = session.check(view, pretty)
    assert verdict.reason == "whitespace" and verdict.diagnosis is not None
    assert verdict.diagnosis.flexible_accepts is True
    too_long = session.check(view, pretty.replace(b'"abc"', b'"abcd"'))
    assert too_long.reason == "rejected" and too_long.diagnosis is None


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"\xff\xfe{\x00}", "UTF-16 text"),  # the one schema reader names a UTF-16 file as such
        (b"\xc3(\x80abc", "not valid UTF-8 at byte 0"),
        (b"\x00\x01\x02binary", "binary file"),
        ('{"title": "caf\u00e9"}'.encode("latin-1"), "not valid UTF-8 at byte 14"),
    ],
)
def test_open_refuses_a_file_the_editor_cannot_show(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SourceError) as info:
        SchemaSession.open(path)
    assert says in info.value.one_line() and str(path) in info.value.one_line()
    assert path.read_bytes() == content
    with pytest.raises(SourceError, match="is a directory"):
        SchemaSession.open(tmp_path)


def test_open_drops_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"type": "object"}')
    session, text = SchemaSession.open(path)
    assert text == '{"type": "object"}' and not session.is_dirty(text)
    assert parse_schema_text(text).ok


def test_save_and_export_are_atomic_writes(schema_path: Path) -> None:
    session, text = SchemaSession.open(schema_path)
    edited = text.replace('"maxLength": 64', '"maxLength": 32')
    assert session.save(edited) == schema_path
    assert schema_path.read_text(encoding="utf-8") == edited
    assert not session.is_dirty(edited)
    view = session.compile(edited)
    target = session.export_gbnf(view)
    assert target == schema_path.with_suffix(".gbnf")
    assert target.read_text(encoding="utf-8") == view.gbnf


def test_gbnf_export_never_overwrites_a_gbnf_source(tmp_path: Path) -> None:
    session = SchemaSession(tmp_path / "g.gbnf")
    assert not session.is_schema
    assert session.gbnf_path() == tmp_path / "g.canonical.gbnf"


def test_next_profile_cycles_through_all() -> None:
    session = SchemaSession(None)
    seen = set()
    for _ in available_profiles():
        session.profile = session.next_profile()
        seen.add(session.profile)
    assert seen == set(available_profiles())


def test_every_panel_has_help() -> None:
    for name in ("editor", "diagnostics", "grammar", "check", "sample"):
        assert TOPICS[name].markdown.strip()
    assert topic("nope").title == "gramwright"


def test_errors_are_one_line() -> None:
    from gramwright.errors import SourceError

    assert one_line(SourceError("a.json", "no such file", "check the path")) == (
        "no such file (a.json) — check the path"
    )
    assert one_line(ValueError("first\nsecond")) == "ValueError: first"
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        rec = record("sample", exc)
    assert rec.line == "sample: RuntimeError: boom"
    assert "Traceback" in rec.detail


def test_shade_grows_with_clipped_mass() -> None:
    assert shade(None) == ""
    assert shade(0.0) == ""
    styles = [shade(m) for m in (0.05, 0.3, 0.7, 1.0)]
    assert all(styles) and len(set(styles)) == 4


def test_outcome_text_is_honest_about_truncation() -> None:
    outcome = SampleOutcome(
        '{"a":', "length", 40, {"tokens_per_s": 20.0, "ms_per_token": 50.0}, "m",
        validate_output('{"a":', {"type": "object"}, "length"),
    )  # fmt: skip
    text = outcome_text(outcome)
    assert isinstance(text, Text)
    assert "finish: length" in text.plain
    assert "truncated" in text.plain


def test_outcome_text_says_what_generation_changed() -> None:
    note = "the schema (compact rendering) was left out of the prompt: …"
    metrics = {"tokens_per_s": 20.0, "ms_per_token": 50.0, "closed_objects": 2, "prompt_note": note}
    plain = outcome_text(SampleOutcome("{}", "stop", 2, metrics, "m", None)).plain
    assert "objects closed while generating: 2" in plain and f"note: {note}" in plain


def test_outcome_text_places_each_grounded_value_in_the_prompt() -> None:
    import json

    from gramwright.schema.grounding import grounded_values

    schema = json.loads(
        (Path(__file__).resolve().parents[2] / "docs/examples/contact_grounded.json").read_text(
            encoding="utf-8"
        )
    )
    prompt = "Note: Maria Lopez, 34, from Seville."
    document = {"name": "Maria Lopez", "city": "Sevilla", "age": 34, "email": None}
    found = grounded_values(document, schema, prompt)
    outcome = SampleOutcome(json.dumps(document), "stop", 20, {}, "m", None, grounded=found)
    plain = outcome_text(outcome, prompt).plain
    assert 'grounded /name  "Maria Lopez"  at 1:7-1:17' in plain
    assert "grounded /age  34  at 1:20-1:21" in plain
    assert 'grounded /city  "Sevilla"  NOT in the source' in plain
