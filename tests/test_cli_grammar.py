"""`gramwright compile` and `check` on GBNF sources: stdout is data, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.grammar.gbnf import parse_gbnf

runner = CliRunner()


def test_compile_bundled_and_file_give_canonical_gbnf(tmp_path: Path) -> None:
    src = tmp_path / "g.gbnf"
    src.write_text('root   ::= "a"   item+ # comment\nitem ::= [0-9]\n')
    result = runner.invoke(app, ["compile", str(src)])
    assert result.exit_code == 0, result.output
    assert result.stdout == 'root ::= "a" item+\nitem ::= [0-9]\n'
    again = tmp_path / "again.gbnf"
    again.write_text(result.stdout)
    assert runner.invoke(app, ["compile", str(again)]).stdout == result.stdout
    bundled = runner.invoke(app, ["compile", "json"])
    assert bundled.exit_code == 0
    parse_gbnf(bundled.stdout)


def test_compile_json_format_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["compile", "arithmetic", "--format", "json", "-o", str(out)])
    assert result.exit_code == 0
    payload = json.loads(out.read_text())
    assert set(payload) == {"gbnf", "rules", "compile_ms", "report"}
    assert payload["rules"] >= 3 and payload["report"] == []


def test_compile_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gbnf"
    bad.write_text('root ::= "a" (\n')
    result = runner.invoke(app, ["compile", str(bad)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.stderr.startswith("error: ") and "bad.gbnf:" in result.stderr
    left = tmp_path / "left.gbnf"
    left.write_text('root ::= root "a" | "b"\n')
    result = runner.invoke(app, ["compile", str(left)])
    assert result.exit_code == 2 and "left recursion: root -> root" in result.stderr
    assert runner.invoke(app, ["compile", str(tmp_path / "missing.gbnf")]).exit_code == 2


def test_check_accepts_rejects_and_explains(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2.5, "x"]}\n')
    assert runner.invoke(app, ["check", "json", str(good)]).exit_code == 0
    assert runner.invoke(app, ["check", "json", str(good), "--exact"]).exit_code == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"a":\n [1, 2.5x]}')
    result = runner.invoke(app, ["check", "json", str(bad)])
    assert result.exit_code == 1
    assert "line 2:9" in result.stderr and "byte 0x78" in result.stderr and "']'" in result.stderr
    short = runner.invoke(app, ["check", "json", "-"], input='{"a": [1')
    assert short.exit_code == 1 and "incomplete: more input expected" in short.stderr
    verdict = json.loads(runner.invoke(app, ["check", "json", str(bad), "--format", "json"]).stdout)
    assert verdict["accepted"] is False and verdict["line"] == 2 and verdict["offset"] == 14


def test_check_with_missing_grammar_is_usage_error(tmp_path: Path) -> None:
    doc = tmp_path / "d.json"
    doc.write_text("1")
    result = runner.invoke(app, ["check", str(tmp_path / "nope.gbnf"), str(doc)])
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_close_objects_keeps_the_model_to_declared_members(tmp_path: Path) -> None:
    """``generate --close-objects`` compiles through ``load_source(close_objects=True)``: an
    object without ``additionalProperties`` then takes no undeclared member."""
    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.sources import load_source

    src = tmp_path / "s.json"
    src.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}))
    doc = b'{"a":1,"b":2}'
    open_rec = Recognizer(compile_grammar(load_source(str(src)).grammar))
    closed_rec = Recognizer(compile_grammar(load_source(str(src), close_objects=True).grammar))
    assert open_rec.try_feed(doc) and open_rec.is_accepting()
    assert not closed_rec.try_feed(doc)
    closed_rec = Recognizer(compile_grammar(load_source(str(src), close_objects=True).grammar))
    assert closed_rec.try_feed(b'{"a":1}') and closed_rec.is_accepting()


def test_check_says_when_only_the_member_order_differs(tmp_path: Path) -> None:
    # The compiled grammar writes object members in schema order; a document with the same
    # value in another order is rejected, and check names the order it would accept.
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            }
        )
    )
    swapped = tmp_path / "swapped.json"
    swapped.write_text('{"b":"x","a":1}')
    result = runner.invoke(app, ["check", str(schema), str(swapped), "--format", "json"])
    assert result.exit_code == 1
    verdict = json.loads(result.stdout)
    assert verdict["accepted"] is False
    assert verdict["reason"] == "member_order"
    assert verdict["reordered_text"] == '{"a":1,"b":"x"}'

    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"b":"x","a":"1"}')  # no order helps: a is not an integer
    verdict = json.loads(runner.invoke(app, ["check", str(schema), str(wrong), "--format", "json"]).stdout)
    assert verdict["reason"] == "rejected"
    assert "reordered_text" not in verdict
