"""check_document: the verdict as a dataclass, the final newline, and the diagnosis of documents
that a schema's grammar rejects for their whitespace, member order or number form only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.check_diagnosis import without_whitespace
from gramwright.checking import CheckResult, check_document
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.sources import CompiledSource, load_source

LLAMA_GRAMMARS = Path(__file__).resolve().parents[2] / "shared" / "data" / "llama-cpp-grammars"

SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["id", "tags"],
    "additionalProperties": False,
}
PRETTY = b'{\n  "id": 7,\n  "tags": [\n    "a",\n    "b"\n  ]\n}\n'


def _check(loaded: CompiledSource, data: bytes, *, exact: bool = False, flexible: bool = True) -> CheckResult:
    """The bytes form (generation's own form), whose rejections carry the diagnosis; the document
    form is tested in tests/cli/test_check_as_written.py."""

    def flex() -> CompiledSource:
        return load_source(loaded.name, whitespace="flexible")

    rec = Recognizer(compile_grammar(loaded.grammar))
    return check_document(loaded, rec, data, exact=exact, flexible=flex if flexible else None, form="bytes")


def _gbnf(tmp_path: Path, text: str) -> CompiledSource:
    path = tmp_path / "g.gbnf"
    path.write_text(text, encoding="utf-8")
    return load_source(str(path))


@pytest.fixture
def schema(tmp_path: Path) -> CompiledSource:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return load_source(str(path))


# ---- the final newline ---------------------------------------------------------------------------


def test_a_grammar_that_wants_the_final_newline_gets_it(tmp_path: Path) -> None:
    # every line ends in "\n": dropping the final newline (the old default) made these incomplete
    lines = _gbnf(tmp_path, 'root ::= line+\nline ::= [a-z]+ "\\n"\n')
    verdict = _check(lines, b"ab\ncd\n")
    assert verdict.accepted and not verdict.final_newline_ignored
    assert verdict.message == "accepted"
    crlf = _gbnf(tmp_path, 'root ::= line+\nline ::= [a-z]+ "\\r\\n"\n')
    assert _check(crlf, b"ab\r\ncd\r\n").accepted
    short = _check(lines, b"ab\ncd")
    assert short.reason == "incomplete" and short.offset == 5 and not short.final_newline_ignored


def test_a_final_newline_the_grammar_does_not_take_is_ignored_and_said(tmp_path: Path) -> None:
    word = _gbnf(tmp_path, "root ::= [a-z]+\n")
    for doc in (b"abc\n", b"abc\r\n"):
        verdict = _check(word, doc)
        assert verdict.accepted and verdict.final_newline_ignored
        assert "without the final newline" in verdict.message and "--exact" in verdict.message
        assert verdict.to_dict()["final_newline_ignored"] is True
    kept = _check(word, b"abc\n", exact=True)
    assert not kept.accepted and kept.offset == 3 and not kept.final_newline_ignored
    # only one newline is ignored
    assert not _check(word, b"abc\n\n").accepted


def test_a_rejection_before_the_newline_is_reported_on_the_bytes_as_they_are(tmp_path: Path) -> None:
    word = _gbnf(tmp_path, "root ::= [a-z]+\n")
    verdict = _check(word, b"ab1\n")
    assert verdict.reason == "rejected" and verdict.offset == 2 and not verdict.final_newline_ignored
    # rejected at the newline itself: the verdict on the rest is the useful one (incomplete here)
    pair = _gbnf(tmp_path, 'root ::= [a-z]+ ";" [a-z]+\n')
    stopped = _check(pair, b"ab;\n")
    assert stopped.reason == "incomplete" and stopped.offset == 3 and stopped.final_newline_ignored


@pytest.mark.data
@pytest.mark.skipif(not LLAMA_GRAMMARS.is_dir(), reason="../shared/data/llama-cpp-grammars is absent")
@pytest.mark.parametrize(
    ("name", "doc"),
    [
        ("list.gbnf", b"- milk\n- bread\n"),
        ("chess.gbnf", b"1. e4 e5\n2. Nf3 Nc6\n"),
        ("arithmetic.gbnf", b"1+2=x\n(x*3)=y\n"),
    ],
)
def test_llama_cpp_grammars_accept_their_documents_newline_and_all(name: str, doc: bytes) -> None:
    loaded = load_source(str(LLAMA_GRAMMARS / name))
    verdict = _check(loaded, doc)
    assert verdict.accepted and not verdict.final_newline_ignored, verdict.message


# ---- the diagnosis ------------------------------------------------------------------------------


def test_a_pretty_document_is_rejected_for_its_whitespace_not_its_order(schema: CompiledSource) -> None:
    verdict = _check(schema, PRETTY)
    assert not verdict.accepted and verdict.reason == "whitespace"
    assert verdict.offset == 1  # the compact grammar stops at the first newline
    assert "member" not in verdict.message
    assert "whitespace is the cause" in verdict.message
    assert "--whitespace flexible" in verdict.message and "accepts it as it is" in verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.flexible_accepts is True
    assert verdict.diagnosis.accepted_text == '{"id":7,"tags":["a","b"]}'
    payload = verdict.to_dict()
    assert payload["cause"] == "whitespace" and payload["flexible_accepts"] is True
    assert "reordered_text" not in payload
    # and the flexible grammar does accept it
    flexible = load_source(schema.name, whitespace="flexible")
    assert _check(flexible, PRETTY).accepted


def test_whitespace_beyond_the_flexible_bound_is_said_too(schema: CompiledSource) -> None:
    deep = b'{"id": 7,' + b"\n" + b" " * 200 + b'"tags": []}'
    verdict = _check(schema, deep)
    assert verdict.reason == "whitespace"
    assert verdict.diagnosis is not None and verdict.diagnosis.flexible_accepts is False
    assert "does not accept it as it is either" in verdict.message
    flexible = load_source(schema.name, whitespace="flexible")
    bounded = _check(flexible, deep)
    assert bounded.reason == "whitespace" and "bounded whitespace" in bounded.message
    assert _check(schema, deep, flexible=False).diagnosis is not None  # no flexible compile: still said


def test_member_order_is_named_only_when_reordering_makes_it_pass(schema: CompiledSource) -> None:
    swapped = _check(schema, b'{"tags":["a"],"id":7}')
    assert swapped.reason == "member_order"
    assert swapped.to_dict()["reordered_text"] == '{"id":7,"tags":["a"]}'
    assert "members in the schema's order" in swapped.message
    # pretty and swapped: both differences are named
    both = _check(schema, b'{\n "tags": ["a"],\n "id": 7\n}')
    assert both.reason == "member_order" and "without whitespace" in both.message
    # a wrong value: no reordering helps, no note
    wrong = _check(schema, b'{"tags":["a"],"id":"7"}')
    assert wrong.reason == "rejected" and "note" not in wrong.message and wrong.diagnosis is None
    wrong_pretty = _check(schema, b'{\n  "id": "7",\n  "tags": []\n}')
    assert wrong_pretty.reason == "rejected" and wrong_pretty.diagnosis is None


def test_a_number_written_otherwise_is_a_formatting_cause(schema: CompiledSource) -> None:
    verdict = _check(schema, b'{"id":7.0,"tags":[]}')
    assert verdict.reason == "formatting"
    assert verdict.diagnosis is not None and verdict.diagnosis.accepted_text == '{"id":7,"tags":[]}'
    assert "member" not in verdict.message


def test_gbnf_grammars_and_non_json_get_no_diagnosis(tmp_path: Path, schema: CompiledSource) -> None:
    json_gbnf = load_source("json")
    assert _check(json_gbnf, b'{"a":  1}').diagnosis is None
    assert _check(schema, b"{'id': 7}").diagnosis is None
    deep = b"[" * 10_000 + b"]" * 10_000
    assert _check(schema, deep).reason == "rejected"  # too deep for Python's json: no crash, no note


def test_to_dict_keeps_the_old_keys(schema: CompiledSource) -> None:
    accepted = _check(schema, b'{"id":7,"tags":[]}').to_dict()
    assert {"accepted", "reason", "offset", "message", "check_ms", "final_newline_ignored"} == set(accepted)
    rejected = _check(schema, b'{"id":7,"tags":[1]}').to_dict()
    old = {"accepted", "reason", "offset", "line", "column", "allowed", "rules", "schema_pointers", "message"}
    assert old <= set(rejected) and rejected["line"] == 1 and rejected["column"] == 17
    assert rejected["schema_pointers"] == ["/properties/tags", "/properties/tags/items"]
    assert json.loads(json.dumps(rejected)) == rejected


def test_without_whitespace_keeps_strings() -> None:
    assert without_whitespace(b'{ "a b" : [ 1 ,\n\t"\\" x" ] }') == b'{"a b":[1,"\\" x"]}'
