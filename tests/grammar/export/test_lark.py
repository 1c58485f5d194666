"""The lark and llamacpp-lark targets: names, spellings, the dialect detectors' view of the text."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gramwright.grammar.analysis import prepare
from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.grammar.export.lark import emit_lark
from gramwright.grammar.export.llamacpp_lark import LLGUIDANCE_HEADER, emit_llamacpp_lark
from gramwright.grammar.export.text import lark_class, lark_literal, lark_names
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.grammar.ir import CharClass, Grammar, Literal, char_class
from gramwright.serving.dialect import detect_dialects, llguidance_dialect, vllm_dialect


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_lark_has_start_and_no_gbnf_marker(name: str) -> None:
    text = emit_lark(prepare(load_bundled(name))).text
    assert text.startswith("start: ")
    assert "::=" not in text
    assert vllm_dialect(text) == "lark" and llguidance_dialect(text) == "lark"


def test_llamacpp_lark_has_the_header() -> None:
    text = emit_llamacpp_lark(prepare(load_bundled("json"))).text
    assert text.startswith(LLGUIDANCE_HEADER + "\n")
    assert detect_dialects(text)["llama.cpp"] == "lark"


def test_names_fold_to_lark_identifiers() -> None:
    g = Grammar(
        {
            "Root": Literal("x"),
            "foo-bar": Literal("y"),
            "foo_bar": Literal("z"),
            "9a": Literal("w"),
            "start": Literal("v"),
        },
        "Root",
    )
    names = lark_names(g)
    assert names["Root"] == "start"
    assert len(set(names.values())) == len(names)
    assert all(n[0].isalpha() and n == n.lower() and "-" not in n for n in names.values())


def _escapes(literal: str) -> list[str]:
    """The escape letters of a written literal, read left to right as a reader does (``\\\\x`` is
    an escaped backslash, then ``x``: no ``\\x`` escape)."""
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\":
            out.append(body[i + 1])
            i += 2
        else:
            i += 1
    return out


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=8))
@example("\\x")  # an escaped backslash before an ``x`` (found by hypothesis): no hex escape
def test_literals_never_spell_the_gbnf_marker(text: str) -> None:
    written = lark_literal(text + "::=")
    assert "::=" not in written
    assert not {"x", "U"} & set(_escapes(written))  # escapes neither reader shares


def test_classes_are_written_as_positive_ranges() -> None:
    assert lark_class(char_class([(ord('"'), ord('"')), (ord("\\"), ord("\\"))], negated=True)).startswith(
        "/[\\u0000-"
    )
    assert lark_class(CharClass(((ord("a"), ord("c")),))) == "/[a-c]/"
    # surrogate range ends are moved off (Rust's regex refuses them)
    assert "D800" not in lark_class(CharClass(((0xD000, 0xD900),)))


def test_terminals_and_rules_follow_the_view() -> None:
    export = emit_lark(prepare(parse_gbnf('root ::= "a" "b" | "ab" "c"')))
    assert export.split_literals == ["ab"]
    assert '"a" "b" "c"' in export.text
    json_export = emit_lark(prepare(load_bundled("json")))
    assert "STRING" in json_export.terminals or "string" in json_export.terminals
    assert "\nSTRING: " in json_export.text


def test_vllm_detector_reads_comments_out() -> None:
    assert vllm_dialect('# a ::= b\nstart: "x"\n') == "lark"
    assert vllm_dialect('root ::= "x" # c\n') == "gbnf"
