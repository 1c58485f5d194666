"""Grounded values (``x-grounded``): strings and numbers the model may only copy from a source text.

The schema compiler puts every grounded string or number of a schema in a rule of its own (a
*placeholder*: the ordinary string or number grammar, so without a source the grammar is the
schema's as written) and lists it as a :class:`GroundSpec`. :func:`ground_grammar` swaps the
placeholders for the source's grammar, built per request:

* a grounded **string** is a substring of the source (the suffix-automaton rules of
  :mod:`gramwright.grammar.substrings`), ``minLength``/``maxLength`` built in, written with the JSON
  escapes the string grammar uses, so the decoded value is the substring itself;
* a grounded **number** / **integer** is one of the numbers written in the source (see
  :func:`source_numbers` for the normalisation), filtered by the schema's numeric keywords;
* ``x-grounded`` on an **array** grounds its ``items``.

:func:`ground_schema` applies ``--ground`` (every plain string of the schema: no ``enum``,
``const``, ``format`` or ``pattern``) and pushes an array's ``x-grounded`` down to its items.
:func:`grounded_values` finds, in a generated document, each grounded value's offset in the source.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from gramwright.grammar.ir import CharClass, Expr, Grammar, Ref, alt, literal, seq
from gramwright.grammar.substrings import json_escape, substring_rules, word_chunks, word_occurrences

__all__ = [
    "GROUNDED",
    "GroundSpec",
    "GroundedGrammar",
    "GroundedValue",
    "SourceExport",
    "SourceNumber",
    "export_grounding",
    "ground_grammar",
    "ground_schema",
    "grounded_values",
    "source_numbers",
]

GROUNDED = "x-grounded"
GroundKind = Literal["string", "number", "integer"]
NOTHING: Expr = CharClass(())


@dataclass(frozen=True)
class GroundSpec:
    """One grounded member: its placeholder ``rule``, schema ``pointer``, what it holds, and (for
    numbers) ``accepts``, the schema's test of a candidate value (numeric keywords, ``not`` …)."""

    rule: str
    pointer: str
    kind: GroundKind
    min_len: int = 0
    max_len: int | None = None
    accepts: Callable[[Any], bool] | None = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        """One line for reports: where, and what the source may give it."""
        if self.kind == "string":
            bounds = f", {self.min_len}..{'' if self.max_len is None else self.max_len} characters"
            what = "a substring of the source" + (bounds if self.min_len or self.max_len is not None else "")
        else:
            what = f"{'an integer' if self.kind == 'integer' else 'a number'} written in the source"
        return f"grounded: {self.pointer or '/'} takes {what}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "kind": self.kind, "rule": self.rule}
        if self.kind == "string":
            out["min_length"] = self.min_len
            out["max_length"] = self.max_len
        return out


# -- numbers written in a source ------------------------------------------------------------------

_FULL_WIDTH = str.maketrans({chr(0xFF10 + i): str(i) for i in range(10)} | {"．": "."})
_NUMBER = re.compile(r"(?<![0-9])([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]+))?(?![0-9])")
_MINUS = frozenset("-−－")


@dataclass(frozen=True)
class SourceNumber:
    """A number as written at ``start:end`` of the source, and its JSON ``text``."""

    text: str
    start: int
    end: int

    @property
    def is_integer(self) -> bool:
        return "." not in self.text

    @property
    def value(self) -> int | float:
        out: int | float = json.loads(self.text)
        return out

    @property
    def exact(self) -> Decimal:
        return Decimal(self.text)


def _decimal(value: int | float | Decimal) -> Decimal:
    """A parsed JSON number as an exact decimal (floats by their shortest repr: ``2.8`` → 2.8)."""
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _joins(ch: str) -> bool:
    """A character a dash after it joins to the digits (a range, a date, a code): no sign."""
    return ch.isdigit() or (ch.isascii() and ch.isalpha())


def source_numbers(text: str) -> list[SourceNumber]:
    """Every number written in ``text``, normalised to JSON, in order of first occurrence.

    Normalisation: full-width digits (``０``–``９``) read as ASCII; thousands separators dropped
    when the groups are of three digits (``1,299`` → ``1299``; ``1,2`` is two numbers); one
    decimal point (``.`` or ``．``) with its digits kept as written (``2.50`` → ``2.50``); leading
    zeros dropped (``007`` → ``7``); a minus sign (``-``, ``−``, ``－``) directly before the digits
    counts when it does not follow a digit or a Latin letter (``折扣-3`` → ``-3``; ``2024-12``
    gives ``2024`` and ``12``; ``A-5`` gives ``5``). Digits directly after a Latin letter are part
    of a code, not a number (``RM123456789GB``, ``A4``, ``v2`` give none; ``2.5kg`` gives ``2.5``).
    No exponents, no words for numbers (``三``, ``twelve``), no percent scaling.
    """
    ascii_text = text.translate(_FULL_WIDTH)  # one character for one: offsets are the source's
    out: list[SourceNumber] = []
    for m in _NUMBER.finditer(ascii_text):
        if m.start() and ascii_text[m.start() - 1].isascii() and ascii_text[m.start() - 1].isalpha():
            continue  # digits after a Latin letter are part of a code (``RM123456789GB``, ``A4``)
        whole = m.group(1).replace(",", "").lstrip("0") or "0"
        number = whole if m.group(2) is None else f"{whole}.{m.group(2)}"
        start = m.start()
        if start and text[start - 1] in _MINUS and (start < 2 or not _joins(text[start - 2])):
            start -= 1
            number = "-" + number
        out.append(SourceNumber(number, start, m.end()))
    return out


# -- the schema side: --ground and arrays ---------------------------------------------------------

_PLAIN_BLOCKERS = ("enum", "const", "format", "pattern")


def _is_string_schema(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def ground_schema(schema: Any, *, ground_all: bool = False) -> Any:
    """``schema`` with ``x-grounded`` spelled out where the compiler looks for it: on the ``items``
    of a grounded array, and (``ground_all``, the ``--ground`` option) on every string subschema
    without ``enum``/``const``/``format``/``pattern``. The input is not changed; a schema with
    nothing to rewrite is returned as it is."""
    if not ground_all and GROUNDED not in json.dumps(schema):
        return schema
    out = copy.deepcopy(schema)
    for node in _subschemas(out):
        if ground_all and _is_string_schema(node) and not any(k in node for k in _PLAIN_BLOCKERS):
            node.setdefault(GROUNDED, True)
    for node in _subschemas(out):
        if node.get(GROUNDED) is True and isinstance(node.get("items"), dict | bool):
            items = node["items"]
            if isinstance(items, dict) and "$ref" not in items:
                items.setdefault(GROUNDED, True)
            elif items is not False:
                # a reference replaces its siblings before 2019-09: wrap it instead
                node["items"] = {"allOf": [items], GROUNDED: True}
    return out


_CHILD_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_CHILD_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_CHILD_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        for key in _CHILD_MAPS:
            if isinstance(node.get(key), dict):
                stack.extend(node[key].values())
        for key in _CHILD_LISTS:
            if isinstance(node.get(key), list):
                stack.extend(node[key])
        for key in _CHILD_ONE:
            if isinstance(node.get(key), list):  # draft-04 tuple items
                stack.extend(node[key])
            elif isinstance(node.get(key), dict):
                stack.append(node[key])


# -- per request: the source's grammar in place of the placeholders -------------------------------


@dataclass(frozen=True)
class GroundedGrammar:
    """The grammar with the source's rules in place; ``unbounded``: string members whose length
    bounds were left to validation (too many distinct substrings under the bound)."""

    grammar: Grammar
    unbounded: tuple[GroundSpec, ...]
    rules_added: int


def _prefix(grammar: Grammar, base: str) -> str:
    prefix = base
    n = 1
    while any(name.startswith(prefix) for name in grammar.rules):
        n += 1
        prefix = f"{base}{n}x"
    return prefix


def ground_grammar(grammar: Grammar, specs: list[GroundSpec], text: str) -> GroundedGrammar:
    """``grammar`` with each spec's placeholder replaced by the values ``text`` holds. Not yet
    prepared: the caller prunes (a member no value of the source fits becomes empty)."""
    added: dict[str, Expr] = {}
    rules = dict(grammar.rules)
    unbounded: list[GroundSpec] = []
    numbers: list[SourceNumber] | None = None
    base = _prefix(grammar, "src")
    for spec in specs:
        if spec.rule not in rules:
            continue
        if spec.kind == "string":
            bound = "n" if spec.max_len is None else str(spec.max_len)
            sub = substring_rules(text, f"{base}{spec.min_len}x{bound}s", spec.min_len, spec.max_len)
            added.update(sub.rules)
            rules[spec.rule] = seq(literal('"'), Ref(sub.start), literal('"'))
            if not sub.bounded:
                unbounded.append(spec)
            continue
        if numbers is None:
            numbers = source_numbers(text)
        texts = [
            n.text
            for n in numbers
            if (spec.kind == "number" or n.is_integer) and (spec.accepts is None or _accepts(spec, n))
        ]
        rules[spec.rule] = alt(*(literal(t) for t in dict.fromkeys(texts))) if texts else NOTHING
    # the source's rules first: each is a witness of productivity for the member that uses it
    merged = {**added, **rules}
    return GroundedGrammar(Grammar(merged, grammar.root), tuple(unbounded), len(added))


@dataclass(frozen=True)
class SourceExport:
    """A grammar to export with a source's grounding in it, for a target with a substring
    constraint: grounded numbers are the source's numbers (plain alternatives); each grounded
    string is a placeholder literal (a key of ``substrings``) that the export writes as the
    target's substring constraint over the chunks (the source's words, JSON-escaped). The
    pointers: ``strings``/``numbers`` held to the source, ``bounds`` the strings whose
    ``minLength``/``maxLength`` the substring constraint does not carry."""

    grammar: Grammar
    substrings: dict[str, tuple[str, ...]]
    strings: tuple[str, ...]
    numbers: tuple[str, ...]
    bounds: tuple[str, ...]


SUBSTRING_PLACEHOLDER = "\x01gramwright-substring-{}\x01"


def export_grounding(grammar: Grammar, specs: list[GroundSpec], text: str) -> SourceExport:
    """``grammar`` with the grounding ``text`` gives, for a target with a substring constraint
    (see :class:`SourceExport`)."""
    rules = dict(grammar.rules)
    chunks = tuple(json_escape_text(c) for c in word_chunks(text))
    placeholders: dict[str, tuple[str, ...]] = {}
    strings: list[str] = []
    numbers: list[str] = []
    bounds: list[str] = []
    found: list[SourceNumber] | None = None
    for spec in specs:
        if spec.rule not in rules:
            continue
        if spec.kind == "string":
            marker = SUBSTRING_PLACEHOLDER.format(len(placeholders))
            placeholders[marker] = chunks
            rules[spec.rule] = seq(literal('"'), literal(marker), literal('"'))
            strings.append(spec.pointer)
            if spec.min_len or spec.max_len is not None:
                bounds.append(spec.pointer)
            continue
        if found is None:
            found = source_numbers(text)
        texts = [
            n.text
            for n in found
            if (spec.kind == "number" or n.is_integer) and (spec.accepts is None or _accepts(spec, n))
        ]
        rules[spec.rule] = alt(*(literal(t) for t in dict.fromkeys(texts))) if texts else NOTHING
        numbers.append(spec.pointer)
    return SourceExport(
        Grammar(rules, grammar.root), placeholders, tuple(strings), tuple(numbers), tuple(bounds)
    )


def json_escape_text(text: str) -> str:
    """``text`` as the JSON string grammar writes it (inside the quotes)."""
    return "".join(json_escape(ch) for ch in text)


def _accepts(spec: GroundSpec, number: SourceNumber) -> bool:
    assert spec.accepts is not None
    try:
        return bool(spec.accepts(number.value))
    except Exception:  # noqa: BLE001 - a value the validator cannot judge is kept (validation sees it)
        return True


# -- per result: where each grounded value sits in the source -------------------------------------


@dataclass(frozen=True)
class GroundedValue:
    """A grounded value of a document: its instance ``pointer``, the ``value``, and the span
    ``start:end`` (code points) of its first occurrence in the source (None: not found)."""

    pointer: str
    value: Any
    start: int | None
    end: int | None
    occurrences: int

    @property
    def found(self) -> bool:
        return self.start is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "value": self.value,
            "start": self.start,
            "end": self.end,
            "occurrences": self.occurrences,
        }


def grounded_values(document: Any, schema: Any, text: str, *, nulls: bool = False) -> list[GroundedValue]:
    """The grounded values of ``document`` (``schema`` as :func:`ground_schema` returns it) with
    their offsets in ``text``. Follows ``properties``, ``items``/``prefixItems``, local ``$ref``s and
    the ``allOf``/``anyOf``/``oneOf`` branches; a value under a member the walk cannot place is
    left out. ``nulls``: a grounded member whose value is ``null`` (nothing in the text, said so)
    is listed too, with no span (a view that shows every grounded member wants it; results don't)."""
    out: list[GroundedValue] = []
    numbers = source_numbers(text)
    _walk(document, schema, schema, "", text, numbers, out, 0, nulls)
    return out


def _resolve(node: Any, root: Any) -> Any:
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
        seen += 1
        if seen > 32:
            return node
        target: Any = root
        for token in node["$ref"][1:].split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            target = target.get(token) if isinstance(target, dict) else None
        if target is None:
            return node
        grounded = node.get(GROUNDED) is True
        node = dict(target, **({GROUNDED: True} if grounded else {}))
    return node


def _walk(
    value: Any,
    node: Any,
    root: Any,
    pointer: str,
    text: str,
    numbers: list[SourceNumber],
    out: list[GroundedValue],
    depth: int,
    nulls: bool = False,
) -> None:
    node = _resolve(node, root)
    if not isinstance(node, dict) or depth > 64:
        return
    grounded = node.get(GROUNDED) is True
    if grounded and value is None and nulls:
        out.append(GroundedValue(pointer, None, None, None, 0))
        return
    if grounded and isinstance(value, str):
        # where the grammar put it: the first occurrence that starts and ends at word boundaries
        # (a value from elsewhere, e.g. an ungrounded run, is looked for anywhere)
        words = word_occurrences(text, value)
        start = words[0] if words else text.find(value)
        found = start >= 0
        out.append(
            GroundedValue(
                pointer,
                value,
                start if found else None,
                start + len(value) if found else None,
                (len(words) or text.count(value)) if value else 0,
            )
        )
        return
    if grounded and isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        exact = _decimal(value)
        hits = [n for n in numbers if n.exact == exact]
        first = hits[0] if hits else None
        out.append(
            GroundedValue(
                pointer, value, first.start if first else None, first.end if first else None, len(hits)
            )
        )
        return
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, []) if isinstance(node.get(key), list) else []:
            before = len(out)
            _walk(value, branch, root, pointer, text, numbers, out, depth + 1, nulls)
            if key != "allOf" and len(out) > before:
                return
    if isinstance(value, dict):
        props: dict[str, Any] = node["properties"] if isinstance(node.get("properties"), dict) else {}
        for k, v in value.items():
            if k in props:
                child = pointer + "/" + k.replace("~", "~0").replace("/", "~1")
                _walk(v, props[k], root, child, text, numbers, out, depth + 1, nulls)
    elif isinstance(value, list):
        prefix: list[Any] = node["prefixItems"] if isinstance(node.get("prefixItems"), list) else []
        items = node.get("items")
        for i, v in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            _walk(v, sub, root, f"{pointer}/{i}", text, numbers, out, depth + 1, nulls)
