"""The light commands the light-install tests run, each in a fresh project folder: one list, so the
run-time import test (``test_imports``) and the light venv's test (``test_light_install``) check
the same commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SCHEMA = {
    "type": "object",
    "properties": {"status": {"enum": ["draft", "sent"]}, "qty": {"type": "integer", "minimum": 1}},
    "required": ["status"],
    "additionalProperties": False,
}
# the search-replace fixture's project (tests/fixtures/patches): `total` counts quantities
PATCH = FIXTURES / "patches" / "search-replace.txt"
PATCHED = 'result += item["price"] * item.get("quantity", 1)'

# name -> arguments, run in that order in one project (undo restores what apply changed)
LIGHT_COMMANDS: dict[str, list[str]] = {
    "help": ["--help"],
    "version": ["--version"],
    "lint": ["lint", "schemas/po.json"],
    "compile": ["compile", "schemas/po.json"],
    "export": ["compile", "schemas/po.json", "--target", "vllm-request"],
    "check": ["check", "schemas/po.json", "doc.json"],
    "validate": ["validate", "--schema", "schemas/po.json", "doc.json"],
    "snapshot-update": ["snapshot", "--update"],
    "snapshot": ["snapshot"],
    "apply": ["apply", "change.txt"],
    "history": ["history"],
    "undo": ["undo"],
}


def make_project(root: Path) -> Path:
    """A small project: a schema, a document, the patch fixture's files and its patch."""
    (root / "schemas").mkdir(parents=True)
    (root / "schemas" / "po.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
    (root / "doc.json").write_text('{"status":"sent","qty":2}', encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n', encoding="utf-8")
    shutil.copytree(FIXTURES / "patches" / "project", root, dirs_exist_ok=True)
    shutil.copy(PATCH, root / "change.txt")
    return root
