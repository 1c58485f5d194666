"""The engine's disk cache (engine/cache.py): the tokenizer's mask store behind an engine, keyed
by tokenizer and engine version, restores identical masks, and a damaged file is rebuilt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gramwright.engine import cache
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, alt, literal

PIECES = [b"{", b"}", b'"', b"a", b"ab", b":", b"1", b"12", b",", b"[", b"]", b"true", b'"}', b""]


@pytest.fixture
def vocab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TokenVocabulary]:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    vocab = TokenVocabulary(PIECES, eos_ids=[len(PIECES) - 1])
    yield vocab
    vocab.tables.attach(None)  # tables are shared by fingerprint: leave no store behind
    vocab.tables.clear()


def _keyed(*texts: str) -> Grammar:
    """Literals sharing their first byte: the first mask is a keyed walk (tokens go on past the
    shared ``a``), where one literal's mask is its prefix's, named by no key and never stored."""
    return Grammar({"root": alt(*(literal(t) for t in texts))})


def _forget(vocab: TokenVocabulary) -> None:
    """As a new process: nothing in memory, a new store object that reads the disk afresh."""
    vocab.tables.attach(None)
    vocab.tables.clear()


def test_restored_engine_gives_identical_masks(tmp_path: Path, vocab: TokenVocabulary) -> None:
    grammar = load_bundled("json")
    first = cache.load_engine(grammar, vocab)
    assert not first.from_cache
    m = first.matcher()
    seen = []
    for piece in (b"{", b'"', b"ab", b'"', b":", b"12"):
        seen.append(first.allowed_ids(m.config).copy())
        m.consume(vocab.token_bytes.index(piece))
    path = cache.save_engine(first)
    assert path is not None and path.exists() and path.parent.parent == tmp_path / "masks"
    assert cache.save_engine(first) is None  # nothing new since
    _forget(vocab)
    second = cache.load_engine(grammar, vocab)
    assert second.from_cache
    m2 = second.matcher()
    for ids, piece in zip(seen, (b"{", b'"', b"ab", b'"', b":", b"12"), strict=True):
        assert np.array_equal(second.allowed_ids(m2.config), ids)
        m2.consume(vocab.token_bytes.index(piece))
    store = cache.store_of(vocab)
    assert store.hits > 0 and store.misses == 0  # every local mask came from disk
    assert second.masks.local_misses == 0


def test_key_includes_tokenizer_and_grammar(vocab: TokenVocabulary) -> None:
    grammar = _keyed("ab", "a1")
    first = cache.load_engine(grammar, vocab)
    first.bitmask(first.compiled.initial)
    assert cache.save_engine(first) is not None
    _forget(vocab)
    other_vocab = TokenVocabulary([b"a", b"b", b""], eos_ids=[2])
    try:
        assert not cache.load_engine(grammar, other_vocab).from_cache
    finally:
        other_vocab.tables.attach(None)
    # another grammar on the same tokenizer finds the store, but none of its own masks
    other = cache.load_engine(_keyed("abc", "a1"), vocab)
    other.bitmask(other.compiled.initial)
    assert other.masks.local_misses > 0
    _forget(vocab)
    again = cache.load_engine(grammar, vocab)
    assert again.from_cache
    again.bitmask(again.compiled.initial)
    assert again.masks.local_misses == 0


def test_corrupt_entry_is_rebuilt(vocab: TokenVocabulary) -> None:
    grammar = _keyed("ab", "a1")
    engine = cache.load_engine(grammar, vocab)
    engine.bitmask(engine.compiled.initial)
    path = cache.save_engine(engine)
    assert path is not None
    path.write_bytes(b"not a mask store")
    _forget(vocab)
    engine = cache.load_engine(grammar, vocab)
    assert not engine.from_cache and not path.exists()
    assert engine.allowed_ids(engine.compiled.initial).tolist() == [vocab.token_bytes.index(b"a"), 4]


def test_no_store_without_the_cache(vocab: TokenVocabulary, tmp_path: Path) -> None:
    engine = cache.load_engine(Grammar({"root": literal("ab")}), vocab, use_cache=False)
    engine.bitmask(engine.compiled.initial)
    assert cache.save_engine(engine) is None and not (tmp_path / "masks").exists()
