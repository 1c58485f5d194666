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
    # a cycle that consumes no input: refused naming the cycle's keywords (it used to hang)
    Case("ref-cycle", "cycle.json", b'{"$ref": "#"}', lint_finding=True),
    Case(
        "allof-cycle",
        "allof.json",
        b'{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},'
        b' "properties": {"x": {"$ref": "#/$defs/a"}}}',
        lint_finding=True,
    ),
    Case("gbnf-unclosed-group", "group.gbnf", b'root ::= a\na ::= "x" ( "y"\nb ::= "z"\n', context=True),
    Case("gbnf-unclosed-string", "string.gbnf", b'root ::= a\na ::= "x\nb ::= "y"\n', context=True),
    Case("gbnf-undefined-rule", "undefined.gbnf", b"root ::= item+\n"),
    Case("gbnf-binary", "binary.gbnf", PNG),
    # unrolled into 99,999 copies, checking took tens of seconds: refused as llama.cpp does
    Case("gbnf-huge-repetition", "repeat.gbnf", b'root ::= ([^"]{99999} "x")\n', context=True),
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


# -- the other front doors: outputs, metrics files, rules, option values ---------------------------

XRULES_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "x-rules": [
        {"id": "a-lt-b", "rule": "self.a < self.b", "message": "a must be below b", "severity": "error"}
    ],
}
LONG_CEL = "self.a < < self.b + (((" + " + self.a" * 20


@dataclass(frozen=True)
class Usage:
    name: str
    args: list[str]  # {dir} is the test's folder
    says: str  # what the one error line must contain
    files: tuple[tuple[str, bytes], ...] = ()


UNEXPECTED_HUNK = b"@@ -1 +1 @@\na.py\n<<<<<<< SEARCH\nzz\n=======\ny\n>>>>>>> REPLACE\n"

USAGE_CASES = [
    # found by bench/fuzz.py: the diff library's message ended in a newline (two lines)
    Usage(
        "patch-unexpected-hunk",
        ["apply", "{dir}/fix.patch", "--root", "{dir}", "--check"],
        "not a unified diff: Unexpected hunk found: @@ -1,0 +1,0 @@ (patch line 1)",
        (("fix.patch", UNEXPECTED_HUNK), ("a.py", b"x\n")),
    ),
    # a PNG is no model output: refused, never "repaired" into a JSON object
    Usage(
        "validate-binary",
        ["validate", "--schema", "{dir}/s.json", "{dir}/image.bin"],
        "binary",
        (("image.bin", PNG),),
    ),
    Usage(
        "validate-bad-utf8",
        ["validate", "--schema", "{dir}/s.json", "{dir}/o.txt"],
        "not valid UTF-8 at byte 7",
        (("o.txt", b'{"a":1}\xff'),),
    ),
    # a requests file is no metrics file: not an all-zero summary
    Usage(
        "report-requests",
        ["report", "{dir}/requests.jsonl"],
        "not a metrics row",
        (("requests.jsonl", b'{"id": "r1", "prompt": "x"}\n'),),
    ),
    Usage("report-binary", ["report", "{dir}/image.bin"], "binary", (("image.bin", PNG),)),
    # a pattern that is no regex: an error in compile, as lint calls it (meta/invalid-schema)
    Usage(
        "compile-invalid-pattern",
        ["compile", "{dir}/re.json"],
        "schema /properties/id/pattern: invalid ECMA-262 regex",
        (("re.json", b'{"type": "object", "properties": {"id": {"type": "string", "pattern": "(a"}}}'),),
    ),
    # option values: one line naming the command and the option, with a hint to --help
    Usage(
        "max-tokens-0",
        ["generate", "--schema", "{dir}/s.json", "--prompt", "x", "--max-tokens", "0"],
        "gramwright generate: --max-tokens: ",
    ),
    Usage(
        "lint-format-xml",
        ["lint", "{dir}/s.json", "--format", "xml"],
        "unknown --format 'xml' — use one of: human | json | sarif",
    ),
    Usage(
        "unknown-option", ["compile", "{dir}/s.json", "--nope"], "gramwright compile: no such option: --nope"
    ),
    Usage("missing-argument", ["check", "{dir}/s.json"], "gramwright check: missing argument DOCUMENT"),
    # an unknown engine is refused before the verdict is printed
    Usage(
        "check-engine-vllm",
        ["check", "{dir}/s.json", "{dir}/doc.json", "--engine", "vllm"],
        "unknown --engine 'vllm'",
    ),
    # the parser's error is cut to the expression and the column
    Usage(
        "cel-syntax",
        ["validate", "--schema", "{dir}/cel.json", "{dir}/doc.json"],
        "at column 10: extraneous input '<'",
        (
            (
                "cel.json",
                json.dumps(
                    {**XRULES_SCHEMA, "x-rules": [{"id": "r", "rule": LONG_CEL, "message": "m"}]}
                ).encode(),
            ),
        ),
    ),
]


@pytest.mark.parametrize("case", USAGE_CASES, ids=[c.name for c in USAGE_CASES])
def test_bad_values_and_files_are_one_line(tmp_path: Path, case: Usage) -> None:
    (tmp_path / "s.json").write_text(json.dumps(XRULES_SCHEMA), encoding="utf-8")
    (tmp_path / "doc.json").write_text('{"a": 1, "b": 2}', encoding="utf-8")
    for name, content in case.files:
        (tmp_path / name).write_bytes(content)
    before = _tree(tmp_path)
    result = runner.invoke(app, [a.replace("{dir}", str(tmp_path)) for a in case.args])
    assert _tree(tmp_path) == before
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "╭" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert case.says in lines[0]
    assert len(lines[0].replace(str(tmp_path), "")) < 200, lines[0]  # short: no parser dump
    assert not any(ch < " " for ch in result.output.replace("\n", "")), "control characters printed"
    assert "accepted" not in result.output


def test_compile_takes_an_invalid_pattern_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "re.json"
    path.write_text('{"type": "string", "pattern": "(a"}', encoding="utf-8")
    result = runner.invoke(app, ["compile", str(path), "--allow-invalid-pattern"])
    assert result.exit_code == 0 and "root ::=" in result.stdout
    assert "discarded: /pattern" in result.stderr


def test_a_failed_schema_rule_is_printed_once(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(XRULES_SCHEMA), encoding="utf-8")
    (tmp_path / "o.txt").write_text('{"a": 5, "b": 1}', encoding="utf-8")
    result = runner.invoke(app, ["validate", "--schema", str(tmp_path / "s.json"), str(tmp_path / "o.txt")])
    assert result.exit_code == 1
    assert result.stdout.count("a must be below b") == 1, result.stdout


def test_help_paragraphs_wrap_to_the_terminal_not_to_the_source() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    # one paragraph written over three source lines shows on one line of a wide terminal
    assert (
        "every JSON schema shares (string bodies, numbers, literals, keys) and the bundled" in result.stdout
    )


def test_ctrl_c_names_the_cancelled_command_and_exits_130(tmp_path: Path) -> None:
    # a fresh process, as a user runs it: `check` waits on stdin, then gets SIGINT
    import platform
    import signal
    import subprocess
    import sys
    import time

    if platform.machine() != "x86_64" or not Path("/proc/self/syscall").exists():
        pytest.skip("tells when the command waits from /proc/PID/syscall (x86-64 Linux)")
    exe = Path(sys.executable).with_name("gramwright")
    proc = subprocess.Popen(
        [str(exe), "check", "json", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Ctrl-C as a terminal delivers it: a runner that started the tests in the background
        # (bash without job control) left SIGINT ignored, and children inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # past the imports (seconds on a busy machine): wait until it blocks reading its input
    syscall = Path(f"/proc/{proc.pid}/syscall")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if syscall.read_text().startswith("0 0x0 "):  # read(0, ...) on x86-64 Linux
                break
        except OSError:
            pytest.skip("no /proc/PID/syscall here: cannot tell when the command waits")
        time.sleep(0.1)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip().splitlines()[-1] == "gramwright check: cancelled (Ctrl-C)"


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
