"""Repairing broken JSON made without masks, with every change logged as pointer + before/after.

``json-repair`` does the repair (quotes, commas, brackets, comments, Python literals, truncation);
it logs in its own words, so the log here is computed: the broken text is read by a lenient lexer,
the repaired value is written out as canonical tokens that each know their JSON Pointer, and the two
token streams are aligned (``difflib``). Every stretch that is not equal, and every equal string
written with other quotes, is one :class:`RepairChange`. :func:`repair` is only ever called on text
that does not parse (the caller's rule; it checks again and refuses otherwise).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from gramwright.errors import PipelineError
from gramwright.pointer import join_pointer

__all__ = ["Lexeme", "RepairChange", "Repaired", "is_cut", "lex", "repair"]

_OPEN_CLOSE = {'"': '"', "'": "'", "“": "”", "”": "”", "‘": "’", "’": "’", "`": "`", "「": "」"}
_WORDS = {"true": "true", "True": "true", "false": "false", "False": "false", "null": "null", "None": "null"}
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Lexeme:
    kind: str  # one of "{}[]:," | "str" | "num" | "word" | "junk"
    norm: str  # what it stands for (a string's content, a number's value, a literal's JSON name)
    raw: str  # as written
    start: int
    closed: bool = True  # strings: was the closing quote there?


@dataclass(frozen=True)
class RepairChange:
    pointer: str  # where in the repaired document
    op: str  # "insert" | "delete" | "replace" | "quote"
    before: str
    after: str
    offset: int  # character offset in the text given to repair()

    def to_dict(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "op": self.op,
            "before": self.before,
            "after": self.after,
            "offset": self.offset,
        }


@dataclass
class Repaired:
    value: Any
    text: str  # the repaired document, canonical JSON
    changes: list[RepairChange]
    truncated: bool  # the text ended inside a string or an open container: a cut, not a typo


def lex(text: str) -> list[Lexeme]:
    """Lenient tokens of JSON-ish text: any quote style, Python literals, comments as junk."""
    out: list[Lexeme] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "{}[]:,":
            out.append(Lexeme(c, c, c, i))
            i += 1
        elif c in _OPEN_CLOSE:
            close, j, chars = _OPEN_CLOSE[c], i + 1, []
            while j < n and text[j] != close:
                if text[j] == "\\" and j + 1 < n:
                    chars.append(_unescape(text[j : j + 2]))
                    j += 2
                    continue
                chars.append(text[j])
                j += 1
            out.append(Lexeme("str", "".join(chars), text[i : j + 1], i, closed=j < n))
            i = j + 1
        elif text.startswith(("//", "/*"), i):
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i) + 2
            end = n if end <= 1 or end == -1 else end
            out.append(Lexeme("junk", text[i:end], text[i:end], i))
            i = end
        elif m := _NUMBER.match(text, i):
            out.append(Lexeme("num", _number(m.group()), m.group(), i))
            i = m.end()
        elif m := _WORD.match(text, i):
            word = m.group()
            out.append(Lexeme("word", _WORDS.get(word, word), word, i))
            i = m.end()
        else:
            out.append(Lexeme("junk", c, c, i))
            i += 1
    return out


def _unescape(pair: str) -> str:
    try:
        return str(json.loads(f'"{pair}"'))
    except ValueError:
        return pair[1]


def _number(raw: str) -> str:
    try:
        return str(Decimal(raw).normalize())
    except InvalidOperation:
        return raw


def is_cut(lexemes: list[Lexeme]) -> bool:
    """Does the text end inside a string or with a container still open?"""
    if lexemes and lexemes[-1].kind == "str" and not lexemes[-1].closed:
        return True
    depth = 0
    for lx in lexemes:
        depth += (lx.kind in ("{", "[")) - (lx.kind in ("}", "]"))
    return depth > 0


def _canonical(value: Any, at: str = "") -> Iterator[tuple[Lexeme, str]]:
    """The repaired value as lexemes, each with the pointer it belongs to."""
    if isinstance(value, dict):
        yield Lexeme("{", "{", "{", 0), at
        for k, (key, item) in enumerate(value.items()):
            if k:
                yield Lexeme(",", ",", ",", 0), at
            member = join_pointer(at, key)
            yield Lexeme("str", key, json.dumps(key, ensure_ascii=False), 0), member
            yield Lexeme(":", ":", ":", 0), member
            yield from _canonical(item, member)
        yield Lexeme("}", "}", "}", 0), at
    elif isinstance(value, list):
        yield Lexeme("[", "[", "[", 0), at
        for k, item in enumerate(value):
            if k:
                yield Lexeme(",", ",", ",", 0), at
            yield from _canonical(item, join_pointer(at, k))
        yield Lexeme("]", "]", "]", 0), at
    elif isinstance(value, str):
        yield Lexeme("str", value, json.dumps(value, ensure_ascii=False), 0), at
    elif isinstance(value, bool) or value is None:
        word = json.dumps(value)
        yield Lexeme("word", word, word, 0), at
    else:
        raw = json.dumps(value)
        yield Lexeme("num", _number(raw), raw, 0), at


def repair(text: str) -> Repaired:
    """Repair ``text`` (which must not parse) and log each change against the repaired document."""
    try:
        json.loads(text)
    except ValueError:
        pass
    else:
        raise PipelineError("refusing to repair text that already parses", hint="validate it as it is")
    import json_repair

    value = json_repair.repair_json(text, return_objects=True, ensure_ascii=False)
    if value == "" and text.strip() not in ('""', "''"):
        raise PipelineError("no JSON value could be recovered from the text")
    original = lex(text)
    canon = list(_canonical(value))
    changes = list(_changes(text, original, canon))
    return Repaired(value, json.dumps(value, ensure_ascii=False), changes, is_cut(original))


def _changes(text: str, original: list[Lexeme], canon: list[tuple[Lexeme, str]]) -> Iterator[RepairChange]:
    a = [(lx.kind, lx.norm) for lx in original]
    b = [(lx.kind, lx.norm) for lx, _ in canon]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                lx, (target, at) = original[i1 + k], canon[j1 + k]
                if lx.raw != target.raw and not _same_spelling(lx, target):
                    yield RepairChange(
                        at, "quote" if lx.kind == "str" else "replace", lx.raw, target.raw, lx.start
                    )
            continue
        before = (
            text[original[i1].start : original[i2 - 1].start + len(original[i2 - 1].raw)] if i2 > i1 else ""
        )
        after = "".join(lx.raw for lx, _ in canon[j1:j2])
        anchor = canon[j1][1] if j1 < len(canon) else (canon[-1][1] if canon else "")
        offset = original[i1].start if i1 < len(original) else len(text)
        yield RepairChange(anchor, op, before, after, offset)


def _same_spelling(lx: Lexeme, target: Lexeme) -> bool:
    """Equal values written differently but equally valid JSON (``1.50`` vs ``1.5``, escapes)."""
    if lx.kind == "num":
        return (
            _NUMBER.fullmatch(lx.raw) is not None and not lx.raw.endswith(".") and not lx.raw.startswith(".")
        )
    if lx.kind == "str" and lx.raw.startswith('"'):
        try:
            return bool(json.loads(lx.raw) == json.loads(target.raw))
        except ValueError:
            return False
    return False
