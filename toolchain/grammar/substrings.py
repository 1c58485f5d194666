"""Grammar rules whose language is the substrings of one text: the grounded values' grammar.

A suffix automaton over the text's code points (Blumer et al.; at most ``2n`` states and ``3n``
transitions for ``n`` code points, built in linear time) recognises exactly the text's
substrings, and every state of it may end one. Each state becomes one right-linear rule::

    s7 ::= "" | "a" s8 | "\\"" s12 | …

so the recognizer's tail calls keep a walk through it one frame deep, and the token engine sees
one rule state per automaton state. A transition writes its character the way the JSON string
grammar does (``json.dumps`` canonical form: ``\\"``, ``\\\\``, ``\\n`` …, other control
characters as ``\\u00xx``), so the decoded string value is the substring itself.

**Word boundaries.** A value starts and ends only where a word of the text does: never between
two letters or digits of a script written with spaces (``Berlin`` from ``going to Berlin.``, not
``erl``; ``RM123456789GB``, not ``123456789``); every character of a script written without
spaces (CJK, kana, Thai, …) is a word of its own, so ``深圳`` is a value of ``寄往深圳。``. The
boundaries are marked in the text with a character it does not contain before the automaton is
built; a walk must start after a mark and may only end before one, and the marks inside a value
are skipped (whether two characters have a boundary between them depends on the two only, so
skipping one is never ambiguous). The model's tokens mostly break at the same places, and a
value cut inside a word (a number read out of a code, a city cut short) is nearly always a
wrong value.

Length bounds (``minLength``/``maxLength``) are enforced by pairing each state with the length
walked so far, saturated at the bound that needs counting (``maxLength`` when given, else
``minLength``). The paired automaton has one state per distinct substring no longer than the
bound, which stays small for short bounds; past :data:`PAIR_LIMIT` pairs the bounds are not
built into the grammar (the caller reports them as approximated, validation checks them).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from dataclasses import dataclass

from gramwright.grammar.ir import EMPTY, CharClass, Expr, Ref, alt, literal, seq

__all__ = [
    "PAIR_LIMIT",
    "SubstringGraph",
    "SubstringRules",
    "SuffixAutomaton",
    "json_escape",
    "substring_graph",
    "substring_rules",
    "word_chunks",
    "word_occurrences",
]

PAIR_LIMIT = 40_000  # paired (state, length) rules built at most for one length-bounded member
NOTHING: Expr = CharClass(())  # the empty language


@dataclass(frozen=True, eq=False)
class SuffixAutomaton:
    """``nxt[v]``: character → state; ``length[v]``: the longest substring ending in ``v``."""

    nxt: tuple[dict[str, int], ...]
    length: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.nxt)


@functools.lru_cache(maxsize=64)
def suffix_automaton(text: str) -> SuffixAutomaton:
    """The suffix automaton of ``text`` (cached per text: a retry or a second member reuses it)."""
    nxt: list[dict[str, int]] = [{}]
    link: list[int] = [-1]
    length: list[int] = [0]
    last = 0
    for ch in text:
        cur = len(nxt)
        nxt.append({})
        length.append(length[last] + 1)
        link.append(0)
        p = last
        while p != -1 and ch not in nxt[p]:
            nxt[p][ch] = cur
            p = link[p]
        if p != -1:
            q = nxt[p][ch]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(nxt)
                nxt.append(dict(nxt[q]))
                length.append(length[p] + 1)
                link.append(link[q])
                while p != -1 and nxt[p].get(ch) == q:
                    nxt[p][ch] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    return SuffixAutomaton(tuple(nxt), tuple(length))


# scripts written without spaces between words: each character is a word of its own
_UNSPACED = ("CJK", "IDEOGRAPHIC", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "THAI", "LAO", "KHMER")


@functools.lru_cache(maxsize=8192)
def _wordy(ch: str) -> bool:
    """A character that continues a word of a script written with spaces (letters, digits,
    combining marks)."""
    if not (ch.isalnum() or unicodedata.category(ch).startswith("M")):
        return False
    return ord(ch) < 0x2E80 or not unicodedata.name(ch, "").startswith(_UNSPACED)


def _boundary(left: str, right: str) -> bool:
    """Whether a value may start or end between ``left`` and ``right`` (adjacent in the text)."""
    return not (_wordy(left) and _wordy(right))


def word_occurrences(text: str, value: str) -> list[int]:
    """Where ``value`` occurs in ``text`` starting and ending at word boundaries (the offsets of
    its first code points; the empty value: nowhere)."""
    out: list[int] = []
    start = text.find(value) if value else -1
    while start >= 0:
        end = start + len(value)
        if (start == 0 or _boundary(text[start - 1], text[start])) and (
            end == len(text) or _boundary(text[end - 1], text[end])
        ):
            out.append(start)
        start = text.find(value, start + 1)
    return out


def word_chunks(text: str) -> list[str]:
    """``text`` cut at its word boundaries: the values of :func:`substring_rules` (``words``) are
    exactly the runs of consecutive chunks (and the empty value) — what llguidance's and
    XGrammar's ``substring_chunks`` accept."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if i and not _boundary(text[i - 1], ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _marker(text: str) -> str:
    """A character ``text`` does not contain (private use first)."""
    present = set(text)
    for code in (*range(0xE000, 0xF900), *range(0xF0000, 0xFFFFE)):
        if chr(code) not in present:
            return chr(code)
    raise ValueError("the text uses every private-use character")  # pragma: no cover


@dataclass(frozen=True, eq=False)
class SubstringGraph:
    """The automaton the rules are written from: from ``start``, ``edges[v]`` (character, state)
    in character order, and ``ends[v]``: a value may end in ``v``. States not reachable from
    ``start`` have no edges. ``length[v]`` grows along every edge (a topological order)."""

    edges: tuple[tuple[tuple[str, int], ...], ...]
    ends: tuple[bool, ...]
    start: int
    length: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.edges)

    @functools.cached_property
    def reachable(self) -> tuple[int, ...]:
        seen = {self.start}
        stack = [self.start]
        while stack:
            for _, w in self.edges[stack.pop()]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return tuple(sorted(seen))

    @functools.cached_property
    def far(self) -> tuple[int, ...]:
        """``far[v]``: the most characters a value can still take after reaching ``v``."""
        out = [0] * self.size
        for v in sorted(range(self.size), key=lambda u: -self.length[u]):
            out[v] = max((out[w] + 1 for _, w in self.edges[v]), default=0)
        return tuple(out)


@functools.lru_cache(maxsize=64)
def substring_graph(text: str, words: bool = True) -> SubstringGraph:
    """The values of ``text`` as a graph: all its substrings, or (``words``) those that start and
    end at word boundaries (see the module's docstring)."""
    if not words:
        sam = suffix_automaton(text)
        edges = tuple(tuple(sorted(d.items())) for d in sam.nxt)
        return SubstringGraph(edges, (True,) * sam.size, 0, sam.length)
    mark = _marker(text)
    marked = [mark] if text else []
    for i, ch in enumerate(text):
        if i and _boundary(text[i - 1], ch):
            marked.append(mark)
        marked.append(ch)
    marked.append(mark)
    sam = suffix_automaton("".join(marked))
    start = sam.nxt[0][mark]
    flat: list[tuple[tuple[str, int], ...]] = [()] * sam.size
    ends = [False] * sam.size
    ends[start] = True  # the empty value
    seen = {start}
    stack = [start]
    while stack:
        v = stack.pop()
        out = {ch: w for ch, w in sam.nxt[v].items() if ch != mark}
        after = sam.nxt[v].get(mark)
        if after is not None and v != start:
            ends[v] = True
            # a boundary between v's last character and the next: the mark is skipped
            out.update(sam.nxt[after])
        flat[v] = tuple(sorted(out.items()))
        for _, w in flat[v]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return SubstringGraph(tuple(flat), tuple(ends), start, sam.length)


@functools.lru_cache(maxsize=4096)
def json_escape(ch: str) -> str:
    """One character as the JSON string grammar writes it (canonical ``json.dumps`` form)."""
    return json.dumps(ch, ensure_ascii=False)[1:-1]


@dataclass(frozen=True)
class SubstringRules:
    """Rules for the substrings of a text: ``start`` names the first; ``bounded`` says whether the
    length bounds asked for are built in (False: past :data:`PAIR_LIMIT`, or none were asked)."""

    rules: dict[str, Expr]
    start: str
    bounded: bool
    states: int


def _step(d: int, min_len: int, max_len: int | None) -> int | None:
    """The length counter after one more character (None: ``max_len`` reached, no more)."""
    if max_len is not None:
        return d + 1 if d < max_len else None
    return min(d + 1, min_len)


def _free(sam: SubstringGraph, w: int, d: int, min_len: int, max_len: int | None) -> bool:
    """From state ``w`` with ``d`` characters written no bound can matter any more: the plain
    rule of ``w`` takes over (a short text under a long ``maxLength`` needs no counting at all)."""
    return d >= min_len and (max_len is None or d + sam.far[w] <= max_len)


def _pairs(sam: SubstringGraph, min_len: int, max_len: int | None) -> list[tuple[int, int]] | None:
    """The reachable (state, counter) pairs that still count; None past :data:`PAIR_LIMIT`."""
    seen = {(sam.start, 0)}
    stack = [(sam.start, 0)]
    while stack:
        v, d = stack.pop()
        nd = _step(d, min_len, max_len)
        if nd is None:
            continue
        for _, w in sam.edges[v]:
            if (w, nd) not in seen and not _free(sam, w, nd, min_len, max_len):
                seen.add((w, nd))
                if len(seen) > PAIR_LIMIT:
                    return None
                stack.append((w, nd))
    return list(seen)


@functools.lru_cache(maxsize=256)
def substring_rules(
    text: str, prefix: str, min_len: int = 0, max_len: int | None = None, words: bool = True
) -> SubstringRules:
    """Rules (names starting with ``prefix``) whose start rule matches exactly the JSON-escaped
    substrings of ``text`` of ``min_len`` to ``max_len`` code points (``words``: those that start
    and end at word boundaries). Cached per arguments: the pipeline's retries and a batch's
    repeated sources build nothing twice."""
    sam = substring_graph(text, words)
    if _free(sam, sam.start, 0, min_len, max_len):
        return _plain_rules(sam, prefix, True)
    pairs = _pairs(sam, min_len, max_len)
    bounded = pairs is not None
    if pairs is None:
        # too many distinct substrings under the bound: only non-emptiness is built in
        min_len, max_len = min(min_len, 1), None
        pairs = _pairs(sam, min_len, max_len)
        assert pairs is not None  # at most one counted pair per state
    return _paired_rules(sam, prefix, pairs, min_len, max_len, bounded)


def _plain_rules(sam: SubstringGraph, prefix: str, bounded: bool) -> SubstringRules:
    rules: dict[str, Expr] = {}
    # longest first: every transition goes to a longer state, so each rule's witnesses of
    # productivity come before it and ``prepare``'s fixpoints settle in one pass
    order = sorted(sam.reachable, key=lambda v: -sam.length[v])
    for v in order:
        branches: list[Expr] = [EMPTY] if sam.ends[v] else []
        for ch, w in sam.edges[v]:
            branches.append(seq(literal(json_escape(ch)), Ref(f"{prefix}{w}")))
        rules[f"{prefix}{v}"] = alt(*branches) if branches else NOTHING
    return SubstringRules(rules, f"{prefix}{sam.start}", bounded, len(order))


def _paired_rules(
    sam: SubstringGraph,
    prefix: str,
    pairs: list[tuple[int, int]],
    min_len: int,
    max_len: int | None,
    bounded: bool,
) -> SubstringRules:
    def name(v: int, d: int) -> str:
        return f"{prefix}{v}-{d}"

    plain = _plain_rules(sam, prefix, bounded)  # where no bound matters any more (``_free``)
    rules: dict[str, Expr] = {}
    for v, d in sorted(pairs, key=lambda p: (-p[1], -sam.length[p[0]])):
        branches: list[Expr] = [EMPTY] if d >= min_len and sam.ends[v] else []
        nd = _step(d, min_len, max_len)
        if nd is not None:
            for ch, w in sam.edges[v]:
                target = f"{prefix}{w}" if _free(sam, w, nd, min_len, max_len) else name(w, nd)
                branches.append(seq(literal(json_escape(ch)), Ref(target)))
        # a state that can neither end nor go on accepts nothing (``prepare`` prunes it)
        rules[name(v, d)] = alt(*branches) if branches else NOTHING
    # the plain rules first: witnesses of productivity for the counted ones (``prepare`` drops
    # those no counted rule reaches)
    return SubstringRules({**plain.rules, **rules}, name(sam.start, 0), bounded, len(pairs) + plain.states)
