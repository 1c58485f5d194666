"""A conjunction part: one subschema (possibly negated) that an instance must satisfy.

A compiled rule is the grammar of a *conjunction* of parts — ``allOf`` members and ``$ref``
targets are flattened into it, an ``anyOf`` branch adds its branch, ``not`` adds a negated part.
The memo key of a conjunction is the set of part keys, so the same combination of subschemas is
always the same rule (and a ``$ref`` to a definition is the definition's rule).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from gramwright.pointer import join_pointer
from gramwright.schema.resolve import Loc

# Keywords that split a conjunction into alternatives (handled before the per-type keywords).
DISJUNCTIVE = ("anyOf", "oneOf", "if", "dependentSchemas", "dependentRequired", "dependencies")

PartKey = tuple[int, frozenset[str], bool]


@dataclass(frozen=True, eq=False)
class Part:
    loc: Loc
    consumed: frozenset[str] = frozenset()
    negated: bool = False
    # A synthetic part (e.g. the negated ``if`` of an else-branch) reports under this pointer.
    report_as: str | None = None

    @property
    def schema(self) -> Any:
        return self.loc.schema

    @functools.cached_property
    def _key(self) -> PartKey:
        return (id(self.loc.schema), self.consumed, self.negated)

    def key(self) -> PartKey:
        return self._key

    def consume(self, keyword: str) -> Part:
        return replace(self, consumed=self.consumed | {keyword})

    def pointer(self, keyword: str) -> str:
        return join_pointer(self.loc.pointer, keyword)
