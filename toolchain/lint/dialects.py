"""JSON Schema dialects: the draft a document is linted as, and how a document declares it.

The keyword tables are the schema package's (:mod:`gramwright.schema.facts`), shared with the
compiler; they are re-exported here for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.schema.facts import ALL_KEYWORDS, ANNOTATIONS, DRAFT_ORDER, SCHEMA_URIS, VOCABULARY

__all__ = [
    "ALL_KEYWORDS",
    "ANNOTATIONS",
    "DRAFT_ORDER",
    "VOCABULARY",
    "Dialect",
    "detect_dialect",
    "draft_of_uri",
    "introduced_in",
]


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
    return SCHEMA_URIS.get(key)


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
