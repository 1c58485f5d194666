"""SARIF 2.1.0 for CI annotations (GitHub code scanning and friends).

Each result carries the file URI (relative to the working folder when the file lies below it, as
code-scanning services resolve it against the repository root), a ``region`` (line/column of the
pointer when the source text is available), a ``logicalLocation`` whose ``fullyQualifiedName`` is
the JSON Pointer, and ``partialFingerprints`` (rule + file + pointer, the lint baseline's key, so a
finding keeps its identity when lines shift). With a baseline each result has its
``baselineState`` (``new`` / ``unchanged``). Mechanical fixes travel as JSON Patch in the result's
``properties`` (SARIF's own ``fixes`` need text edits).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from gramwright.lint.baseline import BaselineComparison, fingerprint, project_path
from gramwright.lint.diagnostic import LintReport
from gramwright.lint.registry import Rule, all_rules
from gramwright.lint.render.locate import locate, pointer_positions

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {"error": "error", "warn": "warning", "info": "note", "off": "none"}
INFORMATION_URI = "https://github.com/gramwright/gramwright/blob/main/docs/lint-rules.md"


def _uri(file: str) -> str:
    if file == "-":
        return "stdin"
    return quote(PurePath(project_path(file)).as_posix(), safe="/:.-_~")


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    anchors = f"\n\nAnchors: {rule.anchors}" if rule.anchors else ""
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.replace("/", "-").split("-")),
        "shortDescription": {"text": rule.what},
        "fullDescription": {"text": rule.why},
        "help": {
            "text": f"{rule.what} {rule.why}{anchors}",
            "markdown": f"**{rule.id}**: {rule.what}\n\n*Why:* {rule.why}{anchors}",
        },
        "helpUri": f"{INFORMATION_URI}#{rule.id.replace('/', '')}",
        "defaultConfiguration": {"level": LEVELS[rule.default]},
        "properties": {"tags": [rule.id.split("/", 1)[0]]},
    }


def sarif_log(
    reports: Sequence[LintReport],
    sources: Mapping[str, str] | None = None,
    baseline: BaselineComparison | None = None,
) -> dict[str, Any]:
    """The SARIF log as a dict; ``sources`` maps a report's file to its text (for line numbers);
    ``baseline`` marks each result new or unchanged."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version("gramwright")
    except PackageNotFoundError:
        tool_version = "0"
    rules = all_rules()
    ids = list(rules)
    index_of = {rule_id: i for i, rule_id in enumerate(ids)}
    results: list[dict[str, Any]] = []
    artifacts: list[dict[str, Any]] = []
    for i, report in enumerate(reports):
        uri = _uri(report.file)
        file = project_path(report.file)
        artifacts.append({"location": {"uri": uri}})
        text = (sources or {}).get(report.file)
        positions = pointer_positions(text) if text is not None else {}
        for j, d in enumerate(report.diagnostics):
            physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
            where = locate(positions, d.pointer) if positions else None
            if where is not None:
                physical["region"] = {"startLine": where[0], "startColumn": where[1]}
            result: dict[str, Any] = {
                "ruleId": d.rule,
                "level": LEVELS[d.severity],
                "message": {"text": d.message + (f" (hint: {d.hint})" if d.hint else "")},
                "locations": [
                    {
                        "physicalLocation": physical,
                        "logicalLocations": [
                            {
                                "fullyQualifiedName": d.pointer or "/",
                                "kind": "member",
                                "name": d.pointer or "/",
                            }
                        ],
                    }
                ],
                "partialFingerprints": {"gramwrightFinding/v1": fingerprint(d.rule, file, d.pointer)},
                "properties": {"profile": d.profile, "pointer": d.pointer, "hint": d.hint},
            }
            if baseline is not None:
                result["baselineState"] = baseline.state(i, j)
            if d.rule in index_of:
                result["ruleIndex"] = index_of[d.rule]
            if d.fix is not None:
                result["properties"]["fix"] = d.fix.to_dict()
            results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gramwright-lint",
                        "version": tool_version,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule_descriptor(rules[i]) for i in ids],
                    }
                },
                "artifacts": artifacts,
                "results": results,
                "columnKind": "unicodeCodePoints",
                "properties": {
                    "profiles": sorted({r.profile for r in reports}),
                    "cost": {r.file: r.cost.to_dict() for r in reports},
                },
            }
        ],
    }


def render_sarif(
    reports: Sequence[LintReport],
    sources: Mapping[str, str] | None = None,
    baseline: BaselineComparison | None = None,
) -> str:
    return json.dumps(sarif_log(reports, sources, baseline), ensure_ascii=False, indent=2) + "\n"
