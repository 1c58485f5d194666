"""What every command shares: one `error:` line (message — hint), then the caret context."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import common
from gramwright.cli.main import app
from gramwright.errors import GramwrightError
from gramwright.grammar.errors import GrammarSyntaxError
from gramwright.grammar.gbnf import parse_gbnf

runner = CliRunner()


def _run(exc: BaseException, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(typer.Exit) as info, common.user_errors():
        raise exc
    return info.value.exit_code, capsys.readouterr().err


def test_user_errors_print_message_where_and_hint_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(GramwrightError("bad thing", where="f.json", hint="do this"), capsys)
    assert code == 2 and err == "error: bad thing (f.json) — do this\n"


def test_os_errors_name_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(PermissionError(13, "Permission denied", "/x/out.gbnf"), capsys)
    assert code == 2 and err == "error: /x/out.gbnf: Permission denied\n"
    code, err = _run(ValueError("odd"), capsys)
    assert err == "error: ValueError: odd\n"


def test_a_syntax_error_shows_its_context_after_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(GrammarSyntaxError) as info:
        parse_gbnf('root ::= "a" [b\n', source="g.gbnf")
    _, err = _run(info.value, capsys)
    first, *rest = err.splitlines()
    assert first.startswith("error: character class is not closed on its line")
    assert rest == ['root ::= "a" [b', "             ^ ^"]


def test_fail_puts_the_hint_on_the_same_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit):
        common.fail("x: no such file", "check the path")
    assert capsys.readouterr().err == "error: x: no such file — check the path\n"


def test_lint_help_examples_work_offline() -> None:
    # the example used a hub id, which fails without network (gramwright never downloads)
    result = runner.invoke(app, ["lint", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "HuggingFaceTB/" not in result.stdout
    assert "--tokenizer ./my-model" in result.stdout and "--max-tokens 512" in result.stdout
