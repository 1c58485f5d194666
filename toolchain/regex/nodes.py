"""Syntax tree of an ECMA-262 regular expression, as produced by :mod:`gramwright.regex.parser`.

Groups (capturing or not) leave no node: captures do not change the language. ``position`` fields
are code-point offsets into the pattern, for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gramwright.regex.charsets import Ranges


@dataclass(frozen=True, slots=True)
class Chars:
    """One code point from ``ranges``, or, when ``negated``, one outside them."""

    ranges: Ranges
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Sequence:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Choice:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Quantified:
    item: Node
    min: int
    max: int | None
    lazy: bool
    position: int


AnchorKind = Literal["start", "end", "word_boundary", "not_word_boundary"]


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: AnchorKind
    position: int


@dataclass(frozen=True, slots=True)
class Lookaround:
    item: Node
    ahead: bool
    negative: bool
    position: int


@dataclass(frozen=True, slots=True)
class BackReference:
    ref: int | str
    position: int


Node = Chars | Sequence | Choice | Quantified | Anchor | Lookaround | BackReference
