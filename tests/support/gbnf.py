"""Hypothesis strategies for the grammar IR (characters, classes, expressions, normal-form
grammars) and a reader of GBNF escapes: used by the GBNF round-trip tests, the export tests and
the xgrammar cross-check."""

from __future__ import annotations

import functools

from hypothesis import assume
from hypothesis import strategies as st

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
    walk,
)

# Characters the emitter must treat with care: quotes, backslashes, class and GBNF punctuation,
# controls, non-printables (NEL, NBSP, LINE SEPARATOR, BOM, a lone surrogate), astral code points.
SPECIAL_CHARS = '"\\[]-^.#|()*+?{}:=< \n\r\t\x00\x01\x1b\x7f\x85\xa0\u2028\ufeff\ud800é\U0001f600\U0010ffff'

RULE_NAMES = st.from_regex(r"[a-zA-Z0-9-]{1,8}", fullmatch=True)
BOUNDS = st.one_of(
    st.sampled_from([(0, None), (1, None), (0, 1)]),
    st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(1, 6))).filter(
        lambda b: (b[1] is None or b[1] >= b[0]) and b != (1, 1)
    ),
)


def characters(*, surrogates: bool = True) -> st.SearchStrategy[str]:
    specials = [c for c in SPECIAL_CHARS if surrogates or c != "\ud800"]
    # st.characters() may draw surrogates (category Cs); the utf-8 codec rules them out.
    return st.one_of(st.sampled_from(specials), st.characters(codec=None if surrogates else "utf-8"))


def code_points(*, surrogates: bool = True) -> st.SearchStrategy[int]:
    return st.one_of(
        characters(surrogates=surrogates).map(ord),
        st.integers(0x20, 0x7E),
        st.integers(0, MAX_CODE_POINT).filter(lambda cp: surrogates or not 0xD800 <= cp <= 0xDFFF),
    )


def char_classes(*, dot: bool = True, surrogates: bool = True) -> st.SearchStrategy[CharClass]:
    # Single characters are common, and class punctuation among them: a '-' or ']' between two
    # other members is where a wrong escape changes the meaning.
    single = st.one_of(st.sampled_from("-]\\^[").map(ord), code_points(surrogates=surrogates))
    pair = st.tuples(code_points(surrogates=surrogates), code_points(surrogates=surrogates))
    ranges = st.lists(
        st.one_of(single.map(lambda c: (c, c)), pair.map(lambda r: (min(r), max(r)))),
        min_size=1,
        max_size=4,
    )
    classes = st.builds(char_class, ranges, st.booleans())
    any_char = char_class((), negated=True)  # normal form of GBNF's ".": the full range
    return st.one_of(classes, st.just(any_char)) if dot else classes


SLOTS = 5  # expressions refer to rule slots 0..SLOTS-1; a grammar maps each slot to one of its names


@functools.cache
def expressions(*, dot: bool = True, surrogates: bool = True) -> st.SearchStrategy[Expr]:
    """Any normal-form expression, nested groups included; refs name slots ``"0"``..``"4"``.

    Built once per flag combination: hypothesis validates a strategy on first use, which costs far
    more than drawing from it.
    """
    leaves = st.one_of(
        st.text(characters(surrogates=surrogates), max_size=5).map(Literal),
        char_classes(dot=dot, surrogates=surrogates),
        st.integers(0, SLOTS - 1).map(lambda i: Ref(str(i))),
    )

    def extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        # Sequences and repeats never hold "": map it to a one-character literal. (Maps, not filters
        # or unique lists: hypothesis reports rejections with the strategy's huge recursive repr.)
        non_empty = children.map(lambda e: Literal("e") if e == EMPTY else e)
        return st.one_of(
            st.lists(non_empty, min_size=2, max_size=4).map(lambda xs: Seq(tuple(xs))),
            st.lists(children, min_size=2, max_size=4).map(_alternation),
            st.tuples(non_empty, BOUNDS).map(lambda t: Repeat(t[0], t[1][0], t[1][1])),
        )

    return st.recursive(leaves, extend, max_leaves=12)


def _alternation(branches: list[Expr]) -> Alt:
    unique = list(dict.fromkeys(branches))  # normal form: no duplicate branches
    fillers = [filler for filler in (Literal("|"), Literal("||")) if filler not in unique]
    unique += fillers[: max(0, 2 - len(unique))]
    return Alt(tuple(unique))


def _rename(expr: Expr, names: list[str]) -> Expr:
    if isinstance(expr, Ref):
        return Ref(names[int(expr.name) % len(names)])
    if isinstance(expr, Seq):
        return Seq(tuple(_rename(item, names) for item in expr.items))
    if isinstance(expr, Alt):
        # Renaming can make two branches equal (slots 1 and 3 -> one name): keep the first.
        return Alt(tuple(dict.fromkeys(_rename(item, names) for item in expr.items)))
    if isinstance(expr, Repeat):
        return Repeat(_rename(expr.item, names), expr.min, expr.max)
    return expr


@st.composite
def grammars(
    draw: st.DrawFn,
    *,
    names: st.SearchStrategy[str] = RULE_NAMES,
    root: str | None = "root",
    dot: bool = True,
    surrogates: bool = True,
) -> Grammar:
    """A normal-form grammar whose root is its first rule (``root=None``: a random root name)."""
    others = draw(st.lists(names.filter(lambda n: n != root), max_size=SLOTS - 1, unique=True))
    if root is None:
        others = others or [draw(names)]
    rule_names = [root, *others] if root is not None else others
    body = expressions(dot=dot, surrogates=surrogates)
    rules = {name: _rename(draw(body), rule_names) for name in rule_names}
    # A collapsed alternation (all branches renamed alike) is not normal form: skip such draws.
    assume(all(not isinstance(n, Alt) or len(n.items) > 1 for e in rules.values() for n in walk(e)))
    return Grammar(rules, rule_names[0])


def escapes(text: str) -> list[str]:
    """The escape sequences of GBNF text, each as the backslash and the three characters after
    it (an escaped backslash is one escape: in ``"\\\\U"`` the ``U`` is a plain letter)."""
    out = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            out.append(text[i : i + 4])
            i += 2
        else:
            i += 1
    return out
