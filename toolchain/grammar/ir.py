"""Grammar IR: rules of expressions over Unicode code points.

The IR is the single grammar representation of the project. Its canonical text form is GBNF
(llama.cpp dialect), see :mod:`gramwright.grammar.gbnf`; ``parse(emit(g)) == g`` holds for every
grammar built with the smart constructors below.

Normal form (what the smart constructors guarantee, and what the GBNF parser produces):

* ``Seq`` and ``Alt`` have at least two items; a one-item sequence is the item itself, the empty
  sequence is ``Literal("")``.
* ``CharClass`` ranges are sorted, disjoint and non-adjacent (merged); ``negated`` keeps the written
  polarity so that ``[^"\\]`` stays readable; any-character is ``[\u0000-\U0010ffff]``, never a
  negated empty class (GBNF's ``.`` parses to it; xgrammar cannot read ``.``).
* ``Repeat`` has ``0 <= min`` and ``max is None or max >= min``; ``{1,1}`` is the item itself.

Parenthesised groups are kept as nested nodes (``a (b c)`` is ``Seq(a, Seq(b, c))``), so the
emitter can reproduce any tree exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

MAX_CODE_POINT = 0x10FFFF


@dataclass(frozen=True, slots=True)
class Literal:
    """A fixed string of code points (may be empty: the empty sequence)."""

    text: str


@dataclass(frozen=True, slots=True)
class CharClass:
    """One code point from ``ranges`` (inclusive), or, when ``negated``, one not in them."""

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False

    def contains(self, cp: int) -> bool:
        inside = any(lo <= cp <= hi for lo, hi in self.ranges)
        return inside != self.negated

    def effective_ranges(self) -> tuple[tuple[int, int], ...]:
        """The accepted code points as positive ranges (negation resolved)."""
        if not self.negated:
            return self.ranges
        out: list[tuple[int, int]] = []
        nxt = 0
        for lo, hi in self.ranges:
            if lo > nxt:
                out.append((nxt, lo - 1))
            nxt = hi + 1
        if nxt <= MAX_CODE_POINT:
            out.append((nxt, MAX_CODE_POINT))
        return tuple(out)


# Composite nodes remember their hash: the compiler hashes expressions to share and deduplicate
# them, and a recomputed hash walks the whole subtree every time (a large schema's compile spent
# ~15% of its time there).


def _remember_hash(node: Seq | Alt | Repeat, key: tuple[object, ...]) -> int:
    """Hash ``key`` once and keep it on the (frozen) node."""
    h = hash(key)
    object.__setattr__(node, "_hash", h)
    return h


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Expr, ...]
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        h = self._hash
        return _remember_hash(self, (Seq, self.items)) if h is None else h


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple[Expr, ...]
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        h = self._hash
        return _remember_hash(self, (Alt, self.items)) if h is None else h


@dataclass(frozen=True, slots=True)
class Repeat:
    item: Expr
    min: int
    max: int | None  # None: unbounded
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        h = self._hash
        return _remember_hash(self, (Repeat, self.item, self.min, self.max)) if h is None else h


@dataclass(frozen=True, slots=True)
class Ref:
    name: str


Expr = Literal | CharClass | Seq | Alt | Repeat | Ref

EMPTY = Literal("")


def literal(text: str) -> Literal:
    return Literal(text)


def _merge_ranges(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if lo > hi:
            raise ValueError(f"empty character range {lo:#x}-{hi:#x}")
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def char_class(ranges: Iterable[tuple[int, int]], negated: bool = False) -> CharClass:
    """A class in normal form. "Any character" is the positive full range, not a negated empty
    class: that is the one spelling llama.cpp (``.`` aside) and xgrammar both load."""
    merged = _merge_ranges(ranges)
    if negated and not merged:
        return CharClass(((0, MAX_CODE_POINT),), False)
    for lo, hi in merged:
        if lo < 0 or hi > MAX_CODE_POINT:
            raise ValueError(f"code point range {lo:#x}-{hi:#x} outside Unicode")
    return CharClass(merged, negated)


def seq(*items: Expr) -> Expr:
    """Sequence in normal form: empty literals dropped, nested sequences flattened."""
    flat: list[Expr] = []
    for item in items:
        # ``type`` tests, not ``item == EMPTY``: the dataclass ``__eq__`` of every other node
        # type was most of the time of building an edit grammar's ~150k sequences
        if type(item) is Seq:
            flat.extend(item.items)
        elif type(item) is Literal and not item.text:
            continue
        else:
            flat.append(item)
    if not flat:
        return EMPTY
    if len(flat) == 1:
        return flat[0]
    return Seq(tuple(flat))


def alt(*items: Expr) -> Expr:
    """Alternation in normal form: nested alternations flattened, duplicates removed (first kept)."""
    flat: list[Expr] = []
    for item in items:
        if type(item) is Alt:
            flat.extend(item.items)
        else:
            flat.append(item)
    if len(flat) <= 8:
        # a few branches (most alternations: an edit grammar has ~30k of 2–5) are told apart
        # by equality, which stops at the first difference; hashing walks every subtree
        kept: list[Expr] = []
        for part in flat:
            if part not in kept:
                kept.append(part)
        flat = kept
    else:
        seen: set[Expr] = set()
        unique: list[Expr] = []
        for part in flat:
            if part not in seen:
                seen.add(part)
                unique.append(part)
        flat = unique
    if not flat:
        raise ValueError("an alternation needs at least one branch")
    if len(flat) == 1:
        return flat[0]
    return Alt(tuple(flat))


def repeat(item: Expr, lo: int, hi: int | None) -> Expr:
    if lo < 0 or (hi is not None and hi < lo):
        raise ValueError(f"bad repetition bounds {{{lo},{hi}}}")
    if hi == 0 or item == EMPTY:
        return EMPTY
    if lo == 1 and hi == 1:
        return item
    return Repeat(item, lo, hi)


def children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Seq | Alt):
        return expr.items
    if isinstance(expr, Repeat):
        return (expr.item,)
    return ()


def walk(expr: Expr) -> Iterator[Expr]:
    """Pre-order traversal of an expression tree."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def refs(expr: Expr, classes: list[CharClass] | None = None) -> list[str]:
    """Rule names referenced by ``expr``, in first-occurrence order (``walk``'s pre-order,
    inlined: it runs over every rule of a grammar in ``prepare``). With ``classes``, the
    character classes met on the way are appended to it (``prepare`` checks them in the same walk)."""
    seen: dict[str, None] = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Ref):
            seen.setdefault(node.name, None)
        elif isinstance(node, (Seq, Alt)):
            stack.extend(reversed(node.items))
        elif isinstance(node, Repeat):
            stack.append(node.item)
        elif classes is not None and isinstance(node, CharClass):
            classes.append(node)
    return list(seen)


@dataclass(frozen=True)
class Grammar:
    """Named rules; ``root`` is the start rule. Rule order is kept (it is the emission order)."""

    rules: Mapping[str, Expr]
    root: str = "root"
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    # set by ``analysis.prepare`` on what it returns, so that preparing again is free (a schema's
    # grammar passed through the compiler, the source loader and the recognizer was pruned 3 times)
    _prepared: bool = field(default=False, init=False, repr=False, compare=False)
    # ``analysis.nullable_rules``, kept: prepare and the NFA builder both ask (an edit grammar's
    # fixpoint over ~50k rules took ~0.5 s each time)
    _nullable: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.root not in self.rules:
            raise ValueError(f"root rule {self.root!r} is not defined")
        object.__setattr__(self, "rules", dict(self.rules))

    def __hash__(self) -> int:
        if not self._hash:
            object.__setattr__(self, "_hash", hash((self.root, tuple(self.rules.items()))))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grammar):
            return NotImplemented
        return self.root == other.root and list(self.rules.items()) == list(other.rules.items())

    def undefined_refs(self, rule_refs: Mapping[str, list[str]] | None = None) -> dict[str, list[str]]:
        """Referenced-but-undefined rule names → the rules that reference them (``rule_refs``:
        each rule's ``refs``, when the caller has them already)."""
        missing: dict[str, list[str]] = {}
        for name, body in self.rules.items():
            for ref in refs(body) if rule_refs is None else rule_refs[name]:
                if ref not in self.rules:
                    missing.setdefault(ref, []).append(name)
        return missing
