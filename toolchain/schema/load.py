"""Read a schema file: JSON with file:line:column errors, a base URI from the file's location."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gramwright.schema.errors import SchemaLoadError

Schema = dict[str, Any] | bool


def parse_schema_text(text: str, source: str = "<schema>") -> Schema:
    """Parse JSON text that must hold a schema (an object or a boolean)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaLoadError(source, exc.msg, line=exc.lineno, column=exc.colno) from None
    if not isinstance(value, dict | bool):
        raise SchemaLoadError(source, f"a schema is an object or a boolean, not {type(value).__name__}")
    return value


def load_schema(path: str | Path) -> tuple[Schema, str]:
    """Return ``(schema, base_uri)``; the base URI is the file's ``file://`` URI."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SchemaLoadError(str(path), exc.strerror or str(exc)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SchemaLoadError(str(path), f"not UTF-8 (byte {exc.start})") from None
    return parse_schema_text(text, str(path)), p.resolve().as_uri()
