"""`gramwright compile` and `check` on GBNF sources: stdout is data, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
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
    """Generation compiles through ``load_source(close_objects=True)`` (its default; see
    tests/test_closed_objects.py): an object without ``additionalProperties`` then takes no
    undeclared member."""
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
    schema = _schema_file(tmp_path)
    swapped = tmp_path / "swapped.json"
    swapped.write_text('{"b":"x","a":1}')
    result = runner.invoke(app, ["check", str(schema), str(swapped), "--format", "json", "--form", "bytes"])
    assert result.exit_code == 1
    verdict = json.loads(result.stdout)
    assert verdict["accepted"] is False
    assert verdict["reason"] == "member_order"
    assert verdict["reordered_text"] == '{"a":1,"b":"x"}'

    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"b":"x","a":"1"}')  # no order helps: a is not an integer
    verdict = json.loads(
        runner.invoke(app, ["check", str(schema), str(wrong), "--format", "json", "--form", "bytes"]).stdout
    )
    assert verdict["reason"] == "rejected"
    assert "reordered_text" not in verdict


# ---- compile -o: usage errors, never a traceback, the usual file mode -------------------------


def _one_error_line(result: Result) -> str:
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


def test_compile_output_into_a_missing_folder_or_onto_a_folder_is_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir" / "out.gbnf"
    result = runner.invoke(app, ["compile", "json", "-o", str(missing)])
    assert result.exit_code == 2
    assert "does not exist" in _one_error_line(result)
    result = runner.invoke(app, ["compile", "json", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "is a directory" in _one_error_line(result)
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep")
    result = runner.invoke(app, ["--debug", "compile", "json", "-o", str(a_file / "out.gbnf")])
    assert result.exit_code == 2 and "is not a directory" in _one_error_line(result)
    assert a_file.read_text() == "keep" and sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_compile_output_onto_its_own_input_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "g.gbnf"
    src.write_text('root   ::=   "a"\n')
    for target in (src, tmp_path / "." / "g.gbnf"):
        result = runner.invoke(app, ["compile", str(src), "-o", str(target)])
        assert result.exit_code == 2 and "is the input file" in _one_error_line(result)
    assert src.read_text() == 'root   ::=   "a"\n'


def test_compile_output_gets_the_umask_mode(tmp_path: Path) -> None:
    import os
    import stat

    old = os.umask(0o022)
    try:
        out = tmp_path / "out.gbnf"
        assert runner.invoke(app, ["compile", "json", "-o", str(out)]).exit_code == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
    finally:
        os.umask(old)


# ---- error printing: one line, then the caret context ------------------------------------------


def test_a_gbnf_syntax_error_is_one_line_then_the_caret(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gbnf"
    bad.write_text('root ::= a\na ::= "x" ( "y"\nb ::= "z"\n')
    result = runner.invoke(app, ["compile", str(bad)])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    first, *context = result.stderr.splitlines()
    assert first.startswith("error: unexpected ':'") and "the group began at line 2:11" in first
    assert first.endswith(f"({bad}:3:3)")
    assert context == ['a ::= "x" ( "y"', "          ^ group began here", 'b ::= "z"', "  ^"]


def test_hints_stay_on_the_error_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compile", "json", "--whitespace", "wide"])
    assert result.exit_code == 2
    assert _one_error_line(result) == "error: unknown --whitespace 'wide' — use compact or flexible"
    result = runner.invoke(app, ["check", str(tmp_path / "nope.json"), "-"], input="1")
    assert result.exit_code == 2 and " — " in _one_error_line(result)


# ---- check: --whitespace, --format, the final newline -----------------------------------------


def _schema_file(tmp_path: Path) -> Path:
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
    return schema


def test_check_pretty_documents_with_whitespace_flexible(tmp_path: Path) -> None:
    schema = _schema_file(tmp_path)
    pretty = tmp_path / "pretty.json"
    pretty.write_text('{\n  "a": 1,\n  "b": "x"\n}\n')
    result = runner.invoke(app, ["check", str(schema), str(pretty), "--form", "bytes"])
    assert result.exit_code == 1
    assert "whitespace is the cause" in result.stderr and "--whitespace flexible" in result.stderr
    assert "member" not in result.stderr  # the members are in order: order is not blamed
    verdict = json.loads(
        runner.invoke(app, ["check", str(schema), str(pretty), "-f", "json", "--form", "bytes"]).stdout
    )
    assert verdict["reason"] == "whitespace" and verdict["flexible_accepts"] is True
    assert "reordered_text" not in verdict
    flexible = runner.invoke(app, ["check", str(schema), str(pretty), "--whitespace", "flexible"])
    assert flexible.exit_code == 0, flexible.stderr
    assert runner.invoke(app, ["check", str(schema), str(pretty), "--whitespace", "wide"]).exit_code == 2


def test_check_format_takes_only_human_or_json(tmp_path: Path) -> None:
    doc = tmp_path / "d.json"
    doc.write_text("1")
    result = runner.invoke(app, ["check", "json", str(doc), "--format", "sarif"])
    assert result.exit_code == 2 and "unknown --format 'sarif'" in _one_error_line(result)


def test_check_keeps_a_final_newline_the_grammar_wants(tmp_path: Path) -> None:
    grammar = tmp_path / "lines.gbnf"
    grammar.write_text('root ::= line+\nline ::= [a-z]+ "\\n"\n')
    doc = tmp_path / "doc.txt"
    doc.write_text("ab\ncd\n")
    result = runner.invoke(app, ["check", str(grammar), str(doc)])
    assert result.exit_code == 0 and result.stderr == "accepted\n"
    word = tmp_path / "word.gbnf"
    word.write_text("root ::= [a-z]+\n")
    one = tmp_path / "one.txt"
    one.write_text("ab\n")
    result = runner.invoke(app, ["check", str(word), str(one), "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["final_newline_ignored"] is True
    assert runner.invoke(app, ["check", str(word), str(one), "--exact"]).exit_code == 1
