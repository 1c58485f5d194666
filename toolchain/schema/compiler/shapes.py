"""The JSON type every keyword's value must have, checked once per subschema before it is read.

A keyword with a value of the wrong type makes the schema invalid (its draft's metaschema says
so); reading it anyway made the compiler crash deep inside (``prefixItems: {...}`` raised
``KeyError: 0``). Every subschema the compiler reaches is checked here first, so such a schema is
refused with one line naming the keyword, its pointer and the type it needs. The full metaschema
is not run: real-world schemas carry harmless oddities (an unknown ``format`` value, an empty
``required`` in draft-04) that the compiler reads fine, and refusing them would help nobody.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gramwright.pointer import join_pointer
from gramwright.schema.errors import UnsupportedSchema

Check = Callable[[Any, int], bool]


def _is_schema(v: Any) -> bool:
    return isinstance(v, dict | bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _schema(v: Any, draft: int) -> bool:
    return _is_schema(v)


def _schema_array(v: Any, draft: int) -> bool:
    return isinstance(v, list) and all(_is_schema(s) for s in v)


def _nonempty_schema_array(v: Any, draft: int) -> bool:
    return _schema_array(v, draft) and bool(v)


def _schema_map(v: Any, draft: int) -> bool:
    return isinstance(v, dict) and all(_is_schema(s) for s in v.values())


def _items(v: Any, draft: int) -> bool:
    return _is_schema(v) or (draft < 2020 and _schema_array(v, draft))


def _items_assumed(v: Any, draft: int) -> bool:
    # no $schema: an array is the tuple form of the drafts before 2020-12, read as such (and
    # reported: keywords.items)
    return _is_schema(v) or _schema_array(v, draft)


def _strings(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v)


def _dependencies(v: Any, draft: int) -> bool:
    return isinstance(v, dict) and all(_is_schema(d) or _strings(d) for d in v.values())


def _dependent_required(v: Any, draft: int) -> bool:
    return isinstance(v, dict) and all(_strings(d) for d in v.values())


def _required(v: Any, draft: int) -> bool:
    # draft-03's `required` is a boolean on the property itself
    return isinstance(v, bool) if draft <= 3 else _strings(v)


def _type(v: Any, draft: int) -> bool:
    if isinstance(v, str):
        return True
    # draft-03 allows schemas among the types (a union); the compiler reads only the names
    return isinstance(v, list) and all(isinstance(t, str) or (draft <= 3 and _is_schema(t)) for t in v)


def _number(v: Any, draft: int) -> bool:
    return _is_number(v)


def _exclusive(v: Any, draft: int) -> bool:
    return isinstance(v, bool) if draft <= 4 else _is_number(v)


def _count(v: Any, draft: int) -> bool:
    return _is_number(v) and v >= 0 and int(v) == v


def _string(v: Any, draft: int) -> bool:
    return isinstance(v, str)


def _boolean(v: Any, draft: int) -> bool:
    return isinstance(v, bool)


def _array(v: Any, draft: int) -> bool:
    return isinstance(v, list)


# keyword → (check, what the value must be: said in the error)
SHAPES: dict[str, tuple[Check, str]] = {
    "not": (_schema, "a schema (an object or a boolean)"),
    "if": (_schema, "a schema (an object or a boolean)"),
    "then": (_schema, "a schema (an object or a boolean)"),
    "else": (_schema, "a schema (an object or a boolean)"),
    "additionalItems": (_schema, "a schema (an object or a boolean)"),
    "additionalProperties": (_schema, "a schema (an object or a boolean)"),
    "contains": (_schema, "a schema (an object or a boolean)"),
    "propertyNames": (_schema, "a schema (an object or a boolean)"),
    "unevaluatedItems": (_schema, "a schema (an object or a boolean)"),
    "unevaluatedProperties": (_schema, "a schema (an object or a boolean)"),
    "items": (_items, "a schema (an object or a boolean), or before 2020-12 an array of schemas"),
    "allOf": (_nonempty_schema_array, "a non-empty array of schemas"),
    "anyOf": (_nonempty_schema_array, "a non-empty array of schemas"),
    "oneOf": (_nonempty_schema_array, "a non-empty array of schemas"),
    "prefixItems": (_nonempty_schema_array, "a non-empty array of schemas"),
    "properties": (_schema_map, "an object whose values are schemas"),
    "patternProperties": (_schema_map, "an object whose values are schemas"),
    "dependentSchemas": (_schema_map, "an object whose values are schemas"),
    "dependencies": (_dependencies, "an object whose values are schemas or arrays of strings"),
    "dependentRequired": (_dependent_required, "an object whose values are arrays of strings"),
    "required": (_required, "an array of strings (a boolean in draft-03)"),
    "type": (_type, "a type name or an array of type names"),
    "enum": (_array, "an array"),
    "minimum": (_number, "a number"),
    "maximum": (_number, "a number"),
    "multipleOf": (_number, "a number"),
    "exclusiveMinimum": (_exclusive, "a number (a boolean in draft-04)"),
    "exclusiveMaximum": (_exclusive, "a number (a boolean in draft-04)"),
    "minLength": (_count, "a non-negative integer"),
    "maxLength": (_count, "a non-negative integer"),
    "minItems": (_count, "a non-negative integer"),
    "maxItems": (_count, "a non-negative integer"),
    "minContains": (_count, "a non-negative integer"),
    "maxContains": (_count, "a non-negative integer"),
    "minProperties": (_count, "a non-negative integer"),
    "maxProperties": (_count, "a non-negative integer"),
    "pattern": (_string, "a string (a regular expression)"),
    "format": (_string, "a string (a format name)"),
    "uniqueItems": (_boolean, "a boolean"),
    "$ref": (_string, "a string (a URI reference)"),
    "$dynamicRef": (_string, "a string (a URI reference)"),
    "$recursiveRef": (_string, "a string (a URI reference)"),
}


def check_shapes(
    schema: dict[str, Any],
    pointer: str,
    draft: int,
    asserts: Callable[[str, int], bool],
    *,
    declared: bool = True,
) -> None:
    """Raise :class:`UnsupportedSchema` for the first keyword of ``schema`` (a subschema at
    ``pointer``) whose value has the wrong type; keywords its draft does not read are skipped
    (``asserts``), as the compiler skips them. ``declared``: the draft is the schema's own
    ``$schema``, not assumed (only then is a tuple-form ``items`` under 2020-12 an error)."""
    for keyword, value in schema.items():
        shape = SHAPES.get(keyword)
        if shape is None or not (asserts(keyword, draft) or (keyword in ("then", "else") and draft >= 7)):
            continue
        check, what = shape
        if keyword == "items" and not declared:
            check = _items_assumed
        if not check(value, draft):
            raise UnsupportedSchema(
                join_pointer(pointer, keyword),
                f"invalid schema: {keyword} must be {what}, not {json_name(value)}",
                keyword=keyword,
                hint=f"fix the value of {keyword} (the JSON Schema specification says what it takes)",
            )


def json_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}" if _is_number(value) else "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array" if value else "an empty array"
    return "an object"
