"""GBNF parser and canonical emitter: round trip on random normal-form grammars, bundled files, errors."""

from __future__ import annotations

import functools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gramwright.grammar.analysis import find_left_recursion, prepare
from gramwright.grammar.bundled import (
    UnknownBundledGrammarError,
    bundled_names,
    bundled_path,
    load_bundled,
)
from gramwright.grammar.errors import GrammarSyntaxError, UndefinedRuleError
from gramwright.grammar.gbnf import emit_gbnf, parse_gbnf
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

# ---- strategies (tests/grammar/test_gbnf_xgrammar.py reuses them) -----------------------------------------

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


# ---- round trip -------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(grammars())
def test_parse_inverts_emit(g: Grammar) -> None:
    text = emit_gbnf(g)
    assert parse_gbnf(text) == g
    assert emit_gbnf(parse_gbnf(text)) == text


@settings(max_examples=50, deadline=None)
@given(grammars(root=None))
def test_round_trip_with_any_root_name(g: Grammar) -> None:
    assert parse_gbnf(emit_gbnf(g), root=g.root) == g


@settings(max_examples=50, deadline=None)
@given(grammars())
def test_emission_is_deterministic_and_one_line_per_rule(g: Grammar) -> None:
    text = emit_gbnf(g)
    rebuilt = Grammar(dict(g.rules), g.root)  # an equal grammar built separately
    assert emit_gbnf(rebuilt) == text
    lines = text.split("\n")
    assert lines[-1] == ""
    assert [line.split(" ::= ", 1)[0] for line in lines[:-1]] == list(g.rules)
    assert text.encode("utf-8")  # no lone surrogate is written raw


def test_root_comes_first() -> None:
    g = Grammar({"a": Literal("x"), "root": Ref("a"), "b": EMPTY}, "root")
    text = emit_gbnf(g)
    assert text == 'root ::= a\na ::= "x"\nb ::= ""\n'
    assert list(parse_gbnf(text).rules) == ["root", "a", "b"]
    assert list(parse_gbnf('a ::= "x"\nroot ::= a\nb ::= ""\n').rules) == ["root", "a", "b"]


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (Seq((Ref("a"), Seq((Ref("b"), Ref("c"))))), "a (b c)"),
        (Alt((Ref("a"), Alt((Ref("b"), Ref("c"))))), "a | (b | c)"),
        (Seq((Alt((Ref("a"), EMPTY)), Ref("b"))), '(a | "") b'),
        (Repeat(Repeat(Ref("a"), 0, None), 0, 1), "(a*)?"),
        (Repeat(Seq((Ref("a"), Ref("b"))), 2, None), "(a b){2,}"),
        (Repeat(Literal("ab"), 0, 3), '"ab"{0,3}'),
        (Repeat(Ref("a"), 3, 3), "a{3}"),
        (Literal('"\\\n\r\t\x01\x7f\u2028é\U0001f600'), r'"\"\\\n\r\t\u0001\u007F\u2028é😀"'),
        (char_class([(ord("^"), ord("^")), (ord("a"), ord("b"))]), r"[\u005Eab]"),
        (char_class([(ord("^"), ord("^"))], negated=True), "[^^]"),
        (char_class([(ord("!"), ord("!")), (ord("-"), ord("-")), (ord("a"), ord("a"))]), r"[!\-a]"),
        (char_class([(ord("-"), ord("-")), (ord("]"), ord("]")), (0, 0x1F)]), r"[\u0000-\u001F\-\]]"),
        (char_class([(0xF0000, MAX_CODE_POINT)]), r"[\U000F0000-\U0010FFFF]"),
        (char_class((), negated=True), r"[\u0000-\U0010FFFF]"),
        (EMPTY, '""'),
    ],
)
def test_canonical_text(expr: Expr, text: str) -> None:
    g = Grammar({"root": expr, "a": EMPTY, "b": EMPTY, "c": EMPTY}, "root")
    assert emit_gbnf(g).split("\n")[0] == f"root ::= {text}"
    assert parse_gbnf(emit_gbnf(g)) == g


@pytest.mark.parametrize(
    ("g", "problem"),
    [
        (Grammar({"root": Ref("bad_name")}), "not a GBNF rule name"),
        (Grammar({"bad name": EMPTY}, "bad name"), "not a GBNF rule name"),
        (Grammar({"root": CharClass(())}), "matches nothing"),
    ],
)
def test_emit_rejects_what_gbnf_cannot_write(g: Grammar, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        emit_gbnf(g)


# ---- the llama.cpp dialect ----------------------------------------------------------------------


def test_llama_cpp_layout_rules() -> None:
    text = (
        "# leading comment\n"
        "root ::=\n"  # a newline right after ::= continues the rule
        '  "a" |  # comment after |\n'  # and so does one right after |
        "  ( b\n"  # inside parentheses newlines are free
        "    # a comment line inside the group\n"
        "    [x-z]{ 1 , 2 } )\r\n"  # CRLF ends a rule; spaces inside braces are allowed
        'b::=""\t# tabs and no spaces around ::=\n'
        "\n\n"
    )
    g = parse_gbnf(text)
    assert g.rules == {
        "root": Alt((Literal("a"), Seq((Ref("b"), Repeat(char_class([(ord("x"), ord("z"))]), 1, 2))))),
        "b": EMPTY,
    }


def test_normal_form_of_parsed_expressions() -> None:
    g = parse_gbnf('root ::= "a" "" ("") ("b") "c"{1} "d"{0} | "a" "" ("") ("b") "c" | ("x" "y")\n')
    assert g.rules["root"] == Alt(
        (Seq((Literal("a"), Literal("b"), Literal("c"))), Seq((Literal("x"), Literal("y"))))
    )


def test_escapes_and_classes() -> None:
    g = parse_gbnf(r'root ::= "\x41\u00e9\U0001F600\[\]\-\"\\" [a-] [-a] [^\n\t] [\]\\] . [\x00-\x1F]')
    items = g.rules["root"]
    assert isinstance(items, Seq)
    assert items.items == (
        Literal('Aé\U0001f600[]-"\\'),
        char_class([(ord("a"), ord("a")), (ord("-"), ord("-"))]),
        char_class([(ord("a"), ord("a")), (ord("-"), ord("-"))]),
        char_class([(10, 10), (9, 9)], negated=True),
        char_class([(ord("]"), ord("]")), (ord("\\"), ord("\\"))]),
        char_class([(0, MAX_CODE_POINT)]),
        char_class([(0, 0x1F)]),
    )


def test_stacked_quantifiers_nest_as_in_llama_cpp() -> None:
    assert parse_gbnf('root ::= a*? a{2}+\na ::= "a"').rules["root"] == Seq(
        (Repeat(Repeat(Ref("a"), 0, None), 0, 1), Repeat(Repeat(Ref("a"), 2, 2), 1, None))
    )


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ('root ::= "a"\n  "b"\n', 2, 3, "a rule name"),  # no continuation lines outside ( )
        ('root = "a"\n', 1, 6, "'::='"),
        ('root ::= "abc\n', 1, 14, "'\"' to close the string"),
        ("root ::= [abc\n", 1, 14, "']' to close the class"),
        ('root ::= ("a" "b"\n', 2, 1, "')'"),
        ('root ::= "a")\n', 1, 13, "a symbol, '|', a newline or end of input"),
        ("root ::= *", 1, 10, "before '*'"),
        ('root ::= "a" | +', 1, 16, "before '+'"),
        ('root ::= "a"{,3}', 1, 14, "an integer"),
        ('root ::= "a"{2;3}', 1, 15, "',' or '}'"),
        ('root ::= "a"{2,3', 1, 17, "an integer or '}'"),
        ('root ::= "a"{3,2}', 1, 13, "max >= min"),
        ('root ::= "\\q"', 1, 11, r"\xHH"),
        ('root ::= "\\x4"', 1, 11, "2 hex digits"),
        ('root ::= "\\uD80"', 1, 11, "4 hex digits"),
        ('root ::= "\\U00110000"', 1, 11, "U+10FFFF"),
        ("root ::= []", 1, 10, "at least one character"),
        ("root ::= [^]", 1, 10, "at least one character"),
        ("root ::= [z-a]", 1, 11, "low-high"),
        ("root ::= <think>", 1, 10, "a string, a character class"),
        ('root ::= "a"\nroot ::= "b"\n', 2, 1, "a rule name not defined yet"),
        ('x ::= "a"\n# c\n  9_x ::= "b"', 3, 4, "'::='"),
        ('root ::= "a\x00"', 1, 12, "NUL"),
    ],
)
def test_syntax_errors_say_where_and_what(text: str, line: int, column: int, expected: str) -> None:
    with pytest.raises(GrammarSyntaxError) as info:
        parse_gbnf(text, source="g.gbnf")
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert expected in err.expected
    assert str(err).endswith(f"(g.gbnf:{line}:{column})")
    if line <= len(text.splitlines()):
        assert err.get_context(text).endswith("^")


@pytest.mark.parametrize(
    ("text", "found", "opened", "what"),
    [
        # an unclosed "(" swallows the newline and the next rule's name; ':' is where it stops
        ('root ::= a\na ::= "x" ( "y"\nb ::= "z"\n', (3, 3), (2, 11), "group"),
        # a string not closed on its line (llama.cpp would read on to the next rule's quote)
        ('root ::= a\na ::= "x\nb ::= "y"\n', (2, 9), (2, 7), "string"),
        ('root ::= a\nb ::= "y"\na ::= "x', (3, 9), (3, 7), "string"),
        ('root ::= [ab\r\nb ::= "y"\n', (1, 13), (1, 10), "character class"),
        # an error deeper inside a group that began lines earlier names the group too
        ('root ::= ("a"\n  | "b" {2;3} )\n', (2, 11), (1, 10), "group"),
    ],
)
def test_unclosed_constructs_name_where_they_began(
    text: str, found: tuple[int, int], opened: tuple[int, int], what: str
) -> None:
    with pytest.raises(GrammarSyntaxError) as info:
        parse_gbnf(text, source="g.gbnf")
    err = info.value
    assert (err.line, err.column) == found
    assert (err.opened, err.opened_line, err.opened_column) == (what, *opened)
    assert f"the {what} began at line {opened[0]}:{opened[1]}" in str(err)
    assert str(err).endswith(f"(g.gbnf:{found[0]}:{found[1]})")
    # the error keeps the text: the context needs no argument and marks both places
    context = err.get_context()
    assert context == err.get_context(text)
    if opened[0] == found[0]:
        caret_line = context.splitlines()[-1]
        assert caret_line.index("^") == opened[1] - 1 and caret_line.rindex("^") == found[1] - 1
    else:
        began, began_caret, here, here_caret = context.splitlines()
        assert began == text.splitlines()[opened[0] - 1] and began_caret.endswith(f"^ {what} began here")
        assert here == text.splitlines()[found[0] - 1] and here_caret.index("^") == found[1] - 1


def test_errors_on_one_line_name_no_opening() -> None:
    with pytest.raises(GrammarSyntaxError) as info:
        parse_gbnf('root ::= ("\\q")\n')
    assert info.value.opened == "" and "began at" not in str(info.value)
    assert info.value.get_context() == 'root ::= ("\\q")\n           ^'


def test_duplicate_rule_names_the_first_definition() -> None:
    with pytest.raises(GrammarSyntaxError, match="already defined on line 1"):
        parse_gbnf('root ::= "a"\nroot ::= "b"\n')


def test_undefined_reference() -> None:
    with pytest.raises(UndefinedRuleError) as info:
        parse_gbnf("root ::= a b\na ::= c\n")
    assert info.value.missing == {"b": ["root"], "c": ["a"]}
    with pytest.raises(UndefinedRuleError) as info:
        parse_gbnf("root ::= a\n", source="g.gbnf")
    assert info.value.one_line().startswith("undefined rule(s): a (used in root) (g.gbnf) — ")


@pytest.mark.parametrize("text", ["", "# only a comment\n", 'a ::= "x"\n'])
def test_missing_root(text: str) -> None:
    with pytest.raises(UndefinedRuleError) as info:
        parse_gbnf(text)
    assert list(info.value.missing) == ["root"]


def test_custom_root_name() -> None:
    g = parse_gbnf('start ::= "x"\n', root="start")
    assert g.root == "start"
    with pytest.raises(UndefinedRuleError):
        parse_gbnf('start ::= "x"\n')


# ---- bundled grammars ---------------------------------------------------------------------------


def test_bundled_names() -> None:
    assert {"json", "arithmetic", "kv-config"} <= set(bundled_names())
    assert bundled_names() == sorted(bundled_names())


@pytest.mark.parametrize("name", bundled_names())
def test_bundled_grammar_round_trips_and_runs_top_down(name: str) -> None:
    g = load_bundled(name)
    assert parse_gbnf(emit_gbnf(g)) == g
    assert bundled_path(name).read_text(encoding="utf-8").lstrip().startswith("#")  # documented
    assert find_left_recursion(g) is None
    assert prepare(g).rules.keys() == g.rules.keys()  # every rule productive and reachable


def test_json_whitespace_is_bounded() -> None:
    ws = load_bundled("json").rules["ws"]
    repeats = [node for node in walk(ws) if isinstance(node, Repeat)]
    assert repeats
    assert all(node.max is not None for node in repeats)


@pytest.mark.parametrize("name", ["nope", "../json", "json.gbnf", ""])
def test_unknown_bundled_grammar(name: str) -> None:
    with pytest.raises(UnknownBundledGrammarError) as info:
        load_bundled(name)
    assert "json" in info.value.hint
