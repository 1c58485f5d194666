"""Differential test against the real ``git apply`` (the CI share; bench/apply.py runs ≥ 1,000).

hypothesis generates trees (LF, CRLF and mixed files, tabs, blank and repeated lines, with and
without a final newline, non-ASCII, a lone CR inside a line), edits, creations and deletions;
``git diff --no-index`` writes the patch; both tools apply it to the same target tree (sometimes
mutated so that the patch should not apply). They must end with identical trees (bytes and mode
bits) or both refuse — or differ in a way docs/patches.md documents (``Outcome.documented``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.patch_cases import _ENV, Case, generate, run_case
from gramwright.editors import apply_patch, parse_patch

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary as the oracle")


@st.composite
def cases(draw: st.DrawFn) -> Case:
    return generate(lambda lo, hi: draw(st.integers(lo, hi)))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_gramwright_and_git_apply_agree(case: Case) -> None:
    outcome = run_case(case)
    assert outcome.agree or outcome.documented, (
        f"git applied: {outcome.git_applied}, we applied: {outcome.ours_applied}\n"
        f"mutation: {case.mutation}\npatch:\n{outcome.patch}\n"
        f"git: {outcome.git_error}\nours: {outcome.our_error}"
    )


def test_the_generator_produces_both_verdicts_and_real_patches() -> None:
    import random

    rng = random.Random(7)
    outcomes = [run_case(generate(lambda lo, hi: rng.randint(lo, hi))) for _ in range(40)]
    assert any(o.git_applied for o in outcomes) and any(not o.git_applied for o in outcomes)
    assert any("\r\n" in o.patch for o in outcomes)
    assert any("\\ No newline at end of file" in o.patch for o in outcomes)
    assert any("new file mode" in o.patch for o in outcomes) and any(
        "deleted file mode" in o.patch for o in outcomes
    )


def test_an_lf_diff_on_a_crlf_file_applies_as_git_with_autocrlf_does(tmp_path: Path) -> None:
    """What models write: a diff with LF lines against a CRLF file. git applies it exactly where it
    converts line endings (``core.autocrlf=true``: the file read as LF, written back as CRLF); we
    apply it exactly too, without the option, the file keeping its endings, and the report says so."""
    original = b"def f():\r\n    return 1\r\n\r\nx = f()\r\n"
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n-    return 1\n+    return 2\n \n x = f()\n"
    for name in ("git", "ours"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_bytes(original)
    (tmp_path / "p.diff").write_text(diff, encoding="utf-8", newline="")
    git = subprocess.run(
        ["git", "-c", "core.autocrlf=true", "apply", str(tmp_path / "p.diff")],
        cwd=tmp_path / "git",
        env={**_ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
        capture_output=True,
        check=False,
    )
    assert git.returncode == 0, git.stderr
    result = apply_patch(parse_patch(diff), tmp_path / "ours")
    assert result.applied and result.report.edits[0].status == "exact"
    assert result.report.as_dict()["edits"][0]["normalised"] == "line-endings"
    ours = (tmp_path / "ours" / "m.py").read_bytes()
    assert ours == (tmp_path / "git" / "m.py").read_bytes() == original.replace(b"return 1", b"return 2")
