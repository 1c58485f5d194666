"""x-grounded in the exports: with a source, the Lark targets hold grounded strings to the
source's words with ``%regex {"substring_chunks": …}``, the GBNF targets with the source's
automaton written out as rules, and every target holds grounded numbers to the source's numbers;
the peers (the bench extra) load the texts and judge documents with them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import grammar_cmds
from gramwright.grammar.export import SUBSTRING_TARGETS, SourceGrounding, export_grammar
from gramwright.sources import load_source

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": ["string", "null"], "x-grounded": True, "maxLength": 20},
        "code": {"type": "string", "x-grounded": True, "minLength": 1},
        "kg": {"type": ["number", "null"], "x-grounded": True},
    },
    "required": ["city", "code", "kg"],
    "additionalProperties": False,
}
SOURCE = '包裹 RM123456789GB 寄往深圳，重 2.5 kg; note: "fragile" \\ top'
IN_SOURCE = [
    '{"city":"深圳","code":"RM123456789GB","kg":2.5}',
    '{"city":null,"code":"\\"fragile\\" \\\\ top","kg":null}',
    '{"city":"寄往深圳","code":"kg; note","kg":2.5}',
]
NOT_IN_SOURCE = [
    '{"city":"Berlin","code":"RM123456789GB","kg":2.5}',  # not in the text
    '{"city":"深圳","code":"123456789","kg":2.5}',  # cut out of a word
    '{"city":"深圳","code":"RM123456789GB","kg":3}',  # a number the text does not write
    '{"city":"深圳","code":"RM123456789GB","kg":123456789}',  # digits of a code
]


def export(target: str, source: str | None = SOURCE) -> tuple[str, list[str]]:
    loaded = load_source("s.json", text=json.dumps(SCHEMA))
    grammar, grounding = loaded.grammar, None
    if source is not None and target in SUBSTRING_TARGETS:
        built = loaded.for_export(source)
        grammar = built.grammar
        grounding = SourceGrounding(built.substrings, built.strings, built.numbers, built.bounds)
    elif source is not None:
        grammar = loaded.with_source(source).grammar
        grounding = SourceGrounding({}, ("/properties/city", "/properties/code"), ("/properties/kg",))
    pointers = [spec.pointer for spec in loaded.grounded]
    exported = export_grammar(grammar, target, grounded=pointers, source=grounding)
    return exported.text, exported.notes


def test_the_lark_targets_write_the_source_words_as_substring_chunks() -> None:
    text, notes = export("lark")
    assert text.count('%regex {"substring_chunks": ') == 2
    assert '"RM123456789GB"' in text and '"深"' in text and '"\\\\\\"", "fragile"' in text
    assert any("take only runs of the source's words" in n for n in notes)
    assert any("length bounds" in n and "/properties/city" in n and "not carry" in n for n in notes)
    assert "\x01" not in text  # every placeholder was replaced
    text, _ = export("llamacpp-lark")
    assert text.startswith("%llguidance {}") and text.count("substring_chunks") == 2


def test_a_gbnf_target_writes_the_source_automaton_out_as_rules() -> None:
    text, notes = export("gbnf")
    assert "substring" not in text.lower() and "\x01" not in text
    assert '"2.5"' in text
    assert any("written out as rules" in n for n in notes)
    body, notes = export("vllm-request")
    assert any("/properties/code" in n and "written out as rules" in n for n in json.loads(body)["notes"])


def test_without_a_source_the_note_says_how_to_build_one_in() -> None:
    _, notes = export("lark", source=None)
    assert len(notes) == 1 and "ordinary strings/numbers" in notes[0] and "--source FILE" in notes[0]


def test_compile_target_source_on_the_command_line(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    src = tmp_path / "note.txt"
    src.write_text(SOURCE, encoding="utf-8")
    app = typer.Typer()
    grammar_cmds.register(app)
    out = CliRunner().invoke(app, ["compile", str(schema), "--target", "lark", "--source", str(src)])
    assert out.exit_code == 0, out.output
    assert "substring_chunks" in out.stdout
    out = CliRunner().invoke(app, ["compile", str(schema), "--source", str(src)])
    assert out.exit_code == 2 and "--target" in out.output


@pytest.mark.parametrize(
    ("engine", "target"),
    [
        ("llguidance", "lark"),
        ("llguidance", "llamacpp-lark"),
        ("xgrammar", "lark"),
        ("llguidance", "gbnf"),
        ("xgrammar", "gbnf"),
    ],
)
def test_the_peers_load_the_grounded_export_and_hold_values_to_the_source(engine: str, target: str) -> None:
    if importlib.util.find_spec(engine) is None:
        pytest.skip(f"{engine} is not installed (the bench extra)")
    from gramwright.grammar.export import DIALECTS
    from gramwright.serving import load_in_engine

    text, _ = export(target)
    grammar = load_in_engine(engine, DIALECTS[target], text)
    for doc in IN_SOURCE:
        assert grammar.check(doc.encode()).accepted, (engine, doc)
    for doc in NOT_IN_SOURCE:
        assert not grammar.check(doc.encode()).accepted, (engine, doc)
    # without the source the same engine takes the invented value: the grounding is the source's
    plain = load_in_engine(engine, DIALECTS[target], export(target, source=None)[0])
    assert plain.check(NOT_IN_SOURCE[0].encode()).accepted
