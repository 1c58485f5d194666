"""A JSON Schema as a compact type definition for the prompt (what the model reads, not what it obeys).

The grammar enforces the structure; the prompt only has to tell the model what the members *mean*.
JSON Schema text spends most of its tokens on keyword names, quotes and nesting (``{"type":
"string"}`` for ``string``). Type-definition renderings such as BAML's ``ctx.output_format`` say the
same in a fraction of the tokens; this one is in that style::

    {
      // who sells it
      supplier: string (≤ 64 chars),
      urgency?: "普通" | "加急" | "特急",
      items: [
        {
          name: string,
          qty: integer (≥ 1),
        }
      ] (1..200 items),
    }

``name?:`` marks an optional member, ``// …`` the description of what follows (a member, a
named type, the answer). A local
``$ref`` to an object or enum definition becomes a named type (``type Name = …``) written once
before the answer's type, so recursion and shared definitions cost one rendering each. What a
prompt does not need — ``if``/``then``/``else``, ``not``, ``dependent*``, ``$comment``, examples —
is left out: the mask and the validator still apply every keyword.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, TypeGuard
from urllib.parse import unquote

__all__ = ["MAX_DESCRIPTION", "render_compact"]

MAX_DESCRIPTION = 160  # characters of a description kept (a long one is cut with "…")
_MAX_PATTERN = 60  # longer patterns are not shown (the grammar enforces them)
_MAX_ENUM = 40  # values shown of a long enum
_MAX_DEPTH = 24  # nesting levels rendered
_SCALARS = ("string", "integer", "number", "boolean", "null")


def render_compact(schema: Any) -> str:
    """The type definition of ``schema``: named definitions first, then the answer's type."""
    return _Renderer(schema).render()


class _Renderer:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.names: dict[str, str] = {}  # pointer of a named definition → its name
        self.order: list[str] = []  # pointers, in the order they were first met
        self.used: set[str] = set()
        self.merging: set[str] = set()  # definitions being merged into an allOf object

    def render(self) -> str:
        body = self.type_of(self.root, 0)
        parts: list[str] = []
        done: set[str] = set()
        # a definition met while rendering another one is added to the list: render until none is new
        while len(done) < len(self.order):
            for pointer in list(self.order):
                if pointer in done:
                    continue
                done.add(pointer)
                target = _resolve(self.root, pointer)
                about = "".join(f"// {line}\n" for line in _description(target))
                parts.append(f"{about}type {self.names[pointer]} = {self.type_of(target, 0, named=pointer)}")
        about = "".join(f"// {line}\n" for line in _description(self.root))
        if "" in self.names:  # the root refers to itself: it is a named type already
            body, about = self.names[""], ""
        if not parts:
            return about + body
        return "\n\n".join([*parts, f"{about}answer: {body}"])

    # -- one subschema -------------------------------------------------------------------------
    def type_of(self, s: Any, depth: int, *, named: str | None = None) -> str:
        if depth > _MAX_DEPTH:
            return "…"  # deeper than any prompt needs (and than Python's recursion allows)
        if s is True or s == {}:
            return "any JSON value"
        if s is False:
            return "nothing (no value is allowed)"
        if not isinstance(s, Mapping):
            return "any JSON value"
        ref = s.get("$ref")
        if isinstance(ref, str) and named is None:
            shown = self.reference(ref, depth)
            rest = {k: v for k, v in s.items() if k not in ("$ref", "description", "title")}
            if not _asserts(rest):
                return shown
            return f"{shown} & {self.type_of(rest, depth)}"
        if "const" in s:
            return _literal(s["const"])
        if isinstance(s.get("enum"), list):
            return _enum(s["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(s.get(key), list) and s[key]:
                return self.union(s, key, depth)
        if isinstance(s.get("allOf"), list) and s["allOf"]:
            return self.all_of(s, depth)
        types = s.get("type")
        if isinstance(types, list):
            each = [self.typed(s, t, depth) for t in types if isinstance(t, str)]
            return " | ".join(dict.fromkeys(each)) or "any JSON value"
        if isinstance(types, str):
            return self.typed(s, types, depth)
        if any(k in s for k in ("properties", "additionalProperties", "patternProperties", "required")):
            return self.typed(s, "object", depth)
        if any(k in s for k in ("items", "prefixItems", "minItems", "maxItems")):
            return self.typed(s, "array", depth)
        return "any JSON value"

    def typed(self, s: Mapping[str, Any], t: str, depth: int) -> str:
        if t == "object":
            return self.object(s, depth)
        if t == "array":
            return self.array(s, depth)
        return t + _notes(_scalar_notes(s, t))

    def union(self, s: Mapping[str, Any], key: str, depth: int) -> str:
        branches = [self.type_of(b, depth) for b in s[key]]
        base = {k: v for k, v in s.items() if k != key and k not in ("description", "title")}
        out = " | ".join(dict.fromkeys(branches))
        if _asserts(base) and "type" in base and not any(k in base for k in ("properties", "items")):
            return out  # e.g. {"type": "string", "anyOf": [{"format": …}, …]}: the branches say it
        if _asserts(base):
            return f"({out}) & {self.type_of(base, depth)}"
        return out

    def all_of(self, s: Mapping[str, Any], depth: int) -> str:
        """Inline objects are merged into one; a named type stays a name (``Base & {…}``: a
        definition used in many places is written once); anything else is an intersection."""
        derefs = [self.deref(m) for m in s["allOf"]]
        members = [m for m, _ in derefs]
        pointers = {p for _, p in derefs if p is not None}
        rest = {k: v for k, v in s.items() if k != "allOf"}
        merged: dict[str, Any] = {}
        named = any(_worth_naming(m) for m, p in derefs if p is not None)
        # a definition already being merged (``Foo: allOf [$ref Foo, …]``) is shown by name
        for m in [*members, rest] if not (named or pointers & self.merging) else [None]:
            if not isinstance(m, Mapping):
                break
            if any(k in m for k in ("anyOf", "oneOf", "allOf", "$ref", "enum", "const")):
                break
            for key, value in m.items():
                if key == "properties" and isinstance(value, Mapping):
                    props = merged.setdefault("properties", {})
                    for name, sub in value.items():
                        # a member two parts describe must satisfy both
                        props[name] = {"allOf": [props[name], sub]} if name in props else sub
                elif key == "required" and isinstance(value, list):
                    merged["required"] = [*merged.get("required", []), *value]
                else:
                    merged.setdefault(key, value)
        else:
            self.merging |= pointers
            try:
                return self.type_of(merged, depth)
            finally:
                self.merging -= pointers
        shown = [self.type_of(m, depth) for m in s["allOf"]]
        if _asserts({k: v for k, v in rest.items() if k not in ("description", "title")}):
            shown.append(self.type_of(rest, depth))
        return " & ".join(dict.fromkeys(shown))

    def object(self, s: Mapping[str, Any], depth: int) -> str:
        props = s.get("properties")
        props = props if isinstance(props, Mapping) else {}
        required = s.get("required")
        required_set = set(required) if isinstance(required, list) else set()
        lines: list[str] = []
        pad = "  " * (depth + 1)
        for name, sub in props.items():
            lines.extend(f"{pad}// {line}" for line in _description(sub))
            mark = "" if name in required_set else "?"
            lines.append(f"{pad}{_key(name)}{mark}: {self.type_of(sub, depth + 1)},")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in props:
                lines.append(f"{pad}{_key(name)}: any JSON value,")
        extra = self.extra_members(s, depth + 1)
        if extra:
            lines.append(f"{pad}{extra}")
        notes = _notes(_count_notes(s, "minProperties", "maxProperties", "members"))
        value = s.get("additionalProperties")
        if not props and not s.get("patternProperties") and value not in (None, False, True, {}):
            return f"map<string, {self.type_of(value, depth)}>" + notes  # a map, written as one
        if not lines:
            return "object" + notes if extra is None else "{}" + notes
        close = "  " * depth + "}"
        return "{\n" + "\n".join(lines) + "\n" + close + notes

    def extra_members(self, s: Mapping[str, Any], depth: int) -> str | None:
        """The line for undeclared members: ``None`` when the object says nothing of them."""
        shown: list[str] = []
        patterns = s.get("patternProperties")
        if isinstance(patterns, Mapping):
            for pattern, sub in patterns.items():
                shown.append(f"[key matching {_short_pattern(pattern)}]: {self.type_of(sub, depth)},")
        extra = s.get("additionalProperties", s.get("unevaluatedProperties"))
        if extra is False:
            return " ".join(shown) if shown else ""
        if extra is not None and extra is not True and extra != {}:
            shown.append(f"[other key: string]: {self.type_of(extra, depth)},")
        elif extra is not None:
            shown.append("[other key: string]: any JSON value,")
        return " ".join(shown) if shown else None

    def array(self, s: Mapping[str, Any], depth: int) -> str:
        notes = _notes(_count_notes(s, "minItems", "maxItems", "items") + _unique(s))
        prefix = s.get("prefixItems")
        items = s.get("items")
        if isinstance(items, list):  # draft-04 … 2019-09 tuple form
            prefix, items = items, s.get("additionalItems")
        if isinstance(prefix, list) and prefix:
            shown = [self.type_of(p, depth) for p in prefix]
            if items is not None and items is not False:
                shown.append(f"...{self.element(items, depth)}")
            return "[" + ", ".join(shown) + "]" + notes
        if items is None or items is True or items == {}:
            return "array" + notes
        return self.element(items, depth) + notes

    def element(self, items: Any, depth: int) -> str:
        """An array's element type: an object is written inside the brackets, as the model writes
        it (``[ {…} ]``); a union is parenthesised before ``[]``."""
        shown = self.type_of(items, depth + 1)
        if shown.startswith("{\n"):
            pad = "  " * depth
            return "[\n" + pad + "  " + shown + "\n" + pad + "]"
        if " | " in shown or " & " in shown:
            return f"({shown})[]"
        return shown + "[]"

    # -- references ----------------------------------------------------------------------------
    def reference(self, ref: str, depth: int) -> str:
        pointer = _local_pointer(ref)
        if pointer is None:
            return f"{ref.rsplit('/', 1)[-1] or ref} (defined elsewhere)"
        target = _resolve(self.root, pointer)
        if target is _MISSING:
            return "any JSON value"
        if not _worth_naming(target):
            if pointer in self.used:  # a cycle through inline definitions: stop here
                return "any JSON value"
            self.used.add(pointer)
            try:
                return self.type_of(target, depth)
            finally:
                self.used.discard(pointer)
        if pointer not in self.names:
            self.names[pointer] = self.fresh_name(pointer, target)
            self.order.append(pointer)
        return self.names[pointer]

    def deref(self, s: Any) -> tuple[Any, str | None]:
        """``s`` with a bare local ``$ref`` followed, and the pointer it ended at."""
        seen: set[str] = set()
        at: str | None = None
        while isinstance(s, Mapping) and isinstance(s.get("$ref"), str) and len(s) == 1:
            pointer = _local_pointer(s["$ref"])
            if pointer is None or pointer in seen:
                return s, at
            seen.add(pointer)
            target = _resolve(self.root, pointer)
            if target is _MISSING:
                return s, at
            s, at = target, pointer
        return s, at

    def fresh_name(self, pointer: str, target: Any) -> str:
        """A short type name: a one-word title, else the definition's last name part
        (Kubernetes' ``io.k8s.api.core.v1.PodSpec`` → ``PodSpec``; the root: ``Root``); a clash
        gets a number (the name only has to be unique in this prompt)."""
        title = target.get("title") if isinstance(target, Mapping) else None
        short = isinstance(title, str) and 0 < len(title.strip()) <= 24 and " " not in title.strip()
        raw = title.strip() if short and isinstance(title, str) else pointer.rsplit("/", 1)[-1] or "Root"
        raw = unquote(raw).replace("~1", "/").replace("~0", "~")
        words = [w for w in re.split(r"[./:#]+", raw) if w]
        word = words[-1] if words else raw
        if word.startswith("_") or word.count("_") >= 4:  # a flattened URL: ``https:__…_v1_PodSpec``
            word = word.strip("_").rsplit("_", 1)[-1]
        base = re.sub(r"\W+", "_", word).strip("_") or "Type"
        name, n = base, 2
        while name in self.names.values():
            name, n = f"{base}{n}", n + 1
        return name


_MISSING = object()


def _local_pointer(ref: str) -> str | None:
    if ref == "#":
        return ""
    if ref.startswith("#/"):
        return ref[1:]
    return None


def _resolve(root: Any, pointer: str) -> Any:
    node = root
    for token in pointer.split("/")[1:] if pointer else []:
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _worth_naming(target: Any) -> bool:
    """Objects and enums get a name (they are long and often shared); scalars are inlined."""
    if not isinstance(target, Mapping):
        return False
    if isinstance(target.get("enum"), list) and len(target["enum"]) > 1:
        return True
    return "properties" in target or any(k in target for k in ("anyOf", "oneOf", "allOf"))


def _asserts(s: Mapping[str, Any]) -> bool:
    ignored = {"$schema", "$id", "$comment", "$defs", "definitions", "examples", "default", "x-runtime"}
    return any(k not in ignored and not k.startswith("x-") for k in s)


def _description(s: Any) -> list[str]:
    """The description's first sentence (where the meaning usually is), on one line, without
    "More info: URL" tails; cut at :data:`MAX_DESCRIPTION` characters."""
    if not isinstance(s, Mapping):
        return []
    text = s.get("description")
    if not isinstance(text, str) or not text.strip():
        return []
    text = " ".join(text.split())
    text = _MARKDOWN_LINK.sub(r"\1", _MORE_INFO.sub("", text))
    text = " ".join(_URL.sub("", text).split())  # an address tells the model nothing it can use
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    first = _SENTENCE_END.split(text, maxsplit=1)[0]
    text = first if len(first) >= 20 else text  # "e.g." or a tiny first sentence: keep going
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return [text] if text else []


_URL = re.compile(r"\(?<?https?://[^\s)>]+>?\)?")
_MARKDOWN_LINK = re.compile(r"\[([^\]]+)\]\((?:https?://|#|/)[^)\s]*\)")
_MORE_INFO = re.compile(r"\s*(More info|See|Ref(erence)?):?\s+https?://\S+", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]][.!?])\s+(?=[A-Z])|(?<=[。！？])")


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_$][\w$-]*", name) else json.dumps(name, ensure_ascii=False)


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _enum(values: list[Any]) -> str:
    shown = [_literal(v) for v in values[:_MAX_ENUM]]
    more = f" | … ({len(values) - _MAX_ENUM} more)" if len(values) > _MAX_ENUM else ""
    return " | ".join(shown) + more if shown else "nothing (empty enum)"


def _short_pattern(pattern: str) -> str:
    return f"/{pattern}/" if len(pattern) <= _MAX_PATTERN else "a pattern"


def _scalar_notes(s: Mapping[str, Any], t: str) -> list[str]:
    notes: list[str] = []
    if t == "string":
        if isinstance(s.get("format"), str):
            notes.append(s["format"])
        if isinstance(s.get("pattern"), str) and len(s["pattern"]) <= _MAX_PATTERN:
            notes.append(f"/{s['pattern']}/")
        notes.extend(_count_notes(s, "minLength", "maxLength", "chars"))
    elif t in ("integer", "number"):
        lo, hi = s.get("minimum"), s.get("maximum")
        xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
        if _number(xlo):
            notes.append(f"> {xlo}")
        elif _number(lo):
            notes.append(f"≥ {lo}")
        if _number(xhi):
            notes.append(f"< {xhi}")
        elif _number(hi):
            notes.append(f"≤ {hi}")
        if _number(s.get("multipleOf")):
            notes.append(f"multiple of {s['multipleOf']}")
    return notes


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count_notes(s: Mapping[str, Any], lo_key: str, hi_key: str, unit: str) -> list[str]:
    given_lo, given_hi = s.get(lo_key), s.get(hi_key)
    lo = given_lo if _number(given_lo) and given_lo > 0 else None
    hi = given_hi if _number(given_hi) else None
    if lo is not None and hi is not None:
        return [f"{lo} {unit}" if lo == hi else f"{lo}..{hi} {unit}"]
    if lo is not None:
        return [f"≥ {lo} {unit}"]
    if hi is not None:
        return [f"≤ {hi} {unit}"]
    return []


def _unique(s: Mapping[str, Any]) -> list[str]:
    return ["unique"] if s.get("uniqueItems") is True else []


def _notes(notes: list[str]) -> str:
    return f" ({', '.join(notes)})" if notes else ""
