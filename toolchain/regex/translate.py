"""Syntax tree of an ECMA-262 regex → grammar IR expression over code points.

Semantics (what JSON Schema's ``pattern`` means, read as ECMA-262 with Unicode semantics):

* **Search, not full match.** A schema pattern is not anchored: with ``search=True`` a side that is
  not pinned by ``^``/``$`` gets ``[any]*`` — any code point, newlines included, since a JSON
  string may hold any character. ``search=False`` asks for a full match (used for ``format``
  grammars written as regexes).
* **Anchors anywhere.** Every path through the pattern is tracked with two flags: "passed a ``^``"
  and "passed a ``$``". A ``^`` is satisfiable only if the path consumed nothing before it (and the
  match then starts at offset 0), a ``$`` only if nothing is consumed after it. So ``(^a|b)c`` and
  ``a|^b$`` translate exactly. Anchors inside a repetition are exact for small bounds (``(^a)*``,
  ``(x|^)?``) and unsupported beyond that (never seen in practice).
* ``\\b``/``\\B`` are dropped (the language is widened, ``exact=False``); lookaround and
  backreferences raise :class:`RegexUnsupported` (``widen_lookaround=True`` drops lookarounds
  instead, again widening).
* **Classes as sets.** ``\\d`` = ``[0-9]``, ``\\w`` = ``[A-Za-z0-9_]``, ``\\s`` = ECMA WhiteSpace +
  LineTerminator, ``.`` = any code point but ``\\n \\r \\u2028 \\u2029``, ``$`` only at the very end
  (Python's ``re`` differs on all of these; the suite tests the ECMA reading).
* **Surrogates.** IR code points are Unicode scalar values: UTF-8 (what the byte-level recognizer
  reads) cannot encode U+D800–DFFF. Positive classes drop the surrogate block, so a lone-surrogate
  escape matches nothing; negated classes are kept as written (``[^"]``) and their surrogate part is
  simply unreachable. A ``\\uD83D\\uDC32`` pair is one astral character (the parser joins it). A JSON
  text could smuggle a lone surrogate in as a ``\\uD800`` escape; no grammar built here produces one.
* **Bounded repetition.** ``Repeat`` keeps bounds natively; the recognizer unrolls them. A
  repetition counts its copies times those of the repetitions nested in its body
  (``(?:a{1,10}b){1,20}`` is 200). Above ``max_repeat`` (default 1,000; the schema compiler passes
  its own option) the repetition loses its upper bound and, if needed, part of its lower bound: a
  superset, reported with ``exact=False``. What a copy costs depends on its body: the recognizer
  builds one byte trie per class copy (``[a-z]`` 1 path, ``.`` 15, ``\\p{L}`` 786). Measured here
  (2 cores): ``[a-z]{1,20000}`` compiles in 0.07 s, ``.{0,1000}`` 0.1 s, ``\\p{L}{0,20}`` 0.17 s,
  ``\\p{L}{1,1000}`` 3.6 s, ``.{0,10000}`` 8.5 s.
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.grammar.ir import (
    EMPTY,
    Alt,
    CharClass,
    Expr,
    Literal,
    Ref,
    Seq,
    alt,
    char_class,
    repeat,
    seq,
)
from gramwright.regex import charsets as cs
from gramwright.regex.errors import RegexUnsupported
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
from gramwright.regex.parser import parse

DEFAULT_MAX_REPEAT = 1000
# Anchors inside a repetition are unrolled; beyond this bound the pattern is unsupported.
_MAX_ANCHORED_UNROLL = 4

WIDENED = "widened"
_SURROGATE_NOTE = "a lone surrogate (U+D800–DFFF) matches nothing: UTF-8 text cannot contain one"
NOTHING: Expr = CharClass(())  # the empty language: no code point is in an empty positive class
ANY_CHAR: Expr = char_class((), negated=True)  # GBNF "."; the recognizer skips surrogates
ANY_STRING: Expr = repeat(ANY_CHAR, 0, None)

# A path's flags: (passed a "^", passed a "$").
_Key = tuple[bool, bool]
_FREE: _Key = (False, False)
_START: _Key = (True, False)
_END: _Key = (False, True)
_BOTH: _Key = (True, True)
# The strings a sub-pattern consumes, per flags; a missing key means no such path.
_Branches = dict[_Key, Expr]


@dataclass(frozen=True)
class RegexResult:
    """``expr`` accepts the strings (code points) the pattern accepts; ``exact`` is False when the
    language was widened, and ``notes`` then says how. Notes starting with "ECMA-262 reading" flag
    text that Python's ``re`` reads differently (the expression follows ECMA-262)."""

    expr: Expr
    exact: bool
    notes: list[str]


def regex_to_expr(
    pattern: str,
    *,
    search: bool = True,
    max_repeat: int | None = DEFAULT_MAX_REPEAT,
    widen_lookaround: bool = False,
) -> RegexResult:
    """Translate an ECMA-262 ``pattern``; raises :class:`RegexUnsupported` (or its subclass
    ``RegexSyntaxError`` for text that is not a regex at all) with the offending offset."""
    translator = _Translator(pattern, max_repeat, widen_lookaround)
    try:
        tree, notes = parse(pattern)
        branches = translator.node(tree)
    except RecursionError:
        raise RegexUnsupported("pattern nested too deeply to translate", 0, pattern) from None
    notes = notes + translator.notes
    if not branches:
        notes.append("the pattern matches no string")
        return RegexResult(NOTHING, True, notes)
    expr = _search(branches) if search else alt(*branches.values())
    return RegexResult(expr, translator.exact, notes)


def _search(branches: _Branches) -> Expr:
    """Unanchored sides get ``[any]*``; a nullable unanchored branch accepts every string."""
    if any(key != _BOTH and nullable(expr) for key, expr in branches.items()):
        return ANY_STRING
    parts: list[Expr] = []
    for (anchored_start, anchored_end), expr in branches.items():
        parts.append(
            _seq(
                EMPTY if anchored_start else ANY_STRING,
                expr,
                EMPTY if anchored_end else ANY_STRING,
            )
        )
    return alt(*parts)


class _Translator:
    def __init__(self, pattern: str, max_repeat: int | None, widen_lookaround: bool) -> None:
        self.pattern = pattern
        self.max_repeat = max_repeat
        self.widen_lookaround = widen_lookaround
        self.exact = True
        self.notes: list[str] = []

    def widen(self, note: str) -> None:
        self.exact = False
        line = f"{WIDENED}: {note}"
        if line not in self.notes:
            self.notes.append(line)

    def unsupported(self, reason: str, position: int) -> RegexUnsupported:
        return RegexUnsupported(reason, position, self.pattern)

    def node(self, node: Node) -> _Branches:
        if isinstance(node, Chars):
            expr = self.chars(node)
            return {} if expr is None else {_FREE: expr}
        if isinstance(node, Sequence):
            result: _Branches = {_FREE: EMPTY}
            for item in node.items:
                result = _concat(result, self.node(item))
                if not result:
                    break
            return result
        if isinstance(node, Choice):
            return _union(*(self.node(item) for item in node.items))
        if isinstance(node, Quantified):
            return self.quantified(node)
        if isinstance(node, Anchor):
            if node.kind == "start":
                return {_START: EMPTY}
            if node.kind == "end":
                return {_END: EMPTY}
            self.widen(f"word-boundary assertion at offset {node.position} dropped")
            return {_FREE: EMPTY}
        if isinstance(node, Lookaround):
            kind = ("lookahead" if node.ahead else "lookbehind") + (" (negative)" if node.negative else "")
            if self.widen_lookaround:
                self.widen(f"{kind} at offset {node.position} dropped")
                return {_FREE: EMPTY}
            raise self.unsupported(f"{kind} cannot be expressed in a context-free grammar", node.position)
        if isinstance(node, BackReference):
            raise self.unsupported(
                f"backreference \\{node.ref} cannot be expressed in a context-free grammar", node.position
            )
        raise AssertionError(f"unknown regex node {node!r}")

    def chars(self, node: Chars) -> Expr | None:
        """A class as IR: surrogates dropped, one code point as a literal, and a negated class
        kept negated (``[^"]``) unless its positive form is the shorter one (``[^\\W]``)."""
        written = cs.subtract(node.ranges, cs.SURROGATES)
        members = cs.subtract(cs.complement(written), cs.SURROGATES) if node.negated else written
        if not members:
            if not node.negated and node.ranges and _SURROGATE_NOTE not in self.notes:
                self.notes.append(_SURROGATE_NOTE)
            return None
        if len(members) == 1 and members[0][0] == members[0][1]:
            return Literal(chr(members[0][0]))
        if members == cs.SCALAR_VALUES:
            return ANY_CHAR
        if node.negated and len(written) <= len(members):
            return char_class(written, negated=True)
        return char_class(members)

    def quantified(self, node: Quantified) -> _Branches:
        body = self.node(node.item)
        if set(body) <= {_FREE}:
            if _FREE not in body:
                return {_FREE: EMPTY} if node.min == 0 else {}
            return {_FREE: self.bounded(body[_FREE], node.min, node.max, node.position)}
        if node.min > _MAX_ANCHORED_UNROLL or (node.max is not None and node.max > _MAX_ANCHORED_UNROLL):
            raise self.unsupported("an anchor inside a repetition with large bounds", node.position)
        result: _Branches = {_FREE: EMPTY}
        for _ in range(node.min):
            result = _concat(result, body)
        if node.max is None:
            return _concat(result, _star(body))
        optional = _union(body, {_FREE: EMPTY})
        for _ in range(node.max - node.min):
            result = _concat(result, optional)
        return result

    def bounded(self, item: Expr, lo: int, hi: int | None, position: int) -> Expr:
        if self.max_repeat is not None:
            inner = repetitions(item)
            copies = hi if hi is not None else lo
            if inner * copies > self.max_repeat:
                new_lo = min(lo, self.max_repeat // inner)
                shown = f"{{{lo}}}" if lo == hi else f"{{{lo},{'' if hi is None else hi}}}"
                self.widen(
                    f"repetition {shown} at offset {position} became {{{new_lo},}}"
                    f" ({inner * copies} repetitions > max_repeat {self.max_repeat})"
                )
                lo, hi = new_lo, None
        return repeat(item, lo, hi)


def _concat(left: _Branches, right: _Branches) -> _Branches:
    """Sequence of two sub-patterns: a ``^`` on the right needs an empty left part, a ``$`` on the
    left needs an empty right part."""
    out: dict[_Key, list[Expr]] = {}
    for (left_start, left_end), left_expr in left.items():
        for (right_start, right_end), right_expr in right.items():
            first, second = left_expr, right_expr
            if right_start:
                if not nullable(first):
                    continue
                first = EMPTY
            if left_end:
                if not nullable(second):
                    continue
                second = EMPTY
            key = (left_start or right_start, left_end or right_end)
            out.setdefault(key, []).append(_seq(first, second))
    return {key: alt(*exprs) for key, exprs in out.items()}


def _union(*parts: _Branches) -> _Branches:
    out: dict[_Key, list[Expr]] = {}
    for part in parts:
        for key, expr in part.items():
            out.setdefault(key, []).append(expr)
    return {key: alt(*exprs) for key, exprs in out.items()}


def _star(body: _Branches) -> _Branches:
    """Unbounded repetition of an anchored body: only the first non-empty iteration may pass a
    ``^``, only the last one a ``$``; the iterations between are anchor-free."""
    free = repeat(body[_FREE], 0, None) if _FREE in body else EMPTY
    out: _Branches = {_FREE: free}
    if _START in body:
        out[_START] = _seq(body[_START], free)
    if _END in body:
        out[_END] = _seq(free, body[_END])
    both = [body[_BOTH]] if _BOTH in body else []
    if _START in body and _END in body:
        both.append(_seq(body[_START], free, body[_END]))
    if both:
        out[_BOTH] = alt(*both)
    return out


def _seq(*items: Expr) -> Expr:
    """``seq`` that also joins adjacent literals (``a`` ``b`` → ``"ab"``) for readable GBNF."""
    flat: list[Expr] = []
    for item in items:
        for part in item.items if isinstance(item, Seq) else (item,):
            if isinstance(part, Literal) and flat and isinstance(flat[-1], Literal):
                flat[-1] = Literal(flat[-1].text + part.text)
            else:
                flat.append(part)
    return seq(*flat)


def nullable(expr: Expr) -> bool:
    """Whether ``expr`` accepts the empty string (``Ref`` is not followed: regexes make none)."""
    if isinstance(expr, Literal):
        return expr.text == ""
    if isinstance(expr, CharClass | Ref):
        return False
    if isinstance(expr, Seq):
        return all(nullable(item) for item in expr.items)
    if isinstance(expr, Alt):
        return any(nullable(item) for item in expr.items)
    return expr.min == 0 or nullable(expr.item)


def repetitions(expr: Expr) -> int:
    """Copies of the most repeated leaf once every bounded repetition is unrolled."""
    if isinstance(expr, Literal | CharClass | Ref):
        return 1
    if isinstance(expr, Seq | Alt):
        return max(repetitions(item) for item in expr.items)
    copies = expr.max if expr.max is not None else max(expr.min, 1)
    return repetitions(expr.item) * max(copies, 1)
