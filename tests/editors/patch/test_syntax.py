"""A patched file must still parse wherever the original did (``editors/patch/syntax.py`` and its use in
``check_patch`` / ``apply_patch``): Python through ``ast``, JSON through ``json``, JavaScript,
TypeScript, Go and Rust through tree-sitter."""

from __future__ import annotations

from pathlib import Path

import pytest

from gramwright.editors import apply_patch, check_patch, parse_patch
from gramwright.editors.patch.syntax import language_of, new_syntax_error, syntax_error

CONFIG = 'NAME = "demo"\nPORT = 8000\nDEBUG = False\n'


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


@pytest.mark.parametrize(
    ("path", "good", "bad", "line"),
    [
        ("a.py", "def f():\n    return 1\n", "def f():\nreturn 1\n", 2),
        ("a.json", '{"a": [1, 2]}\n', '{"a": [1, 2}\n', 1),
        ("a.js", "function f() {\n  return 1;\n}\n", "function f() {\n  return 1;\n\n", 2),
        ("a.ts", "let x: number = 1;\nexport { x };\n", "let x: number = ;\nexport { x };\n", 1),
        ("a.tsx", "const a = <div>{x}</div>;\n", "const a = <div>{x</div>;\n", 1),
        ("main.go", "package main\n\nfunc main() {\n}\n", "package main\n\nfunc main() {\n", 3),
        ("lib.rs", "fn main() {\n    let x = 1;\n}\n", "fn main() {\n    let x = ;\n}\n", 2),
    ],
)
def test_each_language_finds_the_first_syntax_error_line(path: str, good: str, bad: str, line: int) -> None:
    assert language_of(path) is not None
    assert syntax_error(path, good) is None
    found = syntax_error(path, bad)
    assert found is not None and found.line == line, found
    assert new_syntax_error(path, good, bad) == found


def test_a_file_that_did_not_parse_before_is_not_blamed_on_the_patch() -> None:
    assert new_syntax_error("a.py", "def f(:\n", "def g(:\n") is None
    assert new_syntax_error("a.py", None, "def g(:\n") is not None  # a created file is checked as written
    assert new_syntax_error("notes.txt", "x", "(((") is None  # not a language this module checks
    assert language_of("notes.txt") is None


def test_python_warnings_never_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    assert syntax_error("a.py", 'x = "\\d"\n') is None  # an invalid escape: a SyntaxWarning, not an error
    assert capfd.readouterr().err == ""


def _project(tmp_path: Path) -> Path:
    (tmp_path / "config.py").write_text(CONFIG, encoding="utf-8")
    return tmp_path


def test_a_patch_that_breaks_python_is_refused_with_the_line(tmp_path: Path) -> None:
    """The reported case: two lines replaced by a `def` with no body; the old text matched exactly."""
    project = _project(tmp_path)
    patch = parse_patch(sr("config.py", "PORT = 8000\nDEBUG = False\n", "def total(items):\n"))
    report = check_patch(patch, project)
    assert [e.status for e in report.edits] == ["exact"]
    assert not report.ok and report.files == ()
    (problem,) = report.problems
    assert problem.reason == "syntax" and problem.line == 2 and problem.path == "config.py"
    assert "no longer parse as Python: line 2" in problem.message
    assert report.as_dict()["problems"][0]["line"] == 2
    result = apply_patch(patch, project)
    assert not result.applied and (project / "config.py").read_text(encoding="utf-8") == CONFIG


def test_allow_broken_syntax_writes_it_and_says_so(tmp_path: Path) -> None:
    project = _project(tmp_path)
    patch = parse_patch(sr("config.py", "PORT = 8000\nDEBUG = False\n", "def total(items):\n"))
    result = apply_patch(patch, project, allow_broken_syntax=True)
    assert result.applied and result.report.problems == ()
    assert any("--allow-broken-syntax" in note and "line 2" in note for note in result.report.notes)
    assert (project / "config.py").read_text(encoding="utf-8") == 'NAME = "demo"\ndef total(items):\n'


def test_a_diff_that_drops_a_closing_brace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("function f() {\n  return 1;\n}\n", encoding="utf-8")
    diff = "--- a/app.js\n+++ b/app.js\n@@ -1,3 +1,2 @@\n function f() {\n   return 1;\n-}\n"
    report = check_patch(parse_patch(diff), tmp_path)
    assert not report.ok and report.problems[0].reason == "syntax"
    assert "JavaScript" in report.problems[0].message


def test_a_new_python_file_must_parse_and_a_good_edit_still_applies(tmp_path: Path) -> None:
    project = _project(tmp_path)
    created = check_patch(parse_patch(sr("new.py", "", "def f(:\n")), project)
    assert not created.ok and created.problems[0].reason == "syntax"
    result = apply_patch(parse_patch(sr("config.py", "PORT = 8000\n", "PORT = 9000\n")), project)
    assert result.applied and "PORT = 9000" in (project / "config.py").read_text(encoding="utf-8")
