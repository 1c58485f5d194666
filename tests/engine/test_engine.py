"""Token engine: completeness (valid text is never masked out), soundness (no dead ends),
EOS discipline, bitsets, rollback — with the real SmolLM2 tokenizer and a SentencePiece-style one."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gramwright.engine.matcher import (
    EmptyMaskError,
    GrammarEngine,
    TokenRejected,
    bitmask_from_ids,
    ids_from_bitmask,
)
from gramwright.engine.trie import TokenTrie
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, Ref, alt, literal, repeat, seq
from gramwright.recognizer import compile_grammar
from gramwright.recognizer.compiled import DEAD, CompiledGrammar
from tests.support.json_values import json_values as json_values_of
from tests.support.tokens import encode


def _trie_walk(cg: CompiledGrammar, trie: TokenTrie, config: int) -> np.ndarray:
    """The reference: token ids of ``trie`` whose bytes are viable from ``config``, by a plain
    depth-first walk of the recognizer (the engine's masks must equal it)."""
    trans = cg.trans
    step = cg.step
    children = trie.children
    ends = trie.ends
    out: list[int] = []
    stack = [(0, config)]
    while stack:
        node, cfg = stack.pop()
        row = trans[cfg]
        for b, child in children[node]:
            nxt = row.get(b)
            if nxt is None:
                nxt = step(cfg, b)
            if nxt == DEAD:
                continue
            if ends[child]:
                out.extend(ends[child])
            if children[child]:
                stack.append((child, nxt))
    out.sort()
    return np.asarray(out, dtype=np.int32)


@pytest.fixture(scope="module")
def json_engines(
    smol: tuple[Any, TokenVocabulary], sentencepiece: tuple[Any, TokenVocabulary]
) -> dict[str, tuple[Any, GrammarEngine]]:
    """The bundled JSON grammar's engine on each real tokenizer, with that tokenizer."""
    grammar = compile_grammar(load_bundled("json"))
    return {
        name: (tok, GrammarEngine(grammar, vocab))
        for name, (tok, vocab) in (("smol", smol), ("sentencepiece", sentencepiece))
    }


def _check_document(engine: GrammarEngine, trie: TokenTrie, tok: object, text: str) -> None:
    """Masks along ``text``'s tokens equal a plain walk of ``trie``; the document is accepted."""
    matcher = engine.matcher()
    for tid in encode(tok, text):
        ours = engine.masks.allowed(matcher.config)
        assert np.array_equal(ours, _trie_walk(engine.compiled, trie, matcher.config)), matcher.output
        matcher.consume(tid)
    assert matcher.is_accepting()


def _check_random_walks(
    engine: GrammarEngine, trie: TokenTrie, rng: random.Random, walks: int, steps: int
) -> int:
    """Masks along ``walks`` random walks of up to ``steps`` tokens (each drawn uniformly from
    the mask) equal a plain walk of ``trie``. Returns how many masks were compared."""
    checked = 0
    for _ in range(walks):
        matcher = engine.matcher()
        for _ in range(steps):
            ours = engine.masks.allowed(matcher.config)
            assert np.array_equal(ours, _trie_walk(engine.compiled, trie, matcher.config)), matcher.output
            checked += 1
            if ours.size == 0:
                break
            matcher.consume(rng.choice(ours.tolist()))
            if matcher.is_terminated():
                break
    return checked


json_values = json_values_of(int_bound=10**12, text_size=12, key_size=6, container_size=4, max_leaves=15)


@pytest.mark.parametrize("which", ["smol", "sentencepiece"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, ascii_only=st.booleans())
def test_valid_documents_are_accepted_token_by_token(
    json_engines: dict[str, tuple[Any, GrammarEngine]], which: str, value: object, ascii_only: bool
) -> None:
    tok, engine = json_engines[which]
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    ids = encode(tok, text)
    # SmolLM2's byte-level vocabulary has no token for some lead bytes (e.g. 0xF1, used by
    # U+40000–U+7FFFF): its tokenizer drops them. Text it cannot spell is out of scope.
    assume(b"".join(engine.vocab.token_bytes[i] for i in ids) == text.encode())
    matcher = engine.matcher()
    for tid in ids:
        allowed = matcher.allowed_token_ids()
        assert tid in set(allowed.tolist()), (text, tid, engine.vocab.token_bytes[tid])
        matcher.consume(tid)
    assert matcher.is_accepting()
    assert matcher.output == text.encode()
    eos = next(iter(engine.vocab.eos_ids), None)
    if eos is not None:
        assert eos in set(matcher.allowed_token_ids().tolist())


def test_masks_equal_a_full_trie_walk(smol: tuple[Any, TokenVocabulary]) -> None:
    """The local/pending split computes exactly what a plain walk of the whole vocabulary does."""
    tok, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    text = json.dumps({"a": [1, -2.5e3, 'x"y\\u00e9', {"b": None}], "待客户确认": True}, ensure_ascii=False)
    matcher = engine.matcher()
    for tid in encode(tok, text):
        ours = engine.masks.allowed(matcher.config)
        ref = _trie_walk(engine.compiled, trie, matcher.config)
        assert np.array_equal(ours, ref)
        matcher.consume(tid)


def test_random_walks_never_dead_end(smol: tuple[Any, TokenVocabulary]) -> None:
    """Tokens drawn uniformly from each mask: never an empty mask, every stop is accepting."""
    _, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    rng = random.Random(7)
    eos = vocab.eos_ids
    for _ in range(60):
        matcher = engine.matcher()
        for _ in range(25):
            ids = matcher.allowed_token_ids()
            tid = int(ids[rng.randrange(ids.size)])
            matcher.consume(tid)
            if tid in eos:
                assert matcher.is_accepting()
                break
            if matcher.is_terminated():
                assert matcher.is_accepting()
                json.loads(matcher.output)
                break


def test_prefix_overlapping_enum_can_only_produce_one_value(smol: tuple[Any, TokenVocabulary]) -> None:
    _, vocab = smol
    g = Grammar(
        {"root": seq(literal('"'), alt(literal("待客户确认"), literal("待客户补充材料")), literal('"'))}
    )
    engine = GrammarEngine(compile_grammar(g), vocab)
    rng = random.Random(3)
    seen = set()
    for _ in range(300):
        matcher = engine.matcher()
        while not matcher.is_terminated():
            ids = matcher.allowed_token_ids()
            ids = ids[~np.isin(ids, list(vocab.eos_ids))]
            matcher.consume(int(ids[rng.randrange(ids.size)]))
        seen.add(matcher.output.decode())
    assert seen == {'"待客户确认"', '"待客户补充材料"'}


def test_eos_only_when_accepting_and_special_tokens_never(smol: tuple[Any, TokenVocabulary]) -> None:
    _, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    matcher = engine.matcher()
    eos = next(iter(vocab.eos_ids))
    assert eos not in set(matcher.allowed_token_ids().tolist())
    assert not matcher.try_consume(eos)
    for special in vocab.special_ids - vocab.eos_ids:
        assert special not in set(matcher.allowed_token_ids().tolist())
    for piece in (b"[", b"1", b"]"):
        matcher.consume(vocab.token_bytes.index(piece))
    assert eos in set(matcher.allowed_token_ids().tolist())
    matcher.consume(eos)
    assert matcher.is_terminated()


def test_rollback_restores_state_and_output(smol: tuple[Any, TokenVocabulary]) -> None:
    _, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    matcher = engine.matcher()
    ids = [vocab.token_bytes.index(p) for p in (b"{", b'"', b"a", b'":', b"1")]
    for tid in ids:
        matcher.consume(tid)
    config_after_two = None
    matcher.rollback(3)
    assert matcher.output == b'{"'
    config_after_two = matcher.config
    matcher.consume(ids[2])
    matcher.rollback(1)
    assert matcher.config == config_after_two
    with pytest.raises(TokenRejected):
        matcher.consume(vocab.token_bytes.index(b"\n"))  # a raw newline inside a string
    with pytest.raises(ValueError):
        matcher.rollback(5)


def test_bitmask_layout_round_trips() -> None:
    ids = np.array([0, 31, 32, 49151], dtype=np.int32)
    mask = bitmask_from_ids(ids, 49152)
    assert mask.dtype == np.int32 and mask.shape == (1536,)
    assert mask[0] == np.int32(-(2**31) + 1)  # bits 0 and 31 of word 0
    assert np.array_equal(ids_from_bitmask(mask, 49152), ids)


def test_fill_bitmask_writes_the_allowed_tokens_and_eos_only_when_accepting(
    smol: tuple[Any, TokenVocabulary],
) -> None:
    """The peers' entry point: a (batch, words) int32 row per matcher, EOS bit only in accepting
    states, and an empty mask raises instead of being written."""
    _, vocab = smol
    engine = GrammarEngine(compile_grammar(Grammar({"root": repeat(literal("ab"), 1, 2)})), vocab)
    matcher = engine.matcher()
    rows = np.full((2, (vocab.size + 31) // 32), -1, dtype=np.int32)
    matcher.fill_bitmask(rows, 1)
    assert np.array_equal(ids_from_bitmask(rows[1], vocab.size), matcher.allowed_token_ids())
    assert (rows[0] == -1).all()  # other rows untouched
    eos = min(vocab.eos_ids)
    assert eos not in set(ids_from_bitmask(rows[1], vocab.size).tolist())
    matcher.consume(vocab.token_bytes.index(b"ab"))
    matcher.fill_bitmask(rows, 1)
    allowed = set(ids_from_bitmask(rows[1], vocab.size).tolist())
    assert eos in allowed and vocab.token_bytes.index(b"ab") in allowed
    with pytest.raises(ValueError):  # the cached mask is read-only: nobody can corrupt it
        engine.bitmask(matcher.config)[0] = 0
    matcher.consume(vocab.token_bytes.index(b"ab"))
    matcher.consume(eos)
    matcher.fill_bitmask(rows, 1)
    assert not rows[1].any()  # after EOS nothing is allowed


def test_forced_bytes_and_fast_forward(smol: tuple[Any, TokenVocabulary]) -> None:
    _, vocab = smol
    g = Grammar({"root": seq(literal('{"name":"'), repeat(Ref("c"), 1, 3), literal('"}')), "c": literal("x")})
    engine = GrammarEngine(compile_grammar(g), vocab)
    matcher = engine.matcher()
    assert matcher.forced_bytes() == b'{"name":"x'
    assert matcher.fast_forward() == []  # several tokenisations of the forced prefix exist


def test_empty_mask_is_a_diagnostic_error() -> None:
    # A vocabulary that cannot spell the grammar's next byte: the matcher must say so, not emit EOS.
    vocab = TokenVocabulary([b"a", b"b", b""], eos_ids=[2])
    engine = GrammarEngine(compile_grammar(Grammar({"root": literal("ac")})), vocab)
    matcher = engine.matcher()
    matcher.consume(0)
    with pytest.raises(EmptyMaskError, match="rule stacks") as err:
        matcher.allowed_token_ids()
    assert err.value.prefix == b"a"
    rows = np.full((1, 1), 7, dtype=np.int32)
    with pytest.raises(EmptyMaskError):  # the bitset entry point too, twice (the verdict is cached)
        matcher.fill_bitmask(rows)
    with pytest.raises(EmptyMaskError):
        matcher.fill_bitmask(rows)
    assert rows[0, 0] == 7  # nothing written


BOUNDED_SCHEMAS = [
    # the last copies of a bounded repetition get banded masks; the first ones share one key
    {"type": "object", "properties": {"id": {"type": "string", "maxLength": 24}}, "required": ["id"]},
    {"type": "object", "properties": {"id": {"type": "string", "minLength": 3, "maxLength": 120}}},
    {"type": "array", "items": {"type": "string", "maxLength": 5}, "minItems": 2, "maxItems": 90},
    {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2,20}$"}}},
    # no repetition: its "closing quote" state must not meet a band's mask of the same shape
    {"type": "object", "properties": {"k": {"enum": ["ab", "abc"]}, "t": {"type": "string"}}},
]


def _walk_short(engine: GrammarEngine, rng: random.Random, steps: int) -> None:
    """A random walk preferring 1–2 byte tokens, so that it gets deep into repetitions."""
    matcher = engine.matcher()
    vocab = engine.vocab
    for _ in range(steps):
        ids = matcher.allowed_token_ids().tolist()
        if not ids:
            return
        short = [t for t in ids if len(vocab.token_bytes[t]) <= 2 and t not in vocab.eos_ids] or ids
        matcher.consume(rng.choice(short))
        if matcher.is_terminated():
            return


@pytest.mark.parametrize("index", range(len(BOUNDED_SCHEMAS)))
def test_masks_equal_a_full_trie_walk_near_repetition_ends(
    smol: tuple[Any, TokenVocabulary], index: int
) -> None:
    """Horizon-shared keys, length bands and masks shared between grammars compute exactly what a
    plain walk of the whole vocabulary does — checked along random walks that reach the ends."""
    from gramwright.schema import compile_schema

    _, vocab = smol
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    rng = random.Random(index)
    # the other grammars first, so that the engine under test meets masks shared from them
    for other in BOUNDED_SCHEMAS:
        if other is not BOUNDED_SCHEMAS[index]:
            _walk_short(GrammarEngine(compile_schema(other).grammar, vocab), rng, 80)
    engine = GrammarEngine(compile_schema(BOUNDED_SCHEMAS[index]).grammar, vocab)
    checked = 0
    for _ in range(3):
        matcher = engine.matcher()
        for _ in range(60):
            ours = engine.masks.allowed(matcher.config)
            ref = _trie_walk(engine.compiled, trie, matcher.config)
            assert np.array_equal(ours, ref), matcher.output
            checked += 1
            if ours.size == 0:
                break
            # prefer short tokens, so that walks get deep into the repetitions
            short = [t for t in ours.tolist() if len(vocab.token_bytes[t]) <= 2] or ours.tolist()
            matcher.consume(rng.choice(short))
            if matcher.is_terminated():
                break
    assert checked > 20


def test_runs_near_a_string_end_equal_a_full_trie_walk(smol: tuple[Any, TokenVocabulary]) -> None:
    """Near the end of ``maxLength``, a string's ordinary characters form a run: tokens made of
    them are decided by length and only the others are walked. Masks up to the end (and at its
    last copies, where the closing quote is forced) equal a plain walk of the whole vocabulary."""
    from gramwright.schema import compile_schema

    tok, vocab = smol
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    vocab.tables.forget_shared()  # computed here, not taken from masks other tests left behind
    schema = {"type": "object", "properties": {"s": {"type": "string", "minLength": 2, "maxLength": 21}}}
    engine = GrammarEngine(compile_schema(schema).grammar, vocab)
    _check_document(engine, trie, tok, '{"s":"' + "ab é" * 5 + 'x"}')
    runs = [run for run in engine.masks.walker._runs.values() if run is not None]
    assert runs and max(k for _, k in runs) == 21


def test_byte_sets_and_run_tokens_match_the_token_bytes(smol: tuple[Any, TokenVocabulary]) -> None:
    """The per-token byte sets behind loop acceptance and runs say what the token bytes say."""
    from gramwright.engine.byte_sets import tail_inside
    from gramwright.engine.runs import pure_tokens

    _, vocab = smol
    ordinary = set(range(0x20, 0x80)) - {0x22, 0x5C}  # a string's ordinary characters
    bits = sum(1 << b for b in ordinary)
    sets = vocab.tables.tail_sets()
    tails = np.array([set(t[1:]) <= ordinary for t in vocab.token_bytes])
    assert np.array_equal(tail_inside(sets, bits), tails)
    ids = np.arange(0, vocab.size, 7, dtype=np.int32)
    assert np.array_equal(tail_inside(sets, bits, ids), tails[ids])
    pure = np.array([bool(t) and set(t) <= ordinary for t in vocab.token_bytes])
    assert np.array_equal(pure_tokens(vocab, bits), pure)
    assert 40_000 < pure.sum() < vocab.size  # most tokens, not all (quotes, escapes, non-ASCII)


@pytest.mark.parametrize("extra", [False, True])
def test_wide_object_masks_equal_a_full_trie_walk(smol: tuple[Any, TokenVocabulary], extra: bool) -> None:
    """After a member of a wide object with optional members, every later member's key hangs
    under the object's frame (many stacks, some keys sharing prefixes); with additional
    properties, keys "other than" the names run into the free string, which trie walks take
    subtree by subtree. Masks along an in-order document and along random walks equal a plain
    walk of the vocabulary."""
    from gramwright.schema import compile_schema

    _, vocab = smol
    names = ["alpha", "alpine", "beta", "bet", "gamma", "delta", "deltoid", "epsilon", "eta", "zeta"]
    schema = {
        "type": "object",
        "properties": {n: {"type": "string"} if i % 2 else {"type": "integer"} for i, n in enumerate(names)},
        "additionalProperties": {"type": "integer"} if extra else False,
    }
    engine = GrammarEngine(compile_schema(schema).grammar, vocab)
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    tok = smol[0]
    text = '{"alpha":1,"beta":2,"delta":"x","zeta":"end"}'
    if extra:
        text = '{"alpha":1,"beta":2,"delta":"x","zeta":"end","alphabet soup":7,"zetas":3}'
    _check_document(engine, trie, tok, text)
    _check_random_walks(engine, trie, random.Random(3), 6, 40)


def test_band_keys_never_stand_in_for_whole_keys(smol: tuple[Any, TokenVocabulary]) -> None:
    """The last length band has the whole vocabulary's horizon but not its tokens: a state's mask
    key for it must differ from its whole-vocabulary key (or a shared band mask, computed near
    the end of a repetition in one grammar, would be served as a whole mask in another)."""
    from gramwright.grammar.gbnf import parse_gbnf

    _, vocab = smol
    engine = GrammarEngine(parse_gbnf('root ::= "[" t "]"\nt ::= "\\"ab\\""'), vocab)
    masks = engine.masks
    config = engine.compiled.walk(engine.compiled.initial, b'["ab')
    keys = set()
    for frame in engine.compiled.config_frames[config]:
        chain, parent = masks._top(frame)
        keys.add(masks._key(chain, parent == 0, None))
        for band in range(len(masks.band_uppers)):
            keys.add(masks._key(chain, parent == 0, band))
    assert len(keys) == len(masks.band_uppers) + 1


def test_literal_runs_in_token_walks_equal_a_full_trie_walk(
    smol: tuple[Any, TokenVocabulary],
) -> None:
    """Trie walks follow a literal down the vocabulary trie without a state per byte, and fall
    back to stepping when tokens run past its end (``"re"`` then letters: "request", "return"):
    masks along random walks equal a plain walk of the vocabulary."""
    from gramwright.grammar.gbnf import parse_gbnf

    _, vocab = smol
    gbnf = (
        'root ::= "{" (m1 | m2)? "}"\n'
        'm1 ::= "\\"re" [a-z]* "\\":" ("true" | "null")\n'
        'm2 ::= "\\"address_line\\":" [0-9]+ ("," m1)?\n'
    )
    engine = GrammarEngine(parse_gbnf(gbnf), vocab)
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    seen = _check_random_walks(engine, trie, random.Random(11), 12, 30)
    walker = engine.masks.walker
    assert seen > 50 and any(walker._literals.values())  # the shortcut was taken


def test_steps_over_whole_literal_runs_in_trie_walks_equal_a_full_trie_walk(
    smol: tuple[Any, TokenVocabulary], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where tokens go on past a literal run (``":`` then ``":"``; ``b`` of ``(ab){0,200}`` then
    ``ba``), a trie walk takes one step over the whole run (``LocalAutomaton.after_run``) — byte by
    byte inside an unrolled repetition, whose states are folded after every byte. Masks along a
    document and along random walks equal a plain walk of the vocabulary, and both ways were
    taken."""
    from gramwright.engine.local import LocalAutomaton
    from gramwright.schema import compile_schema

    taken: dict[bool, int] = {True: 0, False: 0}
    original = LocalAutomaton.after_run

    def counting(self: LocalAutomaton, lid: int, run: bytes) -> int:
        if lid not in self._after_runs:
            (chain,) = self.chains[lid]
            assert self.horizon is not None
            taken[self.keys.folds(self.cg.state_rule(chain[0]), self.horizon)] += 1
        return original(self, lid, run)

    monkeypatch.setattr(LocalAutomaton, "after_run", counting)
    tok, vocab = smol
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "id": {"type": "integer"},
            "p": {"type": "string", "pattern": "^(ab){0,200}$"},
        },
        "required": ["a", "p"],
    }
    engine = GrammarEngine(compile_schema(schema).grammar, vocab)
    _check_document(engine, trie, tok, '{"a":"x y","id":12,"p":"' + "ab" * 120 + '"}')
    _check_random_walks(engine, trie, random.Random(11), 8, 40)
    assert taken[False] > 0 and taken[True] > 0


def test_class_steps_and_literal_prefixes_in_trie_walks_equal_a_full_trie_walk(
    smol: tuple[Any, TokenVocabulary], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trie walks step a node with many children one byte class at a time (after a free key's
    known prefix, every letter but the name's next leaves for the free string: one range), and
    share the mask of a literal no token runs past (every optional member still open starts
    ``,"``). Masks along an in-order document and along random walks equal a plain walk of the
    vocabulary, and both shortcuts were taken."""
    from gramwright.engine.local_masks import LocalWalker
    from gramwright.schema import compile_schema

    taken = {"classes": 0}
    original = LocalWalker._whole_classes

    def counting(self: LocalWalker, trie: TokenTrie, node: int, cur: int, kids: tuple, whole: list) -> list:
        before = len(whole)
        rest = original(self, trie, node, cur, kids, whole)
        taken["classes"] += len(whole) - before
        return rest

    monkeypatch.setattr(LocalWalker, "_whole_classes", counting)
    tok, vocab = smol
    names = ["interval", "internal", "item_id", "item_name", "active", "action", "price", "print"]
    # a pattern's class of 37 bytes is walked by trie too: under a letter, a class leads into its
    # loop, but some tokens below hold bytes outside it (a range is taken whole only when none do)
    properties: dict[str, object] = {
        n: {"type": "integer"} if i % 3 else {"type": "string"} for i, n in enumerate(names)
    }
    properties["code"] = {"type": "string", "pattern": "^[a-z0-9_]+$"}
    schema = {"type": "object", "properties": properties, "additionalProperties": {"type": "boolean"}}
    engine = GrammarEngine(compile_schema(schema).grammar, vocab)
    trie = TokenTrie(vocab.token_bytes, [True] * vocab.size)
    text = '{"interval":"a","item_id":3,"action":1,"code":"ab_cd9x","intern":true,"prin":false}'
    _check_document(engine, trie, tok, text)
    rng = random.Random(5)
    _check_random_walks(engine, trie, rng, 8, 30)
    assert taken["classes"] > 0
    # a wide object: each optional member still open is its own stack top, its literal ``,"field_``
    wide = {f"field_{i:02d}": {"type": "integer"} for i in range(12)}
    engine = GrammarEngine(compile_schema({"type": "object", "properties": wide}).grammar, vocab)
    _check_document(engine, trie, tok, '{"field_00":1,"field_03":22,"field_07":-3}')
    _check_random_walks(engine, trie, rng, 6, 30)
    # … whose masks are the prefixes' the trie holds: one prefix mask serves several stack tops
    prefix_bits = {id(m.accepted) for m in engine.masks.walker._prefix_masks.values()}
    served = [id(bits) for parts in engine.masks._frame_parts.values() for bits, _ in parts]
    assert max(served.count(i) for i in prefix_bits) >= 2
