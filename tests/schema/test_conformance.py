"""The conformance ratchet: no case may get worse than its recorded category.

Runs JSON-Schema-Test-Suite draft2020-12 and draft7 completely and a deterministic 1-in-20 sample
of each JSONSchemaBench split (the full sweep is ``gramwright conformance <split>``; see README).
Categories, best to worst: pass, false_positive_reported, refused, error, false_positive_silent,
false_negative. A case that improves only needs the baseline refreshed::

    GRAMWRIGHT_UPDATE_BASELINE=1 pytest tests/schema/test_conformance.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gramwright.schema.conformance import run_conformance

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
BASELINE = Path(__file__).parents[1] / "fixtures" / "conformance_baseline.json"
RANK = {
    "pass": 0,
    "false_positive_reported": 1,
    "refused": 2,
    "error": 3,
    "false_positive_silent": 4,
    "false_negative": 5,
}
SUITES = {
    "draft2020-12": ("json-schema-test-suite/tests/draft2020-12", 1),
    "draft7": ("json-schema-test-suite/tests/draft7", 1),
    **{
        split: (f"jsonschemabench/{split}", 20)
        for split in (
            "Github_trivial", "Github_easy", "Github_medium", "Glaiveai2K",
            "JsonSchemaStore", "Kubernetes", "Snowplow",
        )
    },
}  # fmt: skip

pytestmark = [
    pytest.mark.data,
    pytest.mark.skipif(not DATA.is_dir(), reason=f"evaluation data not found at {DATA}"),
]


def _baseline() -> dict[str, dict[str, str]]:
    if BASELINE.exists():
        data: dict[str, dict[str, str]] = json.loads(BASELINE.read_text(encoding="utf-8"))
        return data
    return {}


@pytest.mark.parametrize("suite", list(SUITES))
def test_no_case_gets_worse(suite: str) -> None:
    folder, every = SUITES[suite]
    path = DATA / folder
    if not path.is_dir():
        pytest.skip(f"{path} not found")
    result = run_conformance(path, every=every)
    now = result.case_categories()
    summary = result.summary()
    assert summary["false_negative"] == 0, _cases(result, "false_negative")
    assert summary["false_positive_silent"] == 0, _cases(result, "false_positive_silent")
    if os.environ.get("GRAMWRIGHT_UPDATE_BASELINE"):
        data = _baseline()
        data[suite] = dict(sorted(now.items()))
        BASELINE.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        return
    before = _baseline().get(suite)
    assert before is not None, f"no baseline for {suite}: run with GRAMWRIGHT_UPDATE_BASELINE=1"
    worse = {
        case: f"{before[case]} -> {cat}"
        for case, cat in now.items()
        if case in before and RANK[cat] > RANK[before[case]]
    }
    assert not worse, f"{len(worse)} cases got worse: {dict(list(worse.items())[:20])}"
    missing = sorted(set(before) - set(now))
    assert not missing, f"cases disappeared: {missing[:20]}"


def _cases(result: object, category: str) -> list[str]:
    from gramwright.schema.conformance import ConformanceResult

    assert isinstance(result, ConformanceResult)
    return [f"{c.id}: {c.detail}" for g in result.groups for c in g.cases if c.category == category][:20]
