"""Compile options (whitespace, property order, closed objects, formats, bounds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class CompileOptions:
    """How a schema becomes a grammar.

    * ``whitespace``: ``compact`` (none at all; the default) or ``flexible`` — at most one newline
      then ``flexible_blanks`` spaces/tabs in each gap, never unbounded.
    * ``property_order``: ``schema`` (declared order, the generation order) or ``required-first``.
    * ``close_objects``: treat an absent ``additionalProperties`` as ``false`` in subschemas that
      declare ``properties`` or ``patternProperties`` (the spec's default is "allowed").
    * ``formats``: ``assert`` (compile ``format`` into the grammar) or ``annotate`` (2020-12's
      default semantics: ``format`` is an annotation, nothing is enforced).
    * ``max_repeat``: bounded repetitions (lengths, item counts) above this become unbounded
      (reported as approximated) so the grammar stays small.
    * ``max_alternatives``: distributing ``anyOf``/``oneOf``/``if``/``dependent*`` over the rest of
      a subschema creates one rule per combination; past this many in one schema the remaining
      disjunctions are dropped (a superset, reported).
    * ``default_draft``: the draft of a schema without (or with an unknown) ``$schema``.
    * ``remotes``: URI prefix → local folder for remote ``$ref``s; nothing is ever fetched.
    * ``timeout_s``: give up compiling after this long (``TimeoutError``); 0 for no limit.
    """

    whitespace: Literal["compact", "flexible"] = "compact"
    property_order: Literal["schema", "required-first"] = "schema"
    close_objects: bool = False
    formats: Literal["assert", "annotate"] = "assert"
    max_repeat: int = 256
    max_alternatives: int = 512
    flexible_blanks: int = 20
    default_draft: int = 2020
    remotes: dict[str, Path] = field(default_factory=dict)
    timeout_s: float = 0.0
