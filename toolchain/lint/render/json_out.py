"""JSON output: a flat list of diagnostics, each with the file it belongs to."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from gramwright.lint.diagnostic import LintReport


def report_dicts(reports: Iterable[LintReport]) -> list[dict[str, Any]]:
    return [{**d.to_dict(), "file": r.file} for r in reports for d in r.diagnostics]


def render_json(reports: Iterable[LintReport]) -> str:
    return json.dumps(report_dicts(reports), ensure_ascii=False, indent=2) + "\n"
