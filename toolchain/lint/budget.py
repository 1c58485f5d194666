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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gramwright.lint.facts import declared_types, number

if TYPE_CHECKING:
    from gramwright.lint.context import LintContext, Tokenizer

BYTES_PER_TOKEN = 3.5  # English-ish JSON with SentencePiece/BPE vocabularies of 32k-50k tokens
NUMBER_BYTES = 24  # "-1.7976931348623157e+308"
INTEGER_BYTES = 20  # int64 with sign
MAX_NESTING = 256
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

    def schema(self, schema: Any, pointer: str, depth: int = 0) -> Size:
        if depth > MAX_NESTING:
            raise Unbounded(pointer, "nesting too deep to estimate")
        if schema is True or schema == {}:
            raise Unbounded(pointer, "any JSON value is allowed here")
        if not isinstance(schema, dict):
            return Size(0, 0)
        key = id(schema)
        if key in self._memo:
            return self._memo[key]
        if key in self._failed:
            raise self._failed[key]
        node = self.ctx.index.by_identity.get(key)
        if node is not None:
            pointer = node.pointer
        if key in self._active:
            raise Unbounded(pointer, "recursive $ref")
        self._active.add(key)
        try:
            size = self._schema(schema, pointer, depth)
        except Unbounded as exc:
            self._failed[key] = exc
            raise
        finally:
            self._active.discard(key)
        self._memo[key] = size
        return size

    def _ref_target(self, schema: dict[str, Any]) -> tuple[Any, str] | None:
        node = self.ctx.index.by_identity.get(id(schema))
        if node is None:
            return None
        target = self.ctx.ref_target.get(node.index)
        return (target.schema, target.pointer) if target is not None else None

    def _schema(self, schema: dict[str, Any], pointer: str, depth: int) -> Size:
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
                raise Unbounded(pointer, "unresolved $ref")
            return self.schema(target[0], target[1], depth + 1)
        branches = [
            b
            for k in ("anyOf", "oneOf")
            if isinstance(schema.get(k), list)  # a malformed `anyOf: 1` is meta/invalid-schema's
            for b in schema[k]
            if isinstance(b, dict | bool)
        ]
        if branches:
            sizes = [self.schema(b, f"{pointer}/anyOf", depth + 1) for b in branches]
            return max(sizes, key=lambda s: (s.tokens, s.nbytes))
        types = declared_types(schema)
        if types is None:
            types = self._implied_types(schema)
        if not types:
            raw_all_of = schema.get("allOf")
            all_of = [b for b in raw_all_of if isinstance(b, dict)] if isinstance(raw_all_of, list) else []
            if all_of:
                maybe = [self._maybe(b, pointer, depth) for b in all_of]
                bounded = [s for s in maybe if s is not None]
                if bounded:
                    return min(bounded, key=lambda s: (s.tokens, s.nbytes))
            raise Unbounded(pointer, "no type: any JSON value is allowed here")
        return max(
            (self._typed(t, schema, pointer, depth) for t in types), key=lambda s: (s.tokens, s.nbytes)
        )

    def _maybe(self, schema: Any, pointer: str, depth: int) -> Size | None:
        try:
            return self.schema(schema, pointer, depth + 1)
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

    def _typed(self, t: str, schema: dict[str, Any], pointer: str, depth: int) -> Size:
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
        if t == "array":
            return self._array(schema, pointer, depth)
        if t == "object":
            return self._object(schema, pointer, depth)
        raise Unbounded(pointer, f"unknown type {t!r}")

    def _string(self, schema: dict[str, Any], pointer: str) -> Size:
        quotes = self.text('""')
        max_len = number(schema.get("maxLength"))
        fmt = schema.get("format")
        if max_len is None and isinstance(fmt, str) and fmt in FORMAT_MAX_BYTES:
            max_len = FORMAT_MAX_BYTES[fmt]
        if max_len is None:
            raise Unbounded(pointer, "string without maxLength")
        body = self.filler(int(max_len))
        return Size(quotes.nbytes + body.nbytes, quotes.tokens + body.tokens)

    def _array(self, schema: dict[str, Any], pointer: str, depth: int) -> Size:
        total = self.text("[]")
        nbytes, tokens = total.nbytes, total.tokens
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else None
        items = schema.get("items")
        if isinstance(items, list):  # draft-04..2019-09 tuple form
            prefix, items = items, schema.get("additionalItems", bool(items))
        max_items = number(schema.get("maxItems"))
        count = 0
        for i, sub in enumerate(prefix or []):
            if max_items is not None and i >= max_items:
                break
            s = self.schema(sub, f"{pointer}/prefixItems/{i}", depth + 1)
            nbytes, tokens, count = nbytes + s.nbytes, tokens + s.tokens, count + 1
        rest_allowed = items is not False and (max_items is None or count < max_items)
        if rest_allowed:
            if max_items is None:
                raise Unbounded(pointer, "array without maxItems")
            n = int(max_items) - count
            s = self.schema(items if items is not None else True, f"{pointer}/items", depth + 1)
            nbytes, tokens, count = nbytes + n * s.nbytes, tokens + n * s.tokens, count + n
        comma = self.text(",")
        extra = max(count - 1, 0)
        return Size(nbytes + extra * comma.nbytes, tokens + extra * comma.tokens)

    def _object(self, schema: dict[str, Any], pointer: str, depth: int) -> Size:
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
            v = self.schema(sub, f"{pointer}/properties/{name}", depth + 1)
            sep = comma if i else Size(0, 0)
            nbytes += k.nbytes + colon.nbytes + v.nbytes + sep.nbytes
            tokens += k.tokens + colon.tokens + v.tokens + sep.tokens
        return Size(nbytes, tokens)


def estimate_tokens(ctx: LintContext, tokenizer: Tokenizer | None = None, counter: str = "") -> TokenEstimate:
    """Worst-case output tokens of the document's root schema (``tokens=None``: unbounded)."""
    est = _Estimator(ctx, tokenizer)
    label = counter or ("tokenizer" if tokenizer else f"bytes/{BYTES_PER_TOKEN}")
    try:
        size = est.schema(ctx.schema, "")
    except Unbounded as exc:
        return TokenEstimate(None, None, tokenizer is None, label, exc.pointer, exc.why)
    tokens = size.tokens if tokenizer else math.ceil(size.nbytes / BYTES_PER_TOKEN)
    return TokenEstimate(tokens, size.nbytes, tokenizer is None, label)
