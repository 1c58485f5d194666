"""The byte-level recognizer: correctness against generated data and reference matchers."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.errors import LeftRecursionError
from gramwright.grammar.ir import (
    CharClass,
    Expr,
    Grammar,
    Literal,
    Ref,
    Repeat,
    Seq,
    alt,
    char_class,
    literal,
    repeat,
    seq,
)
from gramwright.recognizer import CompiledGrammar, InputRejected, Recognizer, compile_grammar

JSON = compile_grammar(load_bundled("json"))

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8")),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=8), inner, max_size=5)
    ),
    max_leaves=40,
)


def _feed_chunked(rec: Recognizer, data: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts})
    start = 0
    for p in [*points, len(data)]:
        rec.feed(data[start:p])
        start = p


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    json_values,
    st.booleans(),
    st.sampled_from([(",", ":"), (", ", ": ")]),
    st.lists(st.integers(0, 10**6), max_size=12),
)
def test_json_documents_are_accepted_in_random_chunks(
    value: object, ascii_only: bool, separators: tuple[str, str], cuts: list[int]
) -> None:
    doc = json.dumps(value, ensure_ascii=ascii_only, separators=separators).encode()
    rec = Recognizer(JSON)
    _feed_chunked(rec, doc, cuts)
    assert rec.is_accepting()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, st.data())
def test_mutated_documents_that_json_rejects_are_rejected(value: object, data: st.DataObject) -> None:
    doc = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    pos = data.draw(st.integers(0, len(doc)))
    kind = data.draw(st.sampled_from(["insert", "delete", "replace"]))
    junk = data.draw(st.sampled_from([*'"\\{}[],:-+.eE0a \n\t\x01', "\u00e9", "\ud83d\ude00"]))
    if kind == "insert":
        mutated = doc[:pos] + junk + doc[pos:]
    elif kind == "delete":
        mutated = doc[:pos] + doc[pos + 1 :]
    else:
        mutated = doc[:pos] + junk + doc[pos + 1 :]
    try:
        json.loads(mutated)
        assume(False)
    except ValueError:
        pass
    except RecursionError:
        assume(False)
    data_bytes = mutated.encode("utf-8", "surrogatepass")
    rec = Recognizer(JSON)
    assert not (rec.try_feed(data_bytes) and rec.is_accepting())


def test_every_escape_and_astral_characters() -> None:
    doc = json.dumps(['"\\/\b\f\n\r\t\u0000\u001f', "\u00e9\u4e2d\U0001f600", "\ud834\udd1e"])
    rec = Recognizer(JSON)
    rec.feed(doc.encode("utf-8", "surrogatepass"))
    assert rec.is_accepting()
    raw = b'"\\/"'
    rec = Recognizer(JSON)
    rec.feed(raw)
    assert rec.is_accepting()


def test_deep_nesting_has_no_depth_limit() -> None:
    depth = 5000
    doc = ("[" * depth + "]" * depth).encode()
    rec = Recognizer(JSON)
    rec.feed(doc)
    assert rec.is_accepting()
    doc = ('{"a":' * depth + "1" + "}" * depth).encode()
    rec = Recognizer(JSON)
    rec.feed(doc)
    assert rec.is_accepting()


def test_utf8_split_across_feeds() -> None:
    data = '"待客户确认😀"'.encode()
    rec = Recognizer(JSON)
    for i in range(len(data)):
        rec.feed(data[i : i + 1])
    assert rec.is_accepting()


def test_invalid_byte_leaves_state_unchanged_and_reports() -> None:
    rec = Recognizer(JSON)
    rec.feed(b'{"a":')
    before = rec.snapshot()
    with pytest.raises(InputRejected) as err:
        rec.feed(b"1x")
    assert rec.snapshot() == before
    assert err.value.offset == 1 and err.value.position == 6
    assert err.value.byte == ord("x")
    assert ord("}") in err.value.allowed and ord("x") not in err.value.allowed
    assert not rec.try_feed(b"}")
    assert rec.try_feed(b"1}") and rec.is_accepting()
    assert not rec.can_continue() or rec.allowed_bytes()


def test_snapshot_restore_and_allowed_bytes() -> None:
    rec = Recognizer(JSON)
    rec.feed(b"[tr")
    snap = rec.snapshot()
    assert rec.allowed_bytes() == frozenset(b"u")
    rec.feed(b"ue]")
    assert rec.is_accepting()
    rec.restore(snap)
    assert rec.position == 3 and not rec.is_accepting()
    with pytest.raises(InputRejected):
        rec.feed(b"x")


def test_ambiguous_grammar() -> None:
    # "a"* "a"* and a rule reachable two ways: every parse is kept, no backtracking needed.
    g = Grammar(
        {
            "root": seq(Ref("as"), Ref("as"), Ref("tail")),
            "as": repeat(literal("a"), 0, None),
            "tail": alt(literal("ab"), seq(literal("a"), literal("b")), literal("")),
        }
    )
    cg = CompiledGrammar(g)
    for text, ok in [("", True), ("aaaa", True), ("aab", True), ("b", False), ("aba", False)]:
        rec = Recognizer(cg)
        assert (rec.try_feed(text.encode()) and rec.is_accepting()) == ok, text


def test_star_inside_optional_cannot_exit_early() -> None:
    # (a*@)? must not accept "a": the star's loop may not leak through the optional's skip edge
    g = Grammar({"root": repeat(seq(repeat(literal("a"), 0, None), literal("@")), 0, 1)})
    cg = CompiledGrammar(g)
    for text, ok in [("", True), ("@", True), ("aa@", True), ("a", False), ("aa", False)]:
        rec = Recognizer(cg)
        assert (rec.try_feed(text.encode()) and rec.is_accepting()) == ok, text
    g2 = Grammar({"root": repeat(seq(repeat(literal("ab"), 0, None), literal("c")), 0, 2)})
    rec = Recognizer(CompiledGrammar(g2))
    assert not (rec.try_feed(b"ab") and rec.is_accepting())


def test_left_recursion_is_refused() -> None:
    with pytest.raises(LeftRecursionError):
        CompiledGrammar(Grammar({"root": alt(seq(Ref("root"), literal("+")), literal("1"))}))


# -- regular expressions as a reference: IR without Refs ↔ Python's re ----------------------------


def _to_regex(e: Expr) -> str:
    if isinstance(e, Literal):
        return re.escape(e.text)
    if isinstance(e, CharClass):
        if not e.ranges:
            return "[^\\s\\S]" if not e.negated else "[\\s\\S]"
        body = "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in e.ranges)
        return f"[{'^' if e.negated else ''}{body}]"
    if isinstance(e, Seq):
        return "".join(f"(?:{_to_regex(i)})" for i in e.items)
    if isinstance(e, Repeat):
        hi = "" if e.max is None else str(e.max)
        return f"(?:{_to_regex(e.item)}){{{e.min},{hi}}}"
    assert not isinstance(e, Ref)
    return "|".join(f"(?:{_to_regex(i)})" for i in e.items)


ALPHABET = "ab\u00e9\u4e2d\U0001f600"
chars = st.sampled_from(list(ALPHABET))


def _class() -> st.SearchStrategy[Expr]:
    ranges = st.lists(st.sampled_from([ord(c) for c in ALPHABET]), min_size=1, max_size=3)
    return st.builds(lambda cps, neg: char_class([(c, c) for c in cps], neg), ranges, st.booleans())


regular = st.recursive(
    st.builds(literal, st.text(chars, max_size=3)) | _class(),
    lambda inner: (
        st.builds(lambda xs: seq(*xs), st.lists(inner, min_size=2, max_size=3))
        | st.builds(lambda xs: alt(*xs), st.lists(inner, min_size=2, max_size=3))
        | st.builds(
            lambda x, lo, extra: repeat(x, lo, None if extra < 0 else lo + extra),
            inner,
            st.integers(0, 2),
            st.integers(-1, 2),
        )
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(regular, st.lists(st.text(chars, max_size=6), min_size=1, max_size=8))
def test_regular_grammars_agree_with_python_re(expr: Expr, texts: list[str]) -> None:
    cg = CompiledGrammar(Grammar({"root": expr}))
    pattern = re.compile(_to_regex(expr), re.DOTALL)
    for text in texts:
        rec = Recognizer(cg)
        ours = rec.try_feed(text.encode()) and rec.is_accepting()
        assert ours == bool(pattern.fullmatch(text)), (text, pattern.pattern)


def test_literal_runs_stop_where_more_than_one_thing_can_happen() -> None:
    """``literal_run``: the bytes a rule state must read one at a time; it ends after the byte
    into a state that calls, completes or branches (the token walk's shortcut relies on it)."""
    from gramwright.grammar.gbnf import parse_gbnf

    cg = compile_grammar(parse_gbnf('root ::= "{\\"name\\":" v ("," "x" | "y")\nv ::= [0-9]+ "z"'))
    start = next(iter(cg.config_frames[cg.initial]))
    assert cg.literal_run(cg.frame_state(start)) == b'{"name":'  # then the call to v
    after = cg.walk(cg.initial, b'{"name":1z')
    tops = {cg.rule_name_of(cg.frame_state(f)): cg.frame_state(f) for f in cg.config_frames[after]}
    assert cg.literal_run(tops["root"]) == b""  # "," or "y": two bytes
    inside = cg.walk(cg.initial, b'{"name":1z,')
    (frame,) = cg.config_frames[inside]
    assert cg.literal_run(cg.frame_state(frame)) == b"x"  # and the rule completes
    digits = cg.walk(cg.initial, b'{"name":')
    (frame,) = cg.config_frames[digits]
    assert cg.literal_run(cg.frame_state(frame)) == b""  # [0-9]: a range, not one byte


def _run_by_steps(cg: CompiledGrammar, rs: int) -> bytes:
    """``literal_run`` by its definition, one rule-level step at a time: bytes while the state
    allows exactly one, up to and including the byte into a state that calls or completes."""
    out = bytearray()
    while len(out) < 256:
        ranges = cg.state_byte_ranges(rs)
        if len(ranges) != 1 or ranges[0][0] != ranges[0][1]:
            break
        byte = ranges[0][0]
        nxt = cg._rs_byte(rs, byte)
        has_bytes, calls, final = cg._info(nxt)
        if final or calls:
            out.append(byte)
            break
        if not has_bytes:
            break
        out.append(byte)
        rs = nxt
    return bytes(out)


def test_literal_runs_equal_their_definition_over_a_wide_object() -> None:
    """The run read state by state (``_run_by_steps``) and ``literal_run`` (which reads a
    literal's inner states without a set per byte, and shares runs between the positions of
    one literal) agree on every rule state a walk through an object of many names created."""
    from gramwright.schema import compile_schema

    names = ["alpha", "alpine", "beta", "b", "gamma_delta", 'quo"te', "\u00e9t\u00e9"]
    schema = {
        "type": "object",
        "properties": {n: {"type": ["integer", "string"]} for n in names},
        "additionalProperties": {"type": "boolean"},
    }
    cg = compile_grammar(compile_schema(schema).grammar)
    doc = {"beta": 1, "gamma_delta": "x", 'quo"te': 2, "\u00e9t\u00e9": "y", "alp": True, "z": False}
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
    config = cg.initial
    for b in text:
        config = cg.step(config, b)
        assert config >= 0
    states = range(cg.num_rule_states)
    expected = {rs: _run_by_steps(cg, rs) for rs in states}
    fresh = compile_grammar(compile_schema(schema).grammar)
    fresh.walk(fresh.initial, text)
    got = {rs: fresh.literal_run(rs) for rs in states if rs < fresh.num_rule_states}
    assert got == {rs: expected[rs] for rs in got}
    assert sum(1 for run in got.values() if len(run) > 3) >= 5  # the names' runs were met


@settings(max_examples=200, deadline=None)
@given(regular, regular)
def test_literal_runs_equal_their_definition_in_random_grammars(a: Expr, b: Expr) -> None:
    """Every rule state of a grammar with calls, literals and repetitions: ``literal_run`` (asked
    in reverse order, so runs shared from a longer one's positions are exercised) equals the
    run read state by state."""
    root = seq(a, Ref("v"), literal("xy"), char_class([(0x30, 0x39)]), b)
    grammar = Grammar({"root": root, "v": alt(seq(literal("mid"), a), b)})
    cg = CompiledGrammar(grammar)
    seen: set[int] = set()
    todo = [cg.rule_state(frozenset([cg.nfa.start(r)])) for r in range(len(cg.nfa.rule_names))]
    while todo:
        rs = todo.pop()
        if rs in seen:
            continue
        seen.add(rs)
        todo.extend(ret for _, ret in cg._info(rs)[1])
        for lo, hi in cg.state_byte_ranges(rs):
            todo.extend(cg._rs_byte(rs, byte) for byte in range(lo, hi + 1))
    expected = {rs: _run_by_steps(cg, rs) for rs in seen}
    assert {rs: cg.literal_run(rs) for rs in sorted(seen, reverse=True)} == expected
