"""The bad-input table: every command that takes a grammar source, fed every kind of bad input.

Each run must end with exit 2 (usage or input error: exactly one ``error:`` line on stderr, naming
the input; a GBNF syntax error may add its caret lines after it), or 0/1 where the input is fine
(a BOM) or the command reports findings; never a traceback, and no file in the folder is created
or modified. ``generate`` must refuse a bad source before it loads any model: it is given a model
path that does not exist, so an error about the model means the source was accepted first.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.errors import GramwrightError
from gramwright.tui.session import SchemaSession

runner = CliRunner()

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
DEPTH = 10_000


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    content: bytes | None  # None: the file does not exist
    ok: bool = False  # a fine input: the commands succeed (or report findings)
    context: bool = False  # a GBNF syntax error: caret lines may follow the error line
    lint_finding: bool = False  # lint may report it as a finding (exit 1) instead of an error


CASES = [
    Case("missing", "missing.json", None),
    Case("empty", "empty.json", b""),
    Case("invalid-json", "invalid.json", b'{"type": "object",}'),
    Case("non-utf8", "latin1.json", '{"description": "café"}'.encode("latin-1")),
    Case("binary", "image.json", PNG),
    Case("bom", "bom.json", b'\xef\xbb\xbf{"type": "integer", "maximum": 9}', ok=True),
    # past the depth limit: one line naming the file, or (lint) the nesting-depth finding
    Case(
        "deep", "deep.json", b'{"type": "array", "items": ' * DEPTH + b"{}" + b"}" * DEPTH, lint_finding=True
    ),
    Case("enum-100k", "enum.json", json.dumps({"enum": list(range(100_000))}).encode(), ok=True),
    # never fetched: an error for the compiler, a finding (ref/external, compile/error) for lint
    Case(
        "remote-ref", "remote.json", b'{"$ref": "https://example.com/schemas/person.json"}', lint_finding=True
    ),
    Case("gbnf-unclosed-group", "group.gbnf", b'root ::= a\na ::= "x" ( "y"\nb ::= "z"\n', context=True),
    Case("gbnf-unclosed-string", "string.gbnf", b'root ::= a\na ::= "x\nb ::= "y"\n', context=True),
    Case("gbnf-undefined-rule", "undefined.gbnf", b"root ::= item+\n"),
    Case("gbnf-binary", "binary.gbnf", PNG),
]


def _tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _write(folder: Path, case: Case) -> Path:
    path = folder / case.file
    if case.content is not None:
        path.write_bytes(case.content)
    (folder / "doc.json").write_text("7", encoding="utf-8")
    return path


def _commands(path: Path, doc: Path, no_model: Path) -> dict[str, list[str]]:
    source_option = "--grammar" if path.suffix == ".gbnf" else "--schema"
    return {
        "compile": ["compile", str(path)],
        "check": ["check", str(path), str(doc)],
        "lint": ["lint", str(path)],
        "generate": ["generate", source_option, str(path), "--prompt", "x", "--model", str(no_model)],
    }


def _assert_one_error(result: Result, case: Case, names: str) -> str:
    stderr = result.stderr
    assert "Traceback" not in stderr and "Traceback" not in result.stdout, stderr
    lines = stderr.splitlines()
    assert lines and lines[0].startswith("error: "), stderr
    assert sum(line.startswith("error:") for line in lines) == 1, stderr
    if not case.context:
        assert len(lines) == 1, stderr
    assert names in lines[0], f"the error line does not name {names}: {lines[0]}"
    return lines[0]


@pytest.mark.parametrize("command", ["compile", "check", "lint", "generate"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_command_refuses_bad_input_in_one_line(tmp_path: Path, case: Case, command: str) -> None:
    path = _write(tmp_path, case)
    no_model = tmp_path / "no-such-model"
    args = _commands(path, tmp_path / "doc.json", no_model)[command]
    if command == "lint" and path.suffix == ".gbnf":
        pytest.skip("lint takes JSON Schemas only")
    before = _tree(tmp_path)
    result = runner.invoke(app, args)
    assert _tree(tmp_path) == before, "a file was created or modified"
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}"
    )
    if command == "generate":
        # a bad source is refused before the model; a good one gets as far as the missing model
        assert result.exit_code == 2, result.output
        line = _assert_one_error(result, case, str(no_model) if case.ok else case.file)
        if not case.ok:
            assert str(no_model) not in line, f"generate looked at the model before the source: {line}"
        return
    if command == "lint" and case.lint_finding and result.exit_code == 1:
        assert "error:" not in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert case.file in result.stdout
        return
    if case.ok:
        assert result.exit_code in (0, 1), result.output
        assert "error:" not in result.stderr and "Traceback" not in result.stderr, result.stderr
        if command != "lint":
            assert result.exit_code == 0, result.stderr
        return
    assert result.exit_code == 2, result.output
    _assert_one_error(result, case, case.file)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_tui_loader_refuses_bad_input_with_a_one_line_error(tmp_path: Path, case: Case) -> None:
    path = _write(tmp_path, case)
    before = _tree(tmp_path)
    try:
        session, text = SchemaSession.open(path)
        session.compile(text)
    except GramwrightError as exc:
        assert not case.ok, exc.one_line()
        assert "\n" not in exc.one_line() and case.file in exc.one_line()
    else:
        # a missing file opens as a new schema (it is created on the first save)
        assert case.ok or case.content is None, f"{case.name} was accepted"
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_rejects_bad_documents_without_a_traceback(tmp_path: Path, case: Case) -> None:
    path = _write(tmp_path, case)
    before = _tree(tmp_path)
    result = runner.invoke(app, ["check", "json", str(path)])
    assert _tree(tmp_path) == before
    if case.content is None:
        assert result.exit_code == 2
        _assert_one_error(result, case, case.file)
        return
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.stderr and "error:" not in result.stderr, result.stderr
    if case.name in ("empty", "invalid-json", "non-utf8", "binary", "bom"):
        assert result.exit_code == 1 and result.stderr.startswith(("rejected", "incomplete"))


def _unwritable_targets(tmp_path: Path) -> list[Path]:
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep", encoding="utf-8")
    targets = [tmp_path / "no-such-dir" / "out.gbnf", tmp_path, a_file / "out.gbnf"]
    if os.geteuid() != 0:  # root writes through permissions: a read-only folder stops only others
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        targets.append(locked / "out.gbnf")
    if Path("/proc/self").is_dir():  # procfs takes no new files, not even root's
        targets.append(Path("/proc/gramwright-test-out.gbnf"))
    return targets


def test_compile_to_an_unwritable_output_is_one_line_and_touches_nothing(tmp_path: Path) -> None:
    source = tmp_path / "g.gbnf"
    source.write_text('root ::= "a"\n', encoding="utf-8")
    for target in [*_unwritable_targets(tmp_path), source]:
        before = _tree(tmp_path)
        result = runner.invoke(app, ["compile", str(source), "-o", str(target)])
        assert result.exit_code == 2, (target, result.output)
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
        _assert_one_error(result, Case("out", str(target), None), str(target))
        assert _tree(tmp_path) == before, target


# --- patches: a patch that matches but breaks the file, line endings, a truncated edit ----------

CONFIG = b'NAME = "demo"\nPORT = 8000\nDEBUG = False\n'
BREAKS_CONFIG = (
    "config.py\n<<<<<<< SEARCH\nPORT = 8000\nDEBUG = False\n=======\ndef total(items):\n>>>>>>> REPLACE\n"
)


def test_apply_refuses_a_patch_that_leaves_python_unparseable(tmp_path: Path) -> None:
    """The old lines match exactly; the new text is a `def` with no body: refused, with the file
    and the line of the first syntax error, nothing written; --allow-broken-syntax writes it."""
    (tmp_path / "config.py").write_bytes(CONFIG)
    (tmp_path / "fix.txt").write_text(BREAKS_CONFIG, encoding="utf-8")
    before = _tree(tmp_path)
    result = runner.invoke(app, ["apply", str(tmp_path / "fix.txt"), "--root", str(tmp_path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    problem = [line for line in result.stdout.splitlines() if line.startswith("problem:")]
    assert len(problem) == 1 and "config.py" in problem[0] and "Python: line 2" in problem[0]
    assert _tree(tmp_path) == before
    checked = runner.invoke(
        app, ["apply", str(tmp_path / "fix.txt"), "--root", str(tmp_path), "--check", "--format", "json"]
    )
    data = json.loads(checked.stdout)
    assert checked.exit_code == 1 and data["problems"][0]["reason"] == "syntax"
    assert data["problems"][0]["line"] == 2 and data["edits"][0]["status"] == "exact"
    forced = runner.invoke(
        app, ["apply", str(tmp_path / "fix.txt"), "--root", str(tmp_path), "--allow-broken-syntax"]
    )
    assert forced.exit_code == 0 and "--allow-broken-syntax" in forced.stdout
    assert (tmp_path / "config.py").read_bytes() == b'NAME = "demo"\ndef total(items):\n'


def test_an_lf_patch_on_a_crlf_file_applies_exactly_and_keeps_crlf(tmp_path: Path) -> None:
    """What models write (LF) against a CRLF file: exact without --fuzzy, the file's endings kept,
    and the report says it normalised them."""
    (tmp_path / "config.py").write_bytes(CONFIG.replace(b"\n", b"\r\n"))
    patch = "config.py\n<<<<<<< SEARCH\nPORT = 8000\n=======\nPORT = 9000\n>>>>>>> REPLACE\n"
    (tmp_path / "fix.txt").write_text(patch, encoding="utf-8")
    result = runner.invoke(app, ["apply", str(tmp_path / "fix.txt"), "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "exact (line endings normalised" in result.stdout
    assert (tmp_path / "config.py").read_bytes() == b'NAME = "demo"\r\nPORT = 9000\r\nDEBUG = False\r\n'


def test_a_truncated_edit_is_never_called_applicable(tmp_path: Path) -> None:
    """`edit --check --format json` on an output cut at `length` whose blocks so far would apply:
    `applicable` is false, as `--apply` refuses to write it."""
    from gramwright.editors import check_patch, parse_patch
    from gramwright.editors.generate.edit import EditResult
    from gramwright.editors.patch.model import EditFormat
    from gramwright.generation import Generation

    (tmp_path / "config.py").write_bytes(CONFIG)
    text = "config.py\n<<<<<<< SEARCH\nPORT = 8000\n=======\nPORT = 9000\n>>>>>>> REPLACE\n"
    patch = parse_patch(text, "search-replace")
    report = check_patch(patch, tmp_path)
    assert report.ok
    for finish, applicable in (("length", False), ("stop", True)):
        generation = Generation(text=text, finish_reason=finish, tokens=64, metrics={}, model="m")
        result = EditResult(
            EditFormat.SEARCH_REPLACE,
            True,
            str(tmp_path),
            ("config.py",),
            generation,
            text,
            patch,
            None,
            report,
        )
        assert result.applicable is applicable and result.as_dict()["applicable"] is applicable
