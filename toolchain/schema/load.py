"""The one reader of schema text: bytes → text → JSON value, every failure one typed line.

Every front end reads a schema through here (``compile``, ``check``, ``generate`` through
:func:`gramwright.sources.load_source`, ``lint``, the TUI), so a file means the same everywhere:

* JSON is UTF-8 (RFC 8259 §8.1); a UTF-8 byte-order mark is accepted and dropped (editors on
  Windows write one; the RFC lets parsers ignore it), anything else that is not UTF-8 is refused
  as ``not valid UTF-8 at byte N``; a UTF-16/32 mark or a NUL byte says what the file is instead
  (a binary file is not "invalid JSON at 1:1");
* invalid JSON names ``file:line:column``;
* a text nested deeper than :data:`~gramwright.schema.depth.MAX_JSON_DEPTH` is refused before
  the (recursive) parser meets it, naming the depth found and the limit.

Errors are :class:`~gramwright.schema.errors.SchemaLoadError` (a ``SchemaError``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gramwright.readlimit import read_limited
from gramwright.schema.depth import JSON_NESTING, MAX_JSON_DEPTH, check_json_depth, json_depth
from gramwright.schema.errors import SchemaLoadError, SchemaTooDeep
from gramwright.schema.facts import json_type

__all__ = ["Schema", "decode_schema_bytes", "load_schema", "parse_schema_text", "read_schema_bytes"]

Schema = dict[str, Any] | bool

_UTF8_BOM = b"\xef\xbb\xbf"
# UTF-32 first: its little-endian mark starts with UTF-16's.
_OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
_SAVE_AS_UTF8 = "JSON files are UTF-8 (RFC 8259): save it as UTF-8"


def decode_schema_bytes(data: bytes, source: str) -> str:
    """The text of a schema file's bytes (a UTF-8 byte-order mark dropped)."""
    for bom, encoding in _OTHER_BOMS:
        if data.startswith(bom):
            raise SchemaLoadError(source, f"{encoding} text (byte-order mark), not UTF-8", hint=_SAVE_AS_UTF8)
    nul = data.find(b"\x00")
    if nul >= 0:
        # JSON text never holds a raw NUL (inside strings it must be escaped as \u0000)
        raise SchemaLoadError(
            source, f"a binary file, not JSON text (NUL byte at byte {nul})", hint="give a JSON Schema file"
        )
    try:
        return data.removeprefix(_UTF8_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0)
        raise SchemaLoadError(source, f"not valid UTF-8 at byte {offset}", hint=_SAVE_AS_UTF8) from None


def parse_schema_text(text: str, source: str = "<schema>", *, any_value: bool = False) -> Any:
    """Parse JSON text that must hold a schema (an object or a boolean; ``any_value``: any JSON
    value, for the linter, which reports what is wrong with it instead of refusing it)."""
    text = text.removeprefix("\ufeff")  # a decoded byte-order mark (the TUI's buffer, a str API)
    if not text.strip():
        hint = "a schema is a JSON object or a boolean"
        raise SchemaLoadError(source, "empty: no JSON value", line=1, column=1, hint=hint)
    check_json_depth(text, source)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaLoadError(source, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        # only when the caller's own stack is already deep: the text passed the depth check
        raise SchemaTooDeep(source, json_depth(text)[0], MAX_JSON_DEPTH, nesting=JSON_NESTING) from None
    if not any_value and not isinstance(value, dict | bool):
        raise SchemaLoadError(
            source,
            f"a schema is an object or a boolean, not {_json_name(value)}",
            hint='wrap the constraints in an object (a list of allowed values is {"enum": [...]})',
        )
    return value


def read_schema_bytes(data: bytes, source: str, *, any_value: bool = False) -> Any:
    """:func:`decode_schema_bytes` then :func:`parse_schema_text` (stdin, a buffer, a file's bytes)."""
    return parse_schema_text(decode_schema_bytes(data, source), source, any_value=any_value)


def load_schema(path: str | Path, *, any_value: bool = False) -> tuple[Any, str]:
    """Return ``(schema, base_uri)`` for a schema file; the base URI is its ``file://`` URI."""
    p = Path(path)
    if p.is_dir():
        raise SchemaLoadError(str(path), "is a directory, not a schema file")
    try:
        data = read_limited(p, "schema")
    except FileNotFoundError:
        raise SchemaLoadError(str(path), "no such file") from None
    except OSError as exc:
        raise SchemaLoadError(str(path), f"cannot read it: {exc.strerror or exc}") from None
    return read_schema_bytes(data, str(path), any_value=any_value), p.resolve().as_uri()


def _json_name(value: object) -> str:
    kind = json_type(value)
    return {"integer": "a number", "number": "a number", "array": "an array", "null": "null"}.get(
        kind, f"a {kind}"
    )
