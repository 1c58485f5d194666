"""JSON Schema dialects: which keywords each draft defines, and how a document declares its draft.

The vocabularies are the JSON Schema specifications' own keyword lists (not provider data), so they
live in code. ``ANNOTATIONS`` are keywords that never constrain an instance.
"""

from __future__ import annotations

from dataclasses import dataclass

DRAFT_ORDER: tuple[str, ...] = ("draft-03", "draft-04", "draft-06", "draft-07", "2019-09", "2020-12")

_DRAFT04 = frozenset(
    {
        "$schema",
        "id",
        "$ref",
        "title",
        "description",
        "default",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "additionalItems",
        "items",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "additionalProperties",
        "definitions",
        "properties",
        "patternProperties",
        "dependencies",
        "enum",
        "type",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "format",
    }
)
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
_DRAFT201909 = (_DRAFT07 - {"dependencies"}) | {
    "$anchor",
    "$defs",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedItems",
    "unevaluatedProperties",
    "maxContains",
    "minContains",
    "deprecated",
    "contentSchema",
}
_DRAFT202012 = (_DRAFT201909 - {"$recursiveRef", "$recursiveAnchor", "additionalItems"}) | {
    "prefixItems",
    "$dynamicRef",
    "$dynamicAnchor",
}

VOCABULARY: dict[str, frozenset[str]] = {
    "draft-03": frozenset(_DRAFT03),
    "draft-04": _DRAFT04,
    "draft-06": frozenset(_DRAFT06),
    "draft-07": frozenset(_DRAFT07),
    "2019-09": frozenset(_DRAFT201909),
    "2020-12": frozenset(_DRAFT202012),
}
ALL_KEYWORDS: frozenset[str] = frozenset().union(*VOCABULARY.values())

ANNOTATIONS: frozenset[str] = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentMediaType",
        "contentEncoding",
        "$schema",
        "$id",
        "id",
        "$anchor",
        "$dynamicAnchor",
        "$recursiveAnchor",
        "$vocabulary",
        "$defs",
        "definitions",
    }
)

_SCHEMA_URIS: dict[str, str] = {
    "json-schema.org/draft-03/schema": "draft-03",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft/2020-12/schema": "2020-12",
    "json-schema.org/schema": "2020-12",
}


@dataclass(frozen=True, slots=True)
class Dialect:
    """The draft a document is linted as. ``declared`` is False when ``$schema`` was absent or unknown."""

    draft: str
    declared: bool
    schema_uri: str = ""

    @property
    def keywords(self) -> frozenset[str]:
        return VOCABULARY[self.draft]

    def at_least(self, draft: str) -> bool:
        return DRAFT_ORDER.index(self.draft) >= DRAFT_ORDER.index(draft)

    def label(self) -> str:
        return self.draft if self.declared else f"{self.draft} (assumed)"


def draft_of_uri(uri: str) -> str | None:
    key = uri.strip().split("://", 1)[-1].rstrip("#").rstrip("/")
    return _SCHEMA_URIS.get(key)


def detect_dialect(schema: object, *, draft04_hints: bool = False) -> Dialect:
    """The declared draft, or an assumption: draft-04 when the document uses draft-04-only forms
    (``id``, boolean ``exclusiveMinimum``), 2020-12 otherwise."""
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if isinstance(uri, str):
        draft = draft_of_uri(uri)
        if draft is not None:
            return Dialect(draft, True, uri)
    return Dialect("draft-04" if draft04_hints else "2020-12", False, uri if isinstance(uri, str) else "")


def introduced_in(keyword: str) -> str | None:
    """The first draft that defines ``keyword`` (draft-03 excluded: nobody targets it any more)."""
    for draft in DRAFT_ORDER[1:]:
        if keyword in VOCABULARY[draft]:
            return draft
    return None
