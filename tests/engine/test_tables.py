"""Per-vocabulary tables (engine/tables.py): one object per vocabulary, shared while a vocabulary of
that fingerprint lives, freed with the last one, emptied by ``clear()`` without changing any mask."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np

from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.tables import BoundedStore
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.recognizer import compile_grammar
from tests.support.tokens import encode

TOKENS = [b"a", b"ab", b"b", b'"', b"{", b"}", b"ba"]


def test_vocabularies_with_one_fingerprint_share_their_tables_while_one_lives() -> None:
    first, second = TokenVocabulary(TOKENS), TokenVocabulary(list(TOKENS))
    assert first.tables is second.tables
    assert TokenVocabulary(TOKENS[:-1]).tables is not first.tables
    engine = GrammarEngine(compile_grammar(load_bundled("json")), first)
    engine.bitmask(engine.compiled.initial)
    assert first.tables.describe()["arrays"]
    held = weakref.ref(first.tables)
    del first, second, engine
    gc.collect()
    assert held() is None  # nothing process-wide keeps them: dropping the users frees them
    assert not TokenVocabulary(TOKENS).tables.describe()["arrays"]


def test_clear_frees_the_tables_and_masks_come_out_the_same(smol: tuple[Any, TokenVocabulary]) -> None:
    tok, vocab = smol
    grammar = compile_grammar(load_bundled("json"))
    text = '{"name":"Ada Lovelace","born":1815,"tags":["math","poetry"],"ok":true}'
    ids = encode(tok, text)

    def masks(engine: GrammarEngine) -> list[np.ndarray]:
        matcher = engine.matcher()
        out = []
        for tid in ids:
            out.append(matcher.bitmask().copy())
            matcher.consume(tid)
        return out

    before = masks(GrammarEngine(grammar, vocab))
    held = vocab.tables.describe()
    assert held["trie"] and held["tail_sets"] and held["shared_masks"] > 0
    vocab.tables.clear()
    assert vocab.tables.describe() == {
        "arrays": False,
        "trie": False,
        "tail_sets": False,
        "shared_masks": 0,
        "suffix_masks": 0,
        "pure_token_sets": 0,
        "band_tables": 0,
    }
    after = masks(GrammarEngine(grammar, vocab))
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    assert vocab.tables.describe()["arrays"]


def test_forget_shared_drops_only_the_masks_shared_between_grammars(
    smol: tuple[Any, TokenVocabulary],
) -> None:
    _, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    matcher = engine.matcher()
    for tid in encode(smol[0], '{"k":"some text"}')[:4]:
        matcher.bitmask()
        matcher.consume(tid)
    assert vocab.tables.describe()["shared_masks"] > 0
    vocab.tables.forget_shared()
    held = vocab.tables.describe()
    assert held["shared_masks"] == held["suffix_masks"] == 0 and held["trie"]


def test_bounded_store_drops_the_oldest_entry() -> None:
    store: BoundedStore[str, int] = BoundedStore(2)
    store.put("a", 1)
    store.put("b", 2)
    store.put("a", 3)  # an existing key is replaced, nothing dropped
    assert store == {"a": 3, "b": 2}
    store.put("c", 4)
    assert store == {"b": 2, "c": 4}


def test_per_first_byte_tables_match_the_tokens_bytes(smol: tuple[Any, TokenVocabulary]) -> None:
    """The walks gather candidates and group masks from per-first-byte tables: each must be
    exactly the tokens with that first byte (and length), or a free key's mask would drift."""
    from gramwright.engine import bitset
    from gramwright.engine.local import LocalAutomaton
    from gramwright.engine.local_masks import LocalWalker

    _, vocab = smol
    arrays = vocab.tables.arrays()
    lengths = vocab.lengths
    first = vocab.byte_matrix[:, 0]
    for b in (0x22, ord("a"), ord(" "), 0xC3, 0xFF):
        with_bytes = np.flatnonzero((lengths > 0) & (first == b))
        assert arrays.by_first[b].tolist() == with_bytes.tolist()
        singles = np.flatnonzero((lengths == 1) & (first == b))
        assert arrays.single_by_first[b].tolist() == singles.tolist()
        multi = bitset.pack_bools((lengths > 1) & (first == b))
        assert (arrays.multi_bits_below[b + 1] ^ arrays.multi_bits_below[b] == multi).all()
    walker = LocalWalker(LocalAutomaton(compile_grammar(load_bundled("json"))), vocab)
    rng = np.random.default_rng(7)
    groups = []
    for size in (3, 100, 129, 250):  # scattered bytes: many runs
        group = np.zeros(256, dtype=bool)
        group[rng.choice(256, size=size, replace=False)] = True
        groups.append(group)
    for lo, hi in ((0, 256), (0, 1), (255, 256), (0x20, 0x80), (7, 7)):  # one run (or none) …
        group = np.zeros(256, dtype=bool)
        group[lo:hi] = True
        groups.append(group)
    other_than = groups[-2].copy()
    other_than[[0x22, 0x5C, ord("a"), ord("r")]] = False  # … and a free key's "other than" letters
    groups.append(other_than)
    for group in groups:
        expected = bitset.pack_bools((lengths > 1) & group[first])
        assert (walker._group_bits(group) == expected).all()
        picked = walker._starting_with_ids(group, ~group)
        want = np.flatnonzero((lengths > 0) & (group[first] | (~group[first] & (lengths == 1))))
        assert picked.tolist() == want.tolist()
