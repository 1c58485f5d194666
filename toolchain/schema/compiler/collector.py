"""What the keywords of one conjunction say, gathered per JSON type before any grammar is built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gramwright.schema.compiler.numbers import NumberSpec
from gramwright.schema.compiler.parts import Part
from gramwright.schema.resolve import Loc

ALL_TYPES = ("null", "boolean", "integer", "fraction", "string", "array", "object")
# "number" is integers and non-integers; the split lets `type: integer` and `not: {type: integer}`
# intersect without a special case.
TYPE_NAMES: dict[str, tuple[str, ...]] = {
    "null": ("null",),
    "boolean": ("boolean",),
    "integer": ("integer",),
    "number": ("integer", "fraction"),
    "string": ("string",),
    "array": ("array",),
    "object": ("object",),
}


@dataclass
class ArrayPart:
    part: Part
    prefix: list[Loc]
    rest: Loc | None  # None: not constrained by this part


@dataclass
class ObjectPart:
    part: Part
    properties: dict[str, Loc]
    patterns: list[tuple[str, Loc, str]]  # (pattern, schema, pointer of the patternProperties entry)
    additional: Loc | None  # None: absent (any value allowed)
    additional_ptr: str = ""


@dataclass
class Collector:
    parts: list[Part]
    types: set[str] = field(default_factory=lambda: set(ALL_TYPES))
    enum: list[Any] | None = None
    enum_ptrs: list[str] = field(default_factory=list)
    # numbers
    number: NumberSpec = field(default_factory=NumberSpec)
    bound_ptrs: list[str] = field(default_factory=list)
    multiple_ptrs: list[str] = field(default_factory=list)
    # strings
    min_length: int = 0
    max_length: int | None = None
    length_ptrs: list[str] = field(default_factory=list)
    patterns: list[tuple[str, str]] = field(default_factory=list)  # (pattern, pointer)
    formats: list[tuple[str, str]] = field(default_factory=list)  # (format name, pointer)
    excluded_strings: list[str] = field(default_factory=list)
    excluded_string_ptrs: list[str] = field(default_factory=list)
    negation_ptrs: list[str] = field(default_factory=list)  # `not`s that became numeric constraints
    # arrays
    arrays: list[ArrayPart] = field(default_factory=list)
    contains: list[tuple[Loc, int, int | None, str]] = field(default_factory=list)
    min_items: int = 0
    max_items: int | None = None
    items_count_ptrs: list[str] = field(default_factory=list)
    unique_ptrs: list[str] = field(default_factory=list)
    item_negations: list[Part] = field(default_factory=list)  # every item must satisfy these too
    # objects
    objects: list[ObjectPart] = field(default_factory=list)
    required: dict[str, str] = field(default_factory=dict)  # name → pointer
    forbidden: dict[str, str] = field(default_factory=dict)  # name → pointer
    value_negations: dict[str, list[Part]] = field(default_factory=dict)  # name → extra parts
    property_names: list[tuple[Loc, str]] = field(default_factory=list)
    min_properties: int = 0
    max_properties: int | None = None
    props_count_ptrs: list[str] = field(default_factory=list)
    props_count_noted: bool = False  # the widened count's report entry already says why

    def restrict_types(self, allowed: set[str]) -> None:
        self.types &= allowed

    def set_enum(self, values: list[Any], pointer: str) -> None:
        from gramwright.schema.canonical import json_key

        if self.enum is None:
            self.enum = list(values)
        else:
            keep = {json_key(w) for w in values}
            self.enum = [v for v in self.enum if json_key(v) in keep]
        self.enum_ptrs.append(pointer)
