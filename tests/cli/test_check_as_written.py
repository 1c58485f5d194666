"""``check`` judges a JSON document as written (the document form, the default for schemas): any
member order, number spelling and whitespace, by the schema's grammar; the verdict says when it
rests on an approximated keyword, and the validator decides there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.api import check_document
from gramwright.cli.main import app
from gramwright.sources import load_source

runner = CliRunner()

BOUNDED = {
    "type": "object",
    "properties": {"n": {"type": "number", "minimum": 0}, "s": {"type": "string"}},
    "required": ["n"],
    "additionalProperties": False,
}


def _write(tmp_path: Path, name: str, value: object) -> Path:
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def _cli(*args: str) -> tuple[int, dict[str, object]]:
    result = runner.invoke(app, ["check", *args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("number", ["100.0", "0.0", "1e2", "1e-5", "1E+2", "2.50", "-0.0", "7"])
def test_any_spelling_of_a_bounded_number_is_accepted(tmp_path: Path, number: str) -> None:
    schema = _write(tmp_path, "s.json", BOUNDED)
    doc = _write(tmp_path, "d.json", f'{{"n":{number}}}')
    code, verdict = _cli(str(schema), str(doc))
    assert code == 0 and verdict["accepted"] is True, verdict["message"]
    assert verdict["form"] == "document" and verdict["approximated"] == []
    assert verdict["validator"] == {"name": "jsonschema", "valid": True, "errors": []}
    # generation's own form is unchanged: the bytes form still takes only the canonical text
    code, strict = _cli(str(schema), str(doc), "--form", "bytes")
    assert (code == 0) == (number in ("7", "2.50")), strict["message"]  # trailing zeros: same value


@pytest.mark.parametrize("number", ["-1", "-0.5", "-1e-5", "-1E2"])
def test_a_number_below_the_bound_is_rejected_in_every_spelling(tmp_path: Path, number: str) -> None:
    schema = _write(tmp_path, "s.json", BOUNDED)
    code, verdict = _cli(str(schema), str(_write(tmp_path, "d.json", f'{{"n":{number}}}')))
    assert code == 1 and verdict["accepted"] is False and verdict["reason"] == "rejected"
    assert verdict["validator"]["valid"] is False  # type: ignore[index]


def test_members_in_any_order_and_pretty_whitespace(tmp_path: Path) -> None:
    schema = _write(tmp_path, "s.json", BOUNDED)
    doc = _write(tmp_path, "d.json", '{\n  "s": "x",\n  "n": 1.0\n}\n')
    result = runner.invoke(app, ["check", str(schema), str(doc)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("accepted\n")
    assert '{"n":1,"s":"x"}' in result.stderr  # the form generation writes is shown
    assert runner.invoke(app, ["check", str(schema), str(doc), "--form", "bytes"]).exit_code == 1


def test_a_wrong_value_in_a_pretty_document_is_located_past_the_whitespace(tmp_path: Path) -> None:
    schema = _write(tmp_path, "s.json", BOUNDED)
    text = '{\n  "n": -3\n}\n'
    code, verdict = _cli(str(schema), str(_write(tmp_path, "d.json", text)))
    assert code == 1 and verdict["reason"] == "rejected"
    assert verdict["offset"] == text.index("-") and (verdict["line"], verdict["column"]) == (2, 8)
    assert verdict["schema_pointers"] == ["/properties/n"]
    assert "less than the minimum" in str(verdict["message"])


def test_no_member_order_helps_a_wrong_value(tmp_path: Path) -> None:
    schema = _write(tmp_path, "s.json", BOUNDED)
    code, verdict = _cli(str(schema), str(_write(tmp_path, "d.json", '{"s":"x","n":"1"}')))
    assert code == 1 and verdict["reason"] == "rejected"
    assert "no member order of this value is accepted" in str(verdict["message"])


def test_a_verdict_resting_on_an_approximation_says_so_and_the_validator_decides(tmp_path: Path) -> None:
    # multipleOf 4999 over an unbounded range is past the automaton's state limit: approximated
    path = _write(tmp_path, "s.json", {"type": "integer", "multipleOf": 4999, "minimum": 0})
    assert not load_source(str(path)).exact
    code, verdict = _cli(str(path), str(_write(tmp_path, "few.json", "5")))
    assert code == 1 and verdict["accepted"] is False and verdict["reason"] == "approximation"
    assert str(verdict["message"]).startswith("rejected by the validator: the grammar accepts it")
    assert [a["keyword"] for a in verdict["approximated"]] == ["multipleOf"]  # type: ignore[index]
    assert verdict["validator"]["valid"] is False  # type: ignore[index]
    code, verdict = _cli(str(path), str(_write(tmp_path, "ok.json", "9998.0")))
    assert code == 0 and verdict["accepted"] is True and verdict["reason"] == "accepted"
    assert "rests on approximated keywords (/multipleOf)" in str(verdict["message"])
    assert "validator (jsonschema): valid" in str(verdict["message"])
    human = runner.invoke(app, ["check", str(path), str(tmp_path / "ok.json")])
    assert human.stderr.startswith("accepted by the grammar; the verdict rests on approximated keywords")


def test_an_approximation_elsewhere_is_named_on_an_exact_rejection_too(tmp_path: Path) -> None:
    # the multipleOf over a large range is approximated; a wrong type is still the grammar's verdict
    schema = {"type": "object", "properties": {"k": {"type": "integer", "multipleOf": 7, "minimum": 0}}}
    path = _write(tmp_path, "s.json", schema)
    code, verdict = _cli(str(path), str(_write(tmp_path, "d.json", {"k": "x"})))
    assert code == 1 and verdict["reason"] == "rejected"


def test_the_api_defaults_to_the_document_form_and_gbnf_stays_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.json", BOUNDED)
    assert check_document(str(path), b'{"n":1e2}').accepted
    assert not check_document(str(path), b'{"n":1e2}', form="bytes").accepted
    gbnf = load_source("json")
    verdict = check_document(gbnf, b'{"a":  1}')
    assert verdict.form == "bytes" and "validator" not in verdict.to_dict()


def test_an_unknown_form_is_a_usage_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.json", BOUNDED)
    result = runner.invoke(app, ["check", str(path), "-", "--form", "value"], input="{}")
    assert result.exit_code == 2 and "unknown --form" in result.stderr
