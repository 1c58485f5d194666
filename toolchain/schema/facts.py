"""What the JSON Schema specifications themselves say: the drafts, the keywords each defines, which
keywords only annotate, and the JSON type of a value.

One table for the compiler, the resolver and the linter. These are the specifications' own lists
(not provider data), so they live in code; each draft is written as the previous one plus and
minus its changes, so a keyword appears once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = [
    "ALL_KEYWORDS",
    "ANNOTATIONS",
    "DEFINITION_CONTAINERS",
    "DRAFT_NUMBERS",
    "DRAFT_ORDER",
    "SCHEMA_URIS",
    "SUBSCHEMA_LISTS",
    "SUBSCHEMA_MAPS",
    "SUBSCHEMA_SINGLE",
    "VALIDATION_VOCABULARY",
    "VOCABULARY",
    "json_type",
    "subschemas",
]

# Draft labels in publication order, and the number the compiler compares ("from 2019-09 on").
DRAFT_ORDER: tuple[str, ...] = ("draft-03", "draft-04", "draft-06", "draft-07", "2019-09", "2020-12")
DRAFT_NUMBERS: dict[str, int] = dict(zip(DRAFT_ORDER, (3, 4, 6, 7, 2019, 2020), strict=True))

# The assertions every draft from 04 on shares (2019-09 filed them as the validation vocabulary).
_ASSERTIONS_04 = frozenset(
    {
        "type",
        "enum",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
    }
)
# The 2019-09/2020-12 validation vocabulary: what a meta-schema switches off when it leaves
# ".../vocab/validation" out of its ``$vocabulary``.
VALIDATION_VOCABULARY = _ASSERTIONS_04 | {"const", "maxContains", "minContains", "dependentRequired"}

_DRAFT04 = _ASSERTIONS_04 | {
    "$schema",
    "id",
    "$ref",
    "title",
    "description",
    "default",
    "additionalItems",
    "items",
    "additionalProperties",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "format",
}
_DRAFT03 = (_DRAFT04 - {"allOf", "anyOf", "oneOf", "not", "multipleOf", "maxProperties", "minProperties"}) | {
    "divisibleBy",
    "disallow",
    "extends",
}
_DRAFT06 = (_DRAFT04 - {"id"}) | {"$id", "const", "contains", "propertyNames", "examples"}
_DRAFT07 = _DRAFT06 | {
    "$comment",
    "if",
    "then",
    "else",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
}
_DRAFT201909 = (
    (_DRAFT07 - {"dependencies"})
    | (VALIDATION_VOCABULARY - _DRAFT07)
    | {
        "$anchor",
        "$defs",
        "$recursiveRef",
        "$recursiveAnchor",
        "$vocabulary",
        "dependentSchemas",
        "unevaluatedItems",
        "unevaluatedProperties",
        "deprecated",
        "contentSchema",
    }
)
_DRAFT202012 = (_DRAFT201909 - {"$recursiveRef", "$recursiveAnchor", "additionalItems"}) | {
    "prefixItems",
    "$dynamicRef",
    "$dynamicAnchor",
}

VOCABULARY: dict[str, frozenset[str]] = dict(
    zip(DRAFT_ORDER, (_DRAFT03, _DRAFT04, _DRAFT06, _DRAFT07, _DRAFT201909, _DRAFT202012), strict=True)
)
ALL_KEYWORDS: frozenset[str] = frozenset().union(*VOCABULARY.values())

# Keywords that never constrain an instance: identifiers, definitions containers and the
# meta-data and content vocabularies (``contentSchema`` too: 2019-09 §8.5 makes it an annotation).
ANNOTATIONS: frozenset[str] = frozenset(
    {
        "$schema",
        "$id",
        "id",
        "$anchor",
        "$dynamicAnchor",
        "$recursiveAnchor",
        "$vocabulary",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)

# ``$schema`` values (scheme, trailing "#" and "/" stripped) → draft label.
SCHEMA_URIS: dict[str, str] = {
    "json-schema.org/draft-03/schema": "draft-03",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft/2020-12/schema": "2020-12",
    "json-schema.org/schema": "2020-12",
}


# Where keywords hold subschemas (one, a list, a name → subschema map), and whether the subschema
# describes a *child* instance (one nesting level down: ``items``, ``properties``) or the same
# instance (``allOf``, ``if``/``then``, ...). ``items`` is a single schema or (up to 2019-09) a list.
SUBSCHEMA_SINGLE: dict[str, bool] = {
    "additionalProperties": True,
    "additionalItems": True,
    "unevaluatedItems": True,
    "unevaluatedProperties": True,
    "contains": True,
    "propertyNames": False,  # names are strings: no nesting level of their own
    "items": True,
    "not": False,
    "if": False,
    "then": False,
    "else": False,
    "contentSchema": False,
}
SUBSCHEMA_LISTS: dict[str, bool] = {
    "allOf": False,
    "anyOf": False,
    "oneOf": False,
    "prefixItems": True,
    "items": True,
}
SUBSCHEMA_MAPS: dict[str, bool] = {
    "properties": True,
    "patternProperties": True,
    "dependentSchemas": False,
    "dependencies": False,
    "$defs": False,
    "definitions": False,
}
DEFINITION_CONTAINERS = frozenset({"$defs", "definitions"})


def subschemas(schema: dict[str, Any]) -> Iterator[tuple[str, str | int | None, Any]]:
    """``(keyword, name or index or None, subschema)`` for each subschema directly inside
    ``schema``, in document order. Only applicator values are subschemas: ``enum``, ``default``
    and unknown keywords hold data, so a property *named* ``minimum`` is never a keyword."""
    for keyword, value in schema.items():
        if keyword in SUBSCHEMA_SINGLE and isinstance(value, dict | bool):
            yield keyword, None, value
        elif keyword in SUBSCHEMA_LISTS and isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict | bool):
                    yield keyword, i, item
        elif keyword in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, dict | bool):
                    yield keyword, name, item


def json_type(value: object) -> str:
    """The JSON Schema type of a JSON value: ``0.5`` is a ``number``, ``1.0`` an ``integer`` (a
    number with a zero fractional part is an integer since draft-06; draft-04 callers that need
    ``1.0`` as a non-integer check for ``float`` themselves). A value that is not JSON gets its
    Python type's name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
