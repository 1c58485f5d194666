"""ECMA-262 regular-expression text → syntax tree (:mod:`gramwright.regex.nodes`).

JSON Schema says a ``pattern`` is an ECMA-262 regex and that patterns use Unicode semantics (the
official suite tests ``\\p{Letter}`` and astral characters as single characters). So this parser reads:

* **code-point semantics** of the ``u`` flag: ``.`` and classes match one code point, a
  ``\\uD83D\\uDC32`` escape pair is one astral character, ``\\u{1F432}`` and ``\\p{…}`` are escapes;
* the **Annex B leniencies** of the flag-less grammar, which real-world schemas lean on: identity
  escapes of any character (``\\-``, ``\\/``, ``\\a``), literal ``{``, ``}`` and ``]``, legacy octal
  escapes, ``\\c`` without a letter as a backslash, class escapes as range ends (``[\\d-z]``).

Where Python's ``re`` (what python-jsonschema validates with) reads the same text differently, a
note starting with :data:`ECMA_READING` says so; the translation always follows ECMA-262. Text that
no ECMA-262 reading accepts (``(?i)``, ``(?P<n>…)``, ``a**``, ``[z-a]``) raises
:class:`RegexSyntaxError`.
"""

from __future__ import annotations

from gramwright.regex import charsets as cs
from gramwright.regex.errors import INVALID_REGEX, RegexSyntaxError, RegexUnsupported
from gramwright.regex.nodes import (
    Anchor,
    BackReference,
    Chars,
    Choice,
    Lookaround,
    Node,
    Quantified,
    Sequence,
)

ECMA_READING = "ECMA-262 reading"

_SYNTAX_CHARS = frozenset("^$\\.*+?()[]{}|")
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_CLASS_ESCAPES: dict[str, tuple[cs.Ranges, bool]] = {
    "d": (cs.DIGIT, False),
    "D": (cs.DIGIT, True),
    "w": (cs.WORD, False),
    "W": (cs.WORD, True),
    "s": (cs.SPACE, False),
    "S": (cs.SPACE, True),
}
# Letters whose escape means something else to Python's re than ECMA's identity escape.
_PYTHON_LETTER_ESCAPES = {
    "a": "BEL (U+0007)",
    "A": "start of string",
    "Z": "end of string",
    "N": "a named character \\N{…}",
    "U": "an 8-digit code point escape",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
_DIGITS = frozenset("0123456789")


def parse(pattern: str) -> tuple[Node, list[str]]:
    """Parse ``pattern``; returns the tree and the notes on ECMA-vs-Python readings."""
    parser = _Parser(pattern)
    node = parser.disjunction()
    if parser.pos < len(pattern):
        # Only an unbalanced ")" stops a top-level disjunction early.
        raise parser.error("unmatched ')'")
    return node, parser.notes


def _scan_groups(pattern: str) -> tuple[int, bool]:
    """Number of capturing groups and whether any is named (decides what ``\\1``/``\\k`` mean)."""
    count, named, i, n = 0, False, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c == "(":
            if not pattern.startswith("?", i + 1):
                count += 1
            elif pattern.startswith("?<", i + 1) and not pattern.startswith(("?<=", "?<!"), i + 1):
                count += 1
                named = True
        i += 1
    return count, named


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.pos = 0
        self.notes: list[str] = []
        self.group_count, self.has_named_groups = _scan_groups(pattern)
        self.group_names: set[str] = set()

    # -- helpers -------------------------------------------------------------------------------
    def error(self, reason: str, position: int | None = None) -> RegexSyntaxError:
        where = self.pos if position is None else position
        return RegexSyntaxError(f"{INVALID_REGEX}: {reason}", where, self.text)

    def note(self, text: str) -> None:
        line = f"{ECMA_READING}: {text}"
        if line not in self.notes:
            self.notes.append(line)

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.text[i] if i < len(self.text) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    # -- disjunction / alternative / term ------------------------------------------------------
    def disjunction(self) -> Node:
        branches = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.alternative())
        return branches[0] if len(branches) == 1 else Choice(tuple(branches))

    def alternative(self) -> Node:
        items: list[Node] = []
        while not self.at_end() and self.peek() not in "|)":
            items.append(self.term())
        return items[0] if len(items) == 1 else Sequence(tuple(items))

    def term(self) -> Node:
        start = self.pos
        c = self.peek()
        if c == "^":
            self.pos += 1
            return self.no_quantifier(Anchor("start", start))
        if c == "$":
            self.pos += 1
            return self.no_quantifier(Anchor("end", start))
        if c == "\\" and self.peek(1) in ("b", "B"):
            self.pos += 2
            boundary = self.text[start + 1] == "b"
            return self.no_quantifier(Anchor("word_boundary" if boundary else "not_word_boundary", start))
        if self.text.startswith(("(?=", "(?!", "(?<=", "(?<!"), start):
            behind = self.text.startswith("(?<", start)
            self.pos += 4 if behind else 3
            inner = self.disjunction()
            self.expect_close(start)
            look = Lookaround(inner, not behind, self.text[start + (3 if behind else 2)] == "!", start)
            # Annex B lets a lookahead carry a quantifier; the node is unsupported either way.
            return self.quantifier(look, start) if not behind else self.no_quantifier(look)
        atom = self.atom()
        return self.quantifier(atom, start)

    def no_quantifier(self, node: Node) -> Node:
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self.braced_quantifier() is not None):
            raise self.error("nothing to repeat (a quantifier after an assertion)")
        return node

    def expect_close(self, opened: int) -> None:
        if self.peek() != ")":
            raise self.error("unterminated group", opened)
        self.pos += 1

    # -- quantifiers ---------------------------------------------------------------------------
    def braced_quantifier(self) -> tuple[int, int | None, int] | None:
        """``{n}``, ``{n,}``, ``{n,m}`` at the cursor → (min, max, length), else ``None``."""
        text, i = self.text, self.pos + 1
        j = i
        while j < len(text) and text[j] in _DIGITS:
            j += 1
        if j == i:
            return None
        lo = int(text[i:j])
        if j < len(text) and text[j] == "}":
            return lo, lo, j + 1 - self.pos
        if j >= len(text) or text[j] != ",":
            return None
        k = j + 1
        while k < len(text) and text[k] in _DIGITS:
            k += 1
        if k >= len(text) or text[k] != "}":
            return None
        hi = int(text[j + 1 : k]) if k > j + 1 else None
        return lo, hi, k + 1 - self.pos

    def quantifier(self, atom: Node, start: int) -> Node:
        c = self.peek()
        if c in ("*", "+", "?"):
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.pos += 1
        elif c == "{":
            braced = self.braced_quantifier()
            if braced is None:
                if self.text.startswith("{,", self.pos):
                    self.note("'{,n}' is the literal text '{,n}' (Python's re reads it as {0,n})")
                return atom
            lo, hi, length = braced
            if hi is not None and hi < lo:
                raise self.error(f"numbers out of order in {{{lo},{hi}}} quantifier")
            self.pos += length
        else:
            return atom
        lazy = self.peek() == "?"
        if lazy:
            self.pos += 1
        nxt = self.peek()
        if nxt in ("*", "+", "?") or (nxt == "{" and self.braced_quantifier() is not None):
            raise self.error("nothing to repeat (two quantifiers in a row)")
        return Quantified(atom, lo, hi, lazy, start)

    # -- atoms ---------------------------------------------------------------------------------
    def atom(self) -> Node:
        start = self.pos
        c = self.peek()
        if c == ".":
            self.pos += 1
            return Chars(cs.LINE_TERMINATORS, negated=True)
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.atom_escape()
        if c in ("*", "+", "?"):
            raise self.error(f"nothing to repeat before '{c}'")
        if c == "{" and self.braced_quantifier() is not None:
            raise self.error("nothing to repeat before '{'")
        self.pos += 1
        return Chars(cs.single(self.code_point_at(start)))

    def code_point_at(self, start: int) -> int:
        """The pattern character at ``start`` (a surrogate pair of str chars is joined)."""
        cp = ord(self.text[start])
        if 0xD800 <= cp <= 0xDBFF and start + 1 < len(self.text):
            low = ord(self.text[start + 1])
            if 0xDC00 <= low <= 0xDFFF:
                self.pos = start + 2
                return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
        return cp

    def group(self) -> Node:
        start = self.pos
        if self.text.startswith("(?:", start):
            self.pos += 3
        elif self.text.startswith("(?<", start):
            end = self.text.find(">", start + 3)
            name = self.text[start + 3 : end] if end > 0 else ""
            if not _is_group_name(name):
                raise self.error(f"bad group name {name!r}", start)
            if name in self.group_names:
                raise self.error(f"duplicate group name {name!r}", start)
            self.group_names.add(name)
            self.note("(?<name>…) is a named group (Python's re spells it (?P<name>…))")
            self.pos = end + 1
        elif self.text.startswith("(?", start):
            raise self.error(f"'{self.text[start : start + 3]}' is not ECMA-262 group syntax", start)
        else:
            self.pos += 1
        inner = self.disjunction()
        self.expect_close(start)
        return inner

    # -- escapes -------------------------------------------------------------------------------
    def atom_escape(self) -> Node:
        start = self.pos
        if start + 1 >= len(self.text):
            raise self.error("'\\' at end of pattern")
        c = self.text[start + 1]
        if c in "123456789":
            j = start + 1
            while j < len(self.text) and self.text[j] in _DIGITS:
                j += 1
            number = int(self.text[start + 1 : j])
            if number <= self.group_count:
                self.pos = j
                return BackReference(number, start)
        if c == "k" and self.has_named_groups:
            end = self.text.find(">", start + 2)
            if not self.text.startswith("<", start + 2) or end < 0:
                raise self.error("\\k must be followed by <name>", start)
            self.pos = end + 1
            return BackReference(self.text[start + 3 : end], start)
        return self.character_escape(in_class=False)

    def character_escape(self, *, in_class: bool) -> Chars:
        """The escape at the cursor (``\\`` included) as a set; consumes it."""
        start = self.pos
        c = self.text[start + 1]
        self.pos = start + 2
        if c in _CLASS_ESCAPES:
            ranges, negated = _CLASS_ESCAPES[c]
            return Chars(ranges, negated)
        if c in ("p", "P") and self.peek() == "{":
            end = self.text.find("}", self.pos)
            if end < 0:
                raise self.error("unterminated \\p{…} property escape", start)
            spec = self.text[self.pos + 1 : end]
            ranges_or_none = cs.unicode_property(spec)
            if ranges_or_none is None:
                raise RegexUnsupported(
                    f"Unicode property \\p{{{spec}}} is not supported (only General_Category values,"
                    " Any, ASCII and Assigned have tables here)",
                    start,
                    self.text,
                )
            self.pos = end + 1
            self.note("\\p{…} is a Unicode property escape (Python's re has none)")
            return Chars(ranges_or_none, c == "P")
        if c in _CONTROL_ESCAPES:
            return Chars(cs.single(_CONTROL_ESCAPES[c]))
        if c == "b" and in_class:
            return Chars(cs.single(0x08))
        if c == "c":
            letter = self.peek()
            if letter.isascii() and letter.isalpha():
                self.pos += 1
                self.note("\\cX is a control escape (Python's re has none)")
                return Chars(cs.single(ord(letter) % 32))
            if in_class and (letter in _DIGITS or letter == "_"):
                self.pos += 1
                self.note("\\c with a digit or '_' in a class is an Annex B control escape")
                return Chars(cs.single(ord(letter) % 32))
            # Annex B: "\c" not followed by a control letter is a literal backslash; "c" comes next.
            self.pos = start + 1
            self.note("'\\c' without a letter is a literal backslash (Annex B)")
            return Chars(cs.single(0x5C))
        if c == "0" and self.peek() not in _DIGITS:
            return Chars(cs.single(0))
        if c in _DIGITS:
            return self.legacy_octal(start)
        if c == "x":
            digits = self.text[self.pos : self.pos + 2]
            if len(digits) == 2 and all(d in _HEX for d in digits):
                self.pos += 2
                return Chars(cs.single(int(digits, 16)))
            self.note("'\\x' without two hex digits is the letter 'x' (Python's re: error)")
            return Chars(cs.single(ord("x")))
        if c == "u":
            return Chars(cs.single(self.unicode_escape(start)))
        if c == "k":
            self.note("'\\k' without named groups is the letter 'k' (Annex B)")
        elif c in _PYTHON_LETTER_ESCAPES:
            self.note(f"'\\{c}' is the identity escape '{c}' (Python's re reads {_PYTHON_LETTER_ESCAPES[c]})")
        elif c == "B" and in_class:
            self.note("'\\B' in a class is the letter 'B' (Python's re: error)")
        elif c.isascii() and c.isalnum():
            self.note(f"'\\{c}' is the identity escape '{c}' (Python's re: bad escape)")
        self.pos = start + 1
        return Chars(cs.single(self.code_point_after_backslash()))

    def code_point_after_backslash(self) -> int:
        start = self.pos
        self.pos += 1
        return self.code_point_at(start)

    def legacy_octal(self, start: int) -> Chars:
        """Annex B: ``\\8``/``\\9`` are identity escapes; other digits start an octal escape."""
        c = self.text[start + 1]
        if c in "89":
            self.note(f"'\\{c}' is the digit '{c}' (Python's re: group reference)")
            return Chars(cs.single(ord(c)))
        limit = 3 if c in "0123" else 2
        j = start + 1
        while j < len(self.text) and j - (start + 1) < limit and self.text[j] in _OCTAL:
            j += 1
        self.pos = j
        if c != "0" or j - (start + 1) > 1:
            self.note(f"'{self.text[start:j]}' is a legacy octal escape (Annex B)")
        return Chars(cs.single(int(self.text[start + 1 : j], 8)))

    def unicode_escape(self, start: int) -> int:
        """``\\uHHHH`` (a surrogate pair of them is one code point), ``\\u{H…}``, else the letter u."""
        text = self.text
        if self.peek() == "{":
            end = text.find("}", self.pos)
            digits = text[self.pos + 1 : end] if end > 0 else ""
            if digits and all(d in _HEX for d in digits) and int(digits, 16) <= cs.MAX_CP:
                self.pos = end + 1
                self.note("\\u{…} is a code-point escape (Unicode mode; Python's re: error)")
                return int(digits, 16)
        digits = text[self.pos : self.pos + 4]
        if len(digits) == 4 and all(d in _HEX for d in digits):
            self.pos += 4
            unit = int(digits, 16)
            low_digits = text[self.pos + 2 : self.pos + 6]
            if (
                0xD800 <= unit <= 0xDBFF
                and text.startswith("\\u", self.pos)
                and len(low_digits) == 4
                and all(d in _HEX for d in low_digits)
                and 0xDC00 <= int(low_digits, 16) <= 0xDFFF
            ):
                self.pos += 6
                self.note("a \\uHHHH\\uHHHH surrogate pair is one astral code point (Python's re: two)")
                return 0x10000 + ((unit - 0xD800) << 10) + (int(low_digits, 16) - 0xDC00)
            return unit
        self.note("'\\u' without four hex digits is the letter 'u' (Python's re: error)")
        return ord("u")

    # -- character classes ---------------------------------------------------------------------
    def char_class(self) -> Chars:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        parts: list[cs.Ranges] = []
        while True:
            if self.at_end():
                raise self.error("unterminated character class", start)
            if self.peek() == "]":
                self.pos += 1
                break
            first = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                dash = self.pos
                self.pos += 1
                second = self.class_atom()
                if _is_single(first) and _is_single(second):
                    lo, hi = first.ranges[0][0], second.ranges[0][0]
                    if lo > hi:
                        raise self.error("character class range out of order", dash)
                    parts.append(((lo, hi),))
                    continue
                self.note("a class escape as a range end makes '-' a literal (Annex B; Python's re: error)")
                parts.extend((_resolve(first), cs.single(0x2D), _resolve(second)))
                continue
            parts.append(_resolve(first))
        if start + 1 == self.pos - 1 or (negated and start + 2 == self.pos - 1):
            self.note("'[]' matches nothing and '[^]' any character (Python's re: ']' is literal)")
        return Chars(cs.union(*parts), negated)

    def class_atom(self) -> Chars:
        if self.peek() == "\\":
            if self.pos + 1 >= len(self.text):
                raise self.error("'\\' at end of pattern")
            if self.peek(1) == "-":
                self.pos += 2
                return Chars(cs.single(0x2D))
            return self.character_escape(in_class=True)
        start = self.pos
        self.pos += 1
        return Chars(cs.single(self.code_point_at(start)))


def _is_single(chars: Chars) -> bool:
    return not chars.negated and len(chars.ranges) == 1 and chars.ranges[0][0] == chars.ranges[0][1]


def _resolve(chars: Chars) -> cs.Ranges:
    return cs.complement(chars.ranges) if chars.negated else chars.ranges


def _is_group_name(name: str) -> bool:
    return bool(name) and name.replace("$", "_").isidentifier()
