"""Differential test against the real ``git apply`` (the CI share; bench/apply.py runs ≥ 1,000).

hypothesis generates trees (LF, CRLF and mixed files, tabs, blank and repeated lines, with and
without a final newline, non-ASCII, a lone CR inside a line), edits, creations and deletions;
``git diff --no-index`` writes the patch; both tools apply it to the same target tree (sometimes
mutated so that the patch should not apply). They must end with identical trees (bytes and mode
bits) or both refuse — or differ in a way docs/patches.md documents (``Outcome.documented``).
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.patch_cases import Case, generate, run_case

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
