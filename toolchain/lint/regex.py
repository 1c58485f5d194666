"""What lint needs to know about a JSON Schema ``pattern`` (ECMA-262 regex): is it valid, anchored,
bounded (and how long its longest match is), and does it use features grammars cannot express.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache

from gramwright.grammar.ir import Alt, CharClass, Expr, Literal, Repeat, Seq
from gramwright.regex import RegexUnsupported, regex_to_expr

_ECMA_ONLY = (
    (re.compile(r"\\[pP]\{[^}]*\}"), r"\\w"),  # Unicode property escapes: any class-safe stand-in
    (re.compile(r"\(\?<(?![=!])"), "(?P<"),  # named groups
    (re.compile(r"\\k<([^>]*)>"), r"(?P=\1)"),  # named backreferences
    (re.compile(r"\[\^\]"), r"[\\s\\S]"),  # ECMA's "any character" class
    (re.compile(r"\\c[A-Za-z]"), r"\\x01"),  # control escapes
    (re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}"), r"\\x{\1}"),
)


@lru_cache(maxsize=4096)
def regex_error(pattern: str) -> str | None:
    """Why ``pattern`` is not a valid regular expression, or ``None``. ECMA-only syntax that Python's
    ``re`` lacks (``\\p{L}``, ``(?<name>``, ``[^]``) is translated first, so it is not reported."""
    text = pattern
    for rx, repl in _ECMA_ONLY:
        text = rx.sub(repl, text)
    text = re.sub(r"\\x\{([0-9A-Fa-f]{1,6})\}", lambda m: "\\U" + m.group(1).rjust(8, "0"), text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # FutureWarnings about nested sets are not errors
            re.compile(text)
    except re.error as exc:
        return str(exc)
    except (OverflowError, RecursionError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True, slots=True)
class PatternFacts:
    anchored_start: bool
    anchored_end: bool
    unbounded: bool  # has * + or {n,}
    max_repeat: int  # largest finite {n,m} bound (0 when none)
    lookaround: bool
    backreference: bool
    word_boundary: bool

    @property
    def anchored(self) -> bool:
        return self.anchored_start and self.anchored_end


@lru_cache(maxsize=4096)
def pattern_facts(pattern: str) -> PatternFacts:
    """A single left-to-right scan that tracks escapes and character classes."""
    i, n = 0, len(pattern)
    in_class = False
    unbounded = lookaround = backref = boundary = False
    max_repeat = 0
    end_anchor = False
    while i < n:
        c = pattern[i]
        end_anchor = False
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if not in_class:
                if nxt in "bB":
                    boundary = True
                elif (nxt.isdigit() and nxt != "0") or (nxt == "k" and pattern[i + 2 : i + 3] == "<"):
                    backref = True
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "(" and pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            lookaround = True
        elif c in "*+":
            unbounded = True
        elif c == "{":
            m = re.match(r"\{(\d+)(,(\d*))?\}", pattern[i:])
            if m:
                if m.group(2) is not None and m.group(3) == "":
                    unbounded = True
                bound = int(m.group(3) or m.group(1))
                max_repeat = max(max_repeat, bound)
                i += m.end()
                continue
        elif c == "$":
            end_anchor = True
        i += 1
    return PatternFacts(
        anchored_start=pattern.startswith("^"),
        anchored_end=end_anchor,
        unbounded=unbounded,
        max_repeat=max_repeat,
        lookaround=lookaround,
        backreference=backref,
        word_boundary=boundary,
    )


@lru_cache(maxsize=4096)
def pattern_max_length(pattern: str) -> int | None:
    """The most characters a string matching ``pattern`` (searched, as JSON Schema does) can have,
    or ``None`` when there is no bound: ``^[A-Z]{3}$`` → 3, ``^[A-Za-z0-9-]{1,39}$`` → 39,
    ``[a-z]{3}`` (unanchored: anything may surround it) and ``^a+$`` → ``None``. Read from the
    regex package's translation, the one the compiler uses; lookarounds and ``\\b`` are dropped
    there, which only widens the language, so the bound still holds. A pattern it cannot
    translate (backreferences, invalid syntax) has no bound here."""
    try:
        expr = regex_to_expr(pattern, max_repeat=None, widen_lookaround=True).expr
        longest = _longest(expr)
    except (RegexUnsupported, RecursionError):
        return None
    if longest == math.inf:
        return None
    # a pattern that matches nothing leaves no string at all: 0 is a bound
    return 0 if longest == -math.inf else int(longest)


def _longest(expr: Expr) -> float:
    """Longest string of ``expr`` in code points; ``inf`` unbounded, ``-inf`` for no string at all."""
    if isinstance(expr, Literal):
        return len(expr.text)
    if isinstance(expr, CharClass):
        return 1 if expr.effective_ranges() else -math.inf
    if isinstance(expr, Seq):
        return sum((_longest(item) for item in expr.items), 0.0)
    if isinstance(expr, Alt):
        return max(_longest(item) for item in expr.items)
    if isinstance(expr, Repeat):
        item = _longest(expr.item)
        if item == -math.inf:
            return 0 if expr.min == 0 else -math.inf
        if item == 0:
            return 0
        return math.inf if expr.max is None else item * expr.max
    return math.inf  # a rule reference (regexes make none): no bound known
