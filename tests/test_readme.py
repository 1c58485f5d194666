"""The README shows what the tool does: the lint example's numbers are a real run's, and the
Python snippet prints what the README says it prints (as docs/api.md's examples are run in
tests/test_api.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GRAMMAR_SIZE = r"grammar (\d+) rules, (\d+) B GBNF"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_lint_example_is_a_real_run(monkeypatch: pytest.MonkeyPatch) -> None:
    found = re.search(r"\$ gramwright lint (\S+)\n(.*?)```", _readme(), flags=re.S)
    assert found is not None
    path, shown = found.group(1), found.group(2)
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, ["lint", path])
    printed = result.stdout.splitlines()
    size_shown, size_real = re.search(GRAMMAR_SIZE, shown), re.search(GRAMMAR_SIZE, result.stdout)
    assert size_shown is not None and size_real is not None
    assert size_shown.groups() == size_real.groups()
    assert shown.rstrip("\n").splitlines()[-1] == printed[-1]  # the summary line
    # every finding and hint shown is one the run printed (the cost line's milliseconds vary)
    findings = [
        line for line in shown.splitlines() if line.startswith(("  info", "  warn", "  error", "    "))
    ]
    assert findings and all(line in printed for line in findings)
    assert printed[:2] == shown.splitlines()[:2]  # the header and the first finding


@pytest.mark.model
def test_the_python_snippet_prints_what_the_readme_says() -> None:
    code = re.findall(r"```python\n(.*?)```", _readme(), flags=re.S)[0]
    said = re.search(r"^# prints: (.*)$", code, flags=re.M)
    assert said is not None, "the snippet says what it prints in a '# prints:' comment"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == said.group(1).strip()
    assert said.group(1).split()[0] == "True"  # the sample document is one the schema accepts
