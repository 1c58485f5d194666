"""The engine's disk cache: keyed by grammar and tokenizer, restores identical masks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gramwright.engine import cache
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, literal


@pytest.fixture
def vocab() -> TokenVocabulary:
    pieces = [b"{", b"}", b'"', b"a", b"ab", b":", b"1", b"12", b",", b"[", b"]", b"true", b'"}', b""]
    return TokenVocabulary(pieces, eos_ids=[len(pieces) - 1])


def test_restored_engine_gives_identical_masks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vocab: TokenVocabulary
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    grammar = load_bundled("json")
    first = cache.load_engine(grammar, vocab)
    assert not first.from_cache
    m = first.matcher()
    seen = []
    for piece in (b"{", b'"', b"ab", b'"', b":", b"12"):
        seen.append((m.config, first.allowed_ids(m.config).copy()))
        m.consume(vocab.token_bytes.index(piece))
    path = cache.save_engine(first)
    assert path.exists() and path.parent == tmp_path / "engine"
    second = cache.load_engine(grammar, vocab)
    assert second.from_cache
    for config, ids in seen:
        assert np.array_equal(second.allowed_ids(config), ids)
    assert second.masks.misses == 0  # everything came from disk
    m2 = second.matcher()
    for piece in (b"[", b"true", b"]"):
        m2.consume(vocab.token_bytes.index(piece))
    assert m2.is_accepting()


def test_key_includes_tokenizer_and_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vocab: TokenVocabulary
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    grammar = Grammar({"root": literal("ab")})
    cache.save_engine(cache.load_engine(grammar, vocab))
    other_vocab = TokenVocabulary([b"a", b"b", b""], eos_ids=[2])
    assert not cache.load_engine(grammar, other_vocab).from_cache
    assert not cache.load_engine(Grammar({"root": literal("abc")}), vocab).from_cache
    assert cache.load_engine(grammar, vocab).from_cache


def test_corrupt_entry_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vocab: TokenVocabulary
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    grammar = Grammar({"root": literal("ab")})
    path = cache.save_engine(cache.load_engine(grammar, vocab))
    path.write_bytes(b"not a pickle")
    engine = cache.load_engine(grammar, vocab)
    assert not engine.from_cache
    assert engine.allowed_ids(engine.compiled.initial).tolist() == [vocab.token_bytes.index(b"a"), 4]
