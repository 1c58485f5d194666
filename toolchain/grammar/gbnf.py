"""GBNF, the IR's canonical text form: a parser and a canonical emitter (llama.cpp dialect).

The parser follows llama.cpp's ``llama_grammar_parser`` (``src/llama-grammar.cpp``) rule for rule:

* ``#`` starts a comment that runs to the end of the line; spaces and tabs separate symbols.
* A rule is ``name ::= alternatives`` with names ``[a-zA-Z0-9-]+``. A rule ends at the first newline
  outside parentheses; a newline is skipped only right after ``::=``, right after ``|`` and anywhere
  inside ``( )``. So ``a ::= "x" |`` + newline + ``"y"`` continues the rule, ``"x"`` + newline + ``"y"``
  does not (llama.cpp then fails on ``"y"`` as a rule name, and so do we).
* Escapes, in strings and classes alike: ``\\n \\r \\t \\\\ \\" \\[ \\] \\-``, ``\\xHH`` (exactly two
  digits), ``\\uHHHH``, ``\\UHHHHHHHH``. ``[a-]`` is ``a`` or ``-``; ``.`` is any character.
* Quantifiers ``? * + {m} {m,} {m,n}`` apply to the symbol before them and may be stacked
  (``x*?`` is ``(x*)?``). ``{,n}`` is an error, as in llama.cpp (write ``{0,n}``).

Where llama.cpp is silent or lenient we are strict, because the lenient reading is never what the
author meant: a second definition of a rule (llama.cpp silently keeps the last one), an empty class
``[]``/``[^]`` (llama.cpp drops it, so it matches the empty string), a reversed range ``[z-a]``, a
code point above U+10FFFF, a raw NUL and a raw line break inside a string or a class (llama.cpp
reads on to the next ``"``, which turns one missing quote into an error lines later; write ``\\n``)
are errors. Token matches (``<think>``, ``<[id]>``) are tokenizer-specific and not part of the IR:
they are errors too. An error inside a group, string or class that is still open also says where
that began (an unclosed ``(`` is noticed only where its continuation stops parsing).

What the parser builds is the IR's normal form (:mod:`gramwright.grammar.ir`) applied level by level:
a parenthesised group is kept as its inner node (``a (b c)`` is ``Seq(a, Seq(b, c))`` and
``a | (b | c)`` is ``Alt(a, Alt(b, c))``), empty literals are dropped from sequences, duplicate
alternatives are dropped (first kept), and ``{1}``/``{0}`` repetitions collapse through
:func:`~gramwright.grammar.ir.repeat`.

The emitter writes one rule per line, root first and then the grammar's rule order, with exactly
the parentheses the tree needs, so ``parse_gbnf(emit_gbnf(g)) == g`` for every normal-form grammar
whose root is its first rule. Escaping is chosen so the text means the same to llama.cpp and to
xgrammar's EBNF parser: printable characters are written as themselves (UTF-8), ``\\n \\r \\t``
by name, every other character as ``\\uHHHH``/``\\UHHHHHHHH`` -- never ``\\xHH``, because xgrammar
reads ``\\x`` greedily (``"\\x01b"`` is U+001B there, U+0001 ``b`` in llama.cpp).

Known differences that no emission choice can hide (see ``tests/grammar/test_gbnf_xgrammar.py``):
xgrammar 0.2.9 rejects ``.`` (it lexes ``.`` as a name character), names that start with a digit,
and the names ``true``/``false`` (boolean literals in its lexer). llama.cpp turns a repetition
maximum above 2000 into "unbounded" and rejects a minimum above 2000; we keep the numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gramwright.errors import GrammarError
from gramwright.grammar.errors import GrammarSyntaxError, UndefinedRuleError
from gramwright.grammar.ir import (
    EMPTY,
    MAX_CODE_POINT,
    Alt,
    CharClass,
    Expr,
    Grammar,
    Literal,
    Ref,
    Repeat,
    Seq,
    char_class,
    repeat,
)
from gramwright.positions import line_col

__all__ = ["emit_gbnf", "emit_rules", "is_rule_name", "parse_gbnf"]

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_NAME_RE = re.compile(r"[a-zA-Z0-9-]+")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-"}
_ESCAPES_HINT = r"one of \n \r \t \\ \" \[ \] \- \xHH \uHHHH \UHHHHHHHH"
_SYMBOL = "a string, a character class, a rule name, '(' or '.'"
# A bounded repetition is unrolled into copies of its body (here and in llama.cpp, whose grammar
# parser refuses past the same MAX_REPETITION_THRESHOLD); nested repetitions multiply. Past it a
# grammar took tens of seconds to check ({99999}) instead of failing at once.
MAX_REPETITION = 2000


def _copies(expr: Expr) -> int:
    """How many copies of its innermost part a (repeated) expression unrolls to."""
    if isinstance(expr, Repeat):
        return max(expr.min, expr.max or 0, 1) * _copies(expr.item)
    if isinstance(expr, Seq | Alt):
        return max((_copies(e) for e in expr.items), default=1)
    return 1


def is_rule_name(name: str) -> bool:
    """True when ``name`` is a valid GBNF rule name (``[a-zA-Z0-9-]+``, llama.cpp's word chars)."""
    return _NAME_RE.fullmatch(name) is not None


# --------------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------------


def parse_gbnf(text: str, source: str = "", root: str = "root") -> Grammar:
    """Parse GBNF ``text`` into a :class:`Grammar` whose start rule is ``root``.

    Rules keep their order in the text, except that ``root`` comes first (the canonical order, the
    one :func:`emit_gbnf` writes), so ``parse_gbnf(emit_gbnf(parse_gbnf(t))) == parse_gbnf(t)``.
    Raises :class:`GrammarSyntaxError` (with line, column and what was expected) for malformed text
    and :class:`UndefinedRuleError` when ``root`` or a referenced rule is not defined.
    """
    rules = _Parser(text, source).parse()
    if not rules:  # said as what it is, not as a missing root rule
        what = "empty" if not text.strip() else "only comments and blank lines"
        raise GrammarError(
            f"the grammar file is {what}: it defines no rules",
            where=source or None,
            hint=f'write at least a {root} rule, e.g. {root} ::= "yes" | "no"',
        )
    if root not in rules:
        raise UndefinedRuleError({root: ["<start>"]}, source)
    grammar = Grammar({root: rules[root], **rules}, root)
    missing = grammar.undefined_refs()
    if missing:
        raise UndefinedRuleError(missing, source)
    return grammar


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self.rule_lines: dict[str, int] = {}
        # the groups, strings and classes being parsed (what, where it began): errors name the
        # innermost one, because an unclosed "(" shows only where its continuation stops parsing
        self.open: list[tuple[str, int]] = []

    # ---- helpers ----------------------------------------------------------------------------

    def _peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.text[i] if i < len(self.text) else ""

    def _line_col(self, pos: int) -> tuple[int, int]:
        return line_col(self.text, pos)

    def _error(
        self, message: str, expected: str, at: int | None = None, unclosed: bool = False
    ) -> GrammarSyntaxError:
        """The error at ``at`` (default: here). It names the innermost open group, string or class
        when that is what was not closed (``unclosed``) or when it began on an earlier line."""
        line, column = self._line_col(self.pos if at is None else at)
        opened = None
        if self.open:
            what, began = self.open[-1]
            began_line, began_column = self._line_col(began)
            if unclosed or began_line < line:
                opened = (what, began_line, began_column)
        return GrammarSyntaxError(
            message,
            line=line,
            column=column,
            expected=expected,
            source=self.source,
            text=self.text,
            opened=opened,
        )

    def _found(self) -> str:
        ch = self._peek()
        return "unexpected end of input" if not ch else f"unexpected {ch!r}"

    def _skip_space(self, newline_ok: bool) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t" or (newline_ok and ch in "\r\n"):
                self.pos += 1
            elif ch == "#":
                while self.pos < n and text[self.pos] not in "\r\n":
                    self.pos += 1
            else:
                break

    def _name(self, expected: str) -> str:
        start = self.pos
        while self._peek() in _NAME_CHARS:
            self.pos += 1
        if self.pos == start:
            raise self._error(self._found(), expected)
        return self.text[start : self.pos]

    def _int(self) -> int:
        start = self.pos
        while self._peek().isascii() and self._peek().isdigit():
            self.pos += 1
        if self.pos == start:
            raise self._error(self._found(), "an integer")
        return int(self.text[start : self.pos])

    # ---- grammar structure ------------------------------------------------------------------

    def parse(self) -> dict[str, Expr]:
        nul = self.text.find("\x00")
        if nul >= 0:
            raise self._error("raw NUL character", r"text without NUL (write it as \u0000)", nul)
        rules: dict[str, Expr] = {}
        self._skip_space(newline_ok=True)
        while self.pos < len(self.text):
            start = self.pos
            name = self._name("a rule name")
            if name in rules:
                first = self.rule_lines[name]
                raise self._error(
                    f"rule {name!r} is already defined on line {first}", "a rule name not defined yet", start
                )
            self.rule_lines[name] = self.text.count("\n", 0, start) + 1
            self._skip_space(newline_ok=False)
            if not self.text.startswith("::=", self.pos):
                raise self._error(self._found(), "'::='")
            self.pos += 3
            self._skip_space(newline_ok=True)
            rules[name] = self._alternates(nested=False)
            if self._peek() == "\r":
                self.pos += 2 if self._peek(1) == "\n" else 1
            elif self._peek() == "\n":
                self.pos += 1
            elif self.pos < len(self.text):
                raise self._error(self._found(), "a symbol, '|', a newline or end of input")
            self._skip_space(newline_ok=True)
        return rules

    def _alternates(self, nested: bool) -> Expr:
        branches = [self._sequence(nested)]
        while self._peek() == "|":
            self.pos += 1
            self._skip_space(newline_ok=True)
            branches.append(self._sequence(nested))
        unique: list[Expr] = []
        for branch in branches:
            if branch not in unique:
                unique.append(branch)
        return unique[0] if len(unique) == 1 else Alt(tuple(unique))

    def _sequence(self, nested: bool) -> Expr:
        items: list[Expr] = []
        while self.pos < len(self.text):
            ch = self._peek()
            start = self.pos
            if ch == '"':
                items.append(self._string())
            elif ch == "[":
                items.append(self._char_class())
            elif ch in _NAME_CHARS:
                items.append(Ref(self._name("a rule name")))
            elif ch == "(":
                self.open.append(("group", self.pos))
                self.pos += 1
                self._skip_space(newline_ok=True)
                items.append(self._alternates(nested=True))
                if self._peek() != ")":
                    raise self._error(self._found(), "a symbol, '|' or ')'", unclosed=True)
                self.pos += 1
                self.open.pop()
            elif ch == ".":
                self.pos += 1
                items.append(char_class((), negated=True))  # normal form: the full range
            elif ch in "*+?{":
                if not items:
                    raise self._error(f"{ch!r} has nothing to repeat", f"{_SYMBOL} before {ch!r}")
                lo, hi = self._quantifier(nested)
                if hi is not None and hi < lo:
                    raise self._error(f"repetition {{{lo},{hi}}} has max < min", "max >= min", start)
                copies = max(lo, hi or 0) * _copies(items[-1])
                if copies > MAX_REPETITION:
                    raise self._error(
                        f"repetition unrolls to {copies} copies (at most {MAX_REPETITION}, as in llama.cpp)",
                        "a smaller count, or '*'/'+' with the length checked after generation",
                        start,
                    )
                items[-1] = repeat(items[-1], lo, hi)
            elif ch in "<!":
                raise self._error("token matches (<...>, !<...>) are not supported", _SYMBOL)
            else:
                break
            self._skip_space(newline_ok=nested)
        kept = [item for item in items if item != EMPTY]
        if not kept:
            return EMPTY
        return kept[0] if len(kept) == 1 else Seq(tuple(kept))

    def _quantifier(self, nested: bool) -> tuple[int, int | None]:
        ch = self._peek()
        self.pos += 1
        if ch == "*":
            return 0, None
        if ch == "+":
            return 1, None
        if ch == "?":
            return 0, 1
        self._skip_space(newline_ok=nested)
        lo = self._int()
        self._skip_space(newline_ok=nested)
        if self._peek() == "}":
            self.pos += 1
            return lo, lo
        if self._peek() != ",":
            raise self._error(self._found(), "',' or '}'")
        self.pos += 1
        self._skip_space(newline_ok=nested)
        hi: int | None = None
        if self._peek().isascii() and self._peek().isdigit():
            hi = self._int()
            self._skip_space(newline_ok=nested)
        if self._peek() != "}":
            raise self._error(self._found(), "an integer or '}'")
        self.pos += 1
        return lo, hi

    # ---- terminals --------------------------------------------------------------------------

    def _char(self) -> int:
        """One (possibly escaped) character inside a string or a class."""
        start = self.pos
        ch = self._peek()
        if ch != "\\":
            self.pos += 1
            return ord(ch)
        esc = self._peek(1)
        if esc in _SIMPLE_ESCAPES:
            self.pos += 2
            return ord(_SIMPLE_ESCAPES[esc])
        width = {"x": 2, "u": 4, "U": 8}.get(esc)
        if width is None:
            shown = f"'\\{esc}'" if esc else "'\\' at end of input"
            raise self._error(f"unknown escape {shown}", _ESCAPES_HINT)
        digits = self.text[self.pos + 2 : self.pos + 2 + width]
        if len(digits) != width or not set(digits) <= _HEX_DIGITS:
            raise self._error(f"bad \\{esc} escape", f"{width} hex digits after '\\{esc}'")
        value = int(digits, 16)
        if value > MAX_CODE_POINT:
            raise self._error(f"code point {value:#x} is outside Unicode", "a code point <= U+10FFFF", start)
        self.pos += 2 + width
        return value

    def _string(self) -> Literal:
        self.open.append(("string", self.pos))
        self.pos += 1
        out: list[str] = []
        while self._peek() != '"':
            self._unclosed("string literal", "'\"' to close the string")
            out.append(chr(self._char()))
        self.pos += 1
        self.open.pop()
        return Literal("".join(out))

    def _unclosed(self, what: str, expected: str) -> None:
        """Inside a string or a class: the end of the input or of the line means it was not closed."""
        ch = self._peek()
        if not ch:
            raise self._error(f"{what} is not closed", expected, unclosed=True)
        if ch in "\r\n":
            raise self._error(
                f"{what} is not closed on its line",
                f"{expected} (a line break is written \\n)",
                unclosed=True,
            )

    def _char_class(self) -> CharClass:
        start = self.pos
        self.open.append(("character class", start))
        self.pos += 1
        negated = self._peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        while self._peek() != "]":
            self._unclosed("character class", "']' to close the class")
            item_start = self.pos
            lo = self._char()
            hi = lo
            if self._peek() == "-" and self._peek(1) not in ("]", ""):
                self.pos += 1
                hi = self._char()
                if hi < lo:
                    raise self._error(
                        f"range {chr(lo)!r}-{chr(hi)!r} is reversed", "a range written low-high", item_start
                    )
            ranges.append((lo, hi))
        self.open.pop()
        if not ranges:
            raise self._error("empty character class", "at least one character before ']'", start)
        self.pos += 1
        return char_class(ranges, negated)


# --------------------------------------------------------------------------------------------------
# Emitter
# --------------------------------------------------------------------------------------------------

# Contexts an expression is written in; they decide which nodes need parentheses.
_TOP, _ALT, _SEQ, _REP = range(4)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


# How one character of a literal is written (given the characters to backslash), and how a
# character class is written: the canonical spelling below, or an export's (``export.gbnf_text``).
CharSpelling = Callable[[str, str], str]
ClassSpelling = Callable[[CharClass], str]


def emit_gbnf(grammar: Grammar) -> str:
    """Canonical GBNF: deterministic, one ``name ::= body`` line per rule, root first.

    Raises :class:`ValueError` for what GBNF cannot write: an invalid rule name, an empty
    non-negated character class (it matches nothing), an empty alternation, bad repeat bounds.
    """
    return emit_rules(grammar, _escape, _emit_class)


def emit_rules(grammar: Grammar, char: CharSpelling, char_class: ClassSpelling) -> str:
    """The GBNF structure (rule lines, root first, the parentheses the tree needs) with
    characters spelled by ``char`` and ``char_class``; raises as :func:`emit_gbnf` does."""
    order = [grammar.root, *(name for name in grammar.rules if name != grammar.root)]
    lines = []
    for name in order:
        if not is_rule_name(name):
            raise ValueError(f"{name!r} is not a GBNF rule name ([a-zA-Z0-9-]+)")
        lines.append(f"{name} ::= {_emit(grammar.rules[name], _TOP, char, char_class)}\n")
    return "".join(lines)


def _emit(expr: Expr, ctx: int, char: CharSpelling, char_class: ClassSpelling) -> str:
    if isinstance(expr, Literal):
        text = '"' + "".join(char(ch, '"\\') for ch in expr.text) + '"'
        # llama.cpp refuses a quantifier right after "" (nothing to repeat), so keep it grouped.
        return f"({text})" if ctx == _REP and not expr.text else text
    if isinstance(expr, CharClass):
        return char_class(expr)
    if isinstance(expr, Ref):
        if not is_rule_name(expr.name):
            raise ValueError(f"reference to {expr.name!r}, which is not a GBNF rule name")
        return expr.name
    if isinstance(expr, Seq | Alt) and len(expr.items) <= 1:
        # Not normal form; write the meaning (the item, or the empty sequence) rather than fail.
        if expr.items:
            return _emit(expr.items[0], ctx, char, char_class)
        if isinstance(expr, Alt):
            raise ValueError("an alternation needs at least one branch")
        return _emit(EMPTY, ctx, char, char_class)
    if isinstance(expr, Seq):
        body = " ".join(_emit(item, _SEQ, char, char_class) for item in expr.items)
        return f"({body})" if ctx in (_SEQ, _REP) else body
    if isinstance(expr, Alt):
        body = " | ".join(_emit(item, _ALT, char, char_class) for item in expr.items)
        return f"({body})" if ctx != _TOP else body
    if isinstance(expr, Repeat):
        body = _emit(expr.item, _REP, char, char_class) + _quantifier(expr.min, expr.max)
        return f"({body})" if ctx == _REP else body
    raise TypeError(f"not a grammar expression: {expr!r}")


def _quantifier(lo: int, hi: int | None) -> str:
    if lo < 0 or (hi is not None and hi < lo):
        raise ValueError(f"bad repetition bounds {{{lo},{hi}}}")
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


def _emit_class(cls: CharClass) -> str:
    if not cls.ranges:
        if cls.negated:  # not normal form; written as the full range so xgrammar can load it
            return _emit_class(CharClass(((0, MAX_CODE_POINT),), False))
        raise ValueError("an empty character class matches nothing and has no GBNF form")
    parts = []
    for lo, hi in cls.ranges:
        parts.append(_escape(chr(lo), "]\\-"))
        if hi == lo + 1:
            parts.append(_escape(chr(hi), "]\\-"))
        elif hi > lo:
            parts.append("-" + _escape(chr(hi), "]\\-"))
    # A leading '^' would negate the class; llama.cpp has no '\^' escape.
    if not cls.negated and parts[0] == "^":
        parts[0] = "\\u005E"
    return "[" + ("^" if cls.negated else "") + "".join(parts) + "]"


def _escape(ch: str, specials: str) -> str:
    if ch in specials:
        return "\\" + ch
    if ch in _NAMED:
        return _NAMED[ch]
    if ch.isprintable():
        return ch
    cp = ord(ch)
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"
