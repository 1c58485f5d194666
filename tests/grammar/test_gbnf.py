"""GBNF parser and canonical emitter: round trip on random normal-form grammars, bundled files, errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

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
from tests.support.gbnf import grammars

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


def test_missing_root() -> None:
    with pytest.raises(UndefinedRuleError) as info:
        parse_gbnf('a ::= "x"\n')
    assert list(info.value.missing) == ["root"]


@pytest.mark.parametrize("text", ["", "# only a comment\n"])
def test_an_empty_grammar_says_so(text: str) -> None:
    from gramwright.errors import GrammarError

    with pytest.raises(GrammarError, match="defines no rules"):
        parse_gbnf(text)


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


@pytest.mark.parametrize(
    ("text", "copies"),
    [
        ("root ::= [a-z]{99999}\n", 99999),
        ('root ::= ([^"]{3000} "x")\n', 3000),
        ("root ::= (([a-z]{100}){30})\n", 3000),  # nested repetitions multiply
        ("root ::= ([a-z]{2,}){2001,}\n", 4002),
    ],
)
def test_a_repetition_past_the_unroll_limit_is_refused(text: str, copies: int) -> None:
    # it used to be unrolled: checking a document against {99999} took longer than any limit
    with pytest.raises(GrammarSyntaxError, match=f"unrolls to {copies} copies"):
        parse_gbnf(text)


def test_repetitions_up_to_the_limit_and_through_rules_are_kept() -> None:
    g = parse_gbnf("root ::= item{2000}\nitem ::= [a-z]{2000}\n")  # a rule call is not unrolled
    assert set(g.rules) == {"root", "item"}
