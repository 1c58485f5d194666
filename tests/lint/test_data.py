"""Lint the JSONSchemaBench splits in ../shared/data: never crashes, output always serialises.

The sample tests run by default (every 50th schema of each split under two profiles, and every
400th with our compiler: a few seconds). The full test lints all 8,028 schemas: about 45 s on a quiet
machine but 2-3 minutes when the two shared cores are busy, so it runs only when the ``data`` marker
is selected: ``pytest -m data``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gramwright.lint import LintOptions, lint_schema
from gramwright.lint.linter import INTERNAL_RULE
from gramwright.lint.render import render_json, render_sarif

DATA = Path(__file__).parents[2].parent / "shared" / "data" / "jsonschemabench"
SPLITS = (
    "Github_easy",
    "Github_medium",
    "Github_trivial",
    "Glaiveai2K",
    "JsonSchemaStore",
    "Kubernetes",
    "Snowplow",
)

pytestmark = pytest.mark.data


def _schemas(step: int) -> Iterator[tuple[str, Any]]:
    if not DATA.is_dir():
        pytest.skip(f"{DATA} not present")
    for split in SPLITS:
        files = sorted((DATA / split).glob("*.json"))
        assert files, f"split {split} is empty"
        for path in files[::step]:
            yield f"{split}/{path.name}", json.loads(path.read_text("utf-8"))["schema"]


def _check(name: str, schema: Any, profile: str, options: LintOptions) -> None:
    report = lint_schema(schema, profile=profile, options=options, file=name)
    crashed = [d.message for d in report.diagnostics if d.rule == INTERNAL_RULE]
    assert not crashed, (name, crashed)
    data = json.loads(render_json([report]))
    assert all(d["file"] == name and d["severity"] in ("error", "warn", "info") for d in data)
    json.dumps(report.cost.to_dict())


def test_sample_of_every_split() -> None:
    options = LintOptions(compile=False)
    count = 0
    for name, schema in _schemas(50):
        for profile in ("gramwright", "openai-strict"):
            _check(name, schema, profile, options)
        count += 1
    assert count > 150


def test_sample_with_the_compiler_and_sarif() -> None:
    pytest.importorskip("gramwright.schema.compiler")
    options = LintOptions(compile_timeout_s=5.0)
    reports = []
    for name, schema in _schemas(400):
        report = lint_schema(schema, options=options, file=name)
        assert not [d for d in report.diagnostics if d.rule == INTERNAL_RULE], name
        reports.append(report)
    log = json.loads(render_sarif(reports))
    assert log["version"] == "2.1.0" and len(log["runs"][0]["artifacts"]) == len(reports)


def test_every_schema_of_every_split(request: pytest.FixtureRequest) -> None:
    if "data" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("the full run takes about a minute or more: select it with `pytest -m data`")
    options = LintOptions(compile=False)
    count = 0
    for name, schema in _schemas(1):
        _check(name, schema, "gramwright", options)
        count += 1
    assert count == 8028
