"""Worst-case output size of a schema: the longest instance an engine could be made to generate.

The instance is built compositionally: every optional property present, strings at ``maxLength``,
arrays at ``maxItems``, the longest ``enum``/``const`` value, the longest branch of ``anyOf``/``oneOf``,
compact JSON (no whitespace: our engine bounds it). Strings are filled with ordinary prose, so the
figure is "a long answer", not an adversarial token sequence. Assumptions, stated where they matter:

* a property not declared in ``properties`` is never generated unless ``additionalProperties`` says so
  explicitly (absent means closed here; an explicit open object is unbounded);
* numbers take at most ``NUMBER_BYTES`` (integers: the digits their bounds allow);
* without a tokenizer, tokens ≈ bytes / ``BYTES_PER_TOKEN`` and the result is flagged approximate.

With a tokenizer each JSON fragment (punctuation, key, value) is encoded separately and the counts
summed; merges across fragments are lost, so the count is an upper bound of the same instance.
"""

from __future__ import annotations

import json
import math
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gramwright.lint.facts import declared_types, number
from gramwright.lint.regex import pattern_max_length
from gramwright.pointer import join_pointer

if TYPE_CHECKING:
    from gramwright.lint.context import LintContext, Tokenizer

BYTES_PER_TOKEN = 3.5  # English-ish JSON with SentencePiece/BPE vocabularies of 32k-50k tokens
NUMBER_BYTES = 24  # "-1.7976931348623157e+308"
INTEGER_BYTES = 20  # int64 with sign
_FILLER = (
    "The quick brown fox jumps over the lazy dog while the committee reviews the quarterly figures "
    "and notes that delivery dates, unit prices and supplier names were checked against the order. "
)
# Longest textual form of the formats that have one (RFC 3339, RFC 4122, RFC 1123, RFC 4291).
FORMAT_MAX_BYTES: dict[str, int] = {
    "date": 10,
    "time": 21,
    "date-time": 35,
    "uuid": 36,
    "ipv4": 15,
    "ipv6": 45,
    "hostname": 253,
    "duration": 40,
}


@dataclass(frozen=True, slots=True)
class Size:
    nbytes: int
    tokens: int  # 0 when counting without a tokenizer


class Unbounded(Exception):
    def __init__(self, pointer: str, why: str) -> None:
        super().__init__(why)
        self.pointer = pointer
        self.why = why


@dataclass(frozen=True, slots=True)
class TokenEstimate:
    tokens: int | None  # None: unbounded
    nbytes: int | None
    approximate: bool
    counter: str
    unbounded_pointer: str = ""
    unbounded_why: str = ""


# A subschema's estimate is a generator: it yields ``(subschema, pointer)`` for each part it needs
# and is sent that part's size (or has the part's Unbounded thrown in). _Estimator.size_of drives
# them with an explicit stack, so a schema nested deeper than Python's recursion limit is
# estimated like any other (the linter must report on a deep schema, not crash on it).
_Steps = Generator[tuple[Any, str], Size, Size]


class _Estimator:
    def __init__(self, ctx: LintContext, tokenizer: Tokenizer | None) -> None:
        self.ctx = ctx
        self.tokenizer = tokenizer
        self._text: dict[str, Size] = {}
        self._memo: dict[int, Size] = {}
        self._active: set[int] = set()
        self._failed: dict[int, Unbounded] = {}

    def text(self, fragment: str) -> Size:
        hit = self._text.get(fragment)
        if hit is None:
            tokens = len(self.tokenizer.encode(fragment, add_special_tokens=False)) if self.tokenizer else 0
            hit = self._text[fragment] = Size(len(fragment.encode("utf-8")), tokens)
        return hit

    def filler(self, chars: int) -> Size:
        whole, rest = divmod(chars, len(_FILLER))
        a = self.text(_FILLER)
        b = self.text(_FILLER[:rest])
        return Size(a.nbytes * whole + b.nbytes, a.tokens * whole + b.tokens)

    def size_of(self, schema: Any, pointer: str) -> Size:
        """The worst-case size of ``schema``'s instances; raises :class:`Unbounded`."""
        stack: list[tuple[_Steps, int]] = []
        # None: a generator was just pushed and waits for its first send
        outcome: Size | Unbounded | None = self._open(schema, pointer, stack)
        while stack:
            steps, key = stack[-1]
            try:
                request = steps.throw(outcome) if isinstance(outcome, Unbounded) else steps.send(outcome)  # type: ignore[arg-type]  # None primes a fresh generator
            except StopIteration as done:
                stack.pop()
                self._active.discard(key)
                outcome = self._memo[key] = done.value
                continue
            except Unbounded as exc:
                stack.pop()
                self._active.discard(key)
                outcome = self._failed[key] = exc
                continue
            outcome = self._open(request[0], request[1], stack)
        if isinstance(outcome, Unbounded):
            raise outcome
        assert outcome is not None
        return outcome

    def _open(self, schema: Any, pointer: str, stack: list[tuple[_Steps, int]]) -> Size | Unbounded | None:
        """A size known at once (a leaf, a memo hit, a failure), or ``None`` after pushing the
        subschema's steps."""
        if schema is True or schema == {}:
            return Unbounded(pointer, "any JSON value is allowed here")
        if not isinstance(schema, dict):
            return Size(0, 0)
        key = id(schema)
        if key in self._memo:
            return self._memo[key]
        if key in self._failed:
            return self._failed[key]
        node = self.ctx.index.by_identity.get(key)
        if node is not None:
            pointer = node.pointer
        if key in self._active:
            return Unbounded(pointer, "recursive $ref")
        self._active.add(key)
        stack.append((self._schema(schema, pointer), key))
        return None

    def _ref_target(self, schema: dict[str, Any]) -> tuple[Any, str] | None:
        node = self.ctx.index.by_identity.get(id(schema))
        if node is None:
            return None
        target = self.ctx.ref_target.get(node.index)
        return (target.schema, target.pointer) if target is not None else None

    def _unfollowed(self, schema: dict[str, Any]) -> str:
        """Why the estimate stops at this ``$ref``: a reference into another document (which the
        compiler may well resolve: the estimate reads this document only) is not an error."""
        node = self.ctx.index.by_identity.get(id(schema))
        site = self.ctx.ref_by_node.get(node.index) if node is not None else None
        if site is not None and site.kind == "external":
            return f"$ref {schema['$ref']!r} into another document, not estimated"
        return "unresolved $ref"

    def _schema(self, schema: dict[str, Any], pointer: str) -> _Steps:
        if "const" in schema:
            return self.text(json.dumps(schema["const"], ensure_ascii=False, separators=(",", ":")))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            sizes = [
                self.text(json.dumps(v, ensure_ascii=False, separators=(",", ":"))) for v in schema["enum"]
            ]
            return max(sizes, key=lambda s: (s.tokens, s.nbytes))
        if isinstance(schema.get("$ref"), str):
            target = self._ref_target(schema)
            if target is None:
                raise Unbounded(pointer, self._unfollowed(schema))
            return (yield target)
        branches = [
            (join_pointer(pointer, k, i), b)
            for k in ("anyOf", "oneOf")
            if isinstance(schema.get(k), list)  # a malformed `anyOf: 1` is meta/invalid-schema's
            for i, b in enumerate(schema[k])
            if isinstance(b, dict | bool)
        ]
        if branches:
            sizes = []
            for where, branch in branches:
                sizes.append((yield (branch, where)))
            return max(sizes, key=lambda s: (s.tokens, s.nbytes))
        types = declared_types(schema)
        if types is None:
            types = self._implied_types(schema)
        if not types:
            raw_all_of = schema.get("allOf")
            all_of = [b for b in raw_all_of if isinstance(b, dict)] if isinstance(raw_all_of, list) else []
            if all_of:
                bounded = []
                for i, member in enumerate(all_of):
                    size = yield from self._maybe(member, join_pointer(pointer, "allOf", i))
                    if size is not None:
                        bounded.append(size)
                if bounded:
                    return min(bounded, key=lambda s: (s.tokens, s.nbytes))
            raise Unbounded(pointer, "no type: any JSON value is allowed here")
        typed = []
        for t in types:
            typed.append((yield from self._typed(t, schema, pointer)))
        return max(typed, key=lambda s: (s.tokens, s.nbytes))

    def _maybe(self, schema: Any, pointer: str) -> Generator[tuple[Any, str], Size, Size | None]:
        try:
            return (yield (schema, pointer))
        except Unbounded:
            return None

    @staticmethod
    def _implied_types(schema: dict[str, Any]) -> frozenset[str]:
        if "properties" in schema:
            return frozenset({"object"})
        if "items" in schema or "prefixItems" in schema:
            return frozenset({"array"})
        if "maxLength" in schema or "pattern" in schema:
            return frozenset({"string"})
        return frozenset()

    def _typed(self, t: str, schema: dict[str, Any], pointer: str) -> _Steps:
        if t == "array":
            return (yield from self._array(schema, pointer))
        if t == "object":
            return (yield from self._object(schema, pointer))
        return self._scalar(t, schema, pointer)

    def _scalar(self, t: str, schema: dict[str, Any], pointer: str) -> Size:
        if t == "null":
            return self.text("null")
        if t == "boolean":
            return self.text("false")
        if t == "integer":
            bounds = [
                abs(v) for v in (number(schema.get(k)) for k in ("minimum", "maximum")) if v is not None
            ]
            neg = number(schema.get("minimum"))
            if len(bounds) == 2:
                digits = len(str(int(max(bounds)))) + (1 if neg is not None and neg < 0 else 0)
                return self.text("-98765432109876543210"[-digits:])
            return self.text("-9876543210987654321"[:INTEGER_BYTES])
        if t == "number":
            return self.text("-1.7976931348623157e+308"[:NUMBER_BYTES])
        if t == "string":
            return self._string(schema, pointer)
        raise Unbounded(pointer, f"unknown type {t!r}")

    def _string(self, schema: dict[str, Any], pointer: str) -> Size:
        quotes = self.text('""')
        max_len = number(schema.get("maxLength"))
        fmt = schema.get("format")
        if max_len is None and isinstance(fmt, str) and fmt in FORMAT_MAX_BYTES:
            max_len = FORMAT_MAX_BYTES[fmt]
        pattern = schema.get("pattern")
        # a pattern whose language is finite (`^[A-Z]{3}$`) bounds the string as maxLength does
        longest = pattern_max_length(pattern) if isinstance(pattern, str) else None
        if longest is not None:
            max_len = longest if max_len is None else min(max_len, longest)
        if max_len is None:
            raise Unbounded(pointer, "string without maxLength or a bounded pattern")
        body = self.filler(int(max_len))
        return Size(quotes.nbytes + body.nbytes, quotes.tokens + body.tokens)

    def _array(self, schema: dict[str, Any], pointer: str) -> _Steps:
        total = self.text("[]")
        nbytes, tokens = total.nbytes, total.tokens
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else None
        prefix_kw = "prefixItems"
        items = schema.get("items")
        if isinstance(items, list):  # draft-04..2019-09 tuple form
            prefix, items, prefix_kw = items, schema.get("additionalItems", bool(items)), "items"
        max_items = number(schema.get("maxItems"))
        count = 0
        for i, sub in enumerate(prefix or []):
            if max_items is not None and i >= max_items:
                break
            s = yield (sub, join_pointer(pointer, prefix_kw, i))
            nbytes, tokens, count = nbytes + s.nbytes, tokens + s.tokens, count + 1
        rest_allowed = items is not False and (max_items is None or count < max_items)
        if rest_allowed:
            if max_items is None:
                raise Unbounded(pointer, "array without maxItems")
            n = int(max_items) - count
            s = yield (items if items is not None else True, join_pointer(pointer, "items"))
            nbytes, tokens, count = nbytes + n * s.nbytes, tokens + n * s.tokens, count + n
        comma = self.text(",")
        extra = max(count - 1, 0)
        return Size(nbytes + extra * comma.nbytes, tokens + extra * comma.tokens)

    def _object(self, schema: dict[str, Any], pointer: str) -> _Steps:
        props: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        extra = schema.get("additionalProperties")
        if extra not in (None, False) or schema.get("patternProperties") or (not props and extra is None):
            raise Unbounded(pointer, "object accepts properties of unbounded number or names")
        braces = self.text("{}")
        nbytes, tokens = braces.nbytes, braces.tokens
        comma, colon = self.text(","), self.text(":")
        for i, (name, sub) in enumerate(props.items()):
            if sub is False:
                continue
            k = self.text(json.dumps(name, ensure_ascii=False))
            v = yield (sub, join_pointer(pointer, "properties", name))
            sep = comma if i else Size(0, 0)
            nbytes += k.nbytes + colon.nbytes + v.nbytes + sep.nbytes
            tokens += k.tokens + colon.tokens + v.tokens + sep.tokens
        return Size(nbytes, tokens)


def estimate_tokens(ctx: LintContext, tokenizer: Tokenizer | None = None, counter: str = "") -> TokenEstimate:
    """Worst-case output tokens of the document's root schema (``tokens=None``: unbounded)."""
    est = _Estimator(ctx, tokenizer)
    label = counter or ("tokenizer" if tokenizer else f"bytes/{BYTES_PER_TOKEN}")
    try:
        size = est.size_of(ctx.schema, "")
    except Unbounded as exc:
        return TokenEstimate(None, None, tokenizer is None, label, exc.pointer, exc.why)
    tokens = size.tokens if tokenizer else math.ceil(size.nbytes / BYTES_PER_TOKEN)
    return TokenEstimate(tokens, size.nbytes, tokenizer is None, label)
