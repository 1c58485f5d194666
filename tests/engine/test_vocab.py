"""TokenVocabulary: every token's bytes, checked by round-tripping real encodings back to the text."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer, decoders, models

from bench.tokenizers_fixtures import (
    NON_SPECIAL_ADDED,
    as_transformers_tokenizer,
    byte_level_tokenizer,
    sample_texts,
    sentencepiece_tokenizer,
    token_id,
)
from gramwright.engine.vocab import (
    DecoderScheme,
    TokenVocabulary,
    UnsupportedTokenizerError,
    detect_scheme,
)
from gramwright.models import load_tokenizer

TEXTS = sample_texts()


def _joined(vocab: TokenVocabulary, ids: list[int]) -> bytes:
    return b"".join(vocab.token_bytes[i] for i in ids)


def _assert_consistent_views(vocab: TokenVocabulary) -> None:
    assert vocab.byte_matrix.shape[0] == vocab.lengths.shape[0] == vocab.size == len(vocab.token_bytes)
    for i, data in enumerate(vocab.token_bytes):
        assert vocab.lengths[i] == len(data)
        assert vocab.byte_matrix[i, : len(data)].tobytes() == data
        assert not vocab.byte_matrix[i, len(data) :].any()
    for i in vocab.special_ids:
        assert vocab.token_bytes[i] == b"" and vocab.lengths[i] == 0
    assert vocab.eos_ids <= vocab.special_ids


def _single_byte_coverage(vocab: TokenVocabulary) -> set[int]:
    return {data[0] for data in vocab.token_bytes if len(data) == 1}


# -- SmolLM2 (byte-level BPE, from the embedded GGUF) ----------------------------------------------------


@pytest.fixture(scope="module")
def smol_tokenizer() -> Any:
    return load_tokenizer()


@pytest.fixture(scope="module")
def smol_vocab(smol_tokenizer: Any) -> TokenVocabulary:
    return TokenVocabulary.from_tokenizer(smol_tokenizer)


def test_smollm2_round_trip(smol_tokenizer: Any, smol_vocab: TokenVocabulary) -> None:
    assert len(TEXTS) > 300
    for text in TEXTS:
        ids = smol_tokenizer.encode(text, add_special_tokens=False)
        assert _joined(smol_vocab, ids) == text.encode("utf-8"), (text, ids)


def test_smollm2_shape_and_specials(smol_tokenizer: Any, smol_vocab: TokenVocabulary) -> None:
    assert smol_vocab.decoder_kind == "byte_level"
    assert smol_vocab.size == len(smol_tokenizer) == 49152
    assert smol_tokenizer.eos_token_id in smol_vocab.eos_ids
    assert smol_vocab.special_tokens[smol_tokenizer.eos_token_id] == smol_tokenizer.eos_token
    assert set(smol_tokenizer.all_special_ids) <= smol_vocab.special_ids
    _assert_consistent_views(smol_vocab)
    # SmolLM2 has no token at all for a few control bytes and for lead bytes of unassigned planes 4–11
    # (its tokenizer drops them: encode("a\x04b") == encode("ab")); everything else is one token away.
    missing = set(range(256)) - _single_byte_coverage(smol_vocab)
    assert missing == {0x04, 0x06, 0x13, 0x14, 0x16, 0x1D, 0xC0, 0xC1, 0xF1, 0xF2, *range(0xF5, 0x100)}
    assert not missing & set(b"".join(smol_vocab.token_bytes))
    stats = smol_vocab.describe()
    assert stats["max_token_bytes"] == smol_vocab.byte_matrix.shape[1]


def test_fingerprint_is_stable_and_discriminating(smol_tokenizer: Any, smol_vocab: TokenVocabulary) -> None:
    from gramwright.models.vocabulary import vocabulary_of_model

    again = vocabulary_of_model(None)
    assert again.fingerprint == smol_vocab.fingerprint
    assert TokenVocabulary.from_tokenizer(smol_tokenizer).fingerprint == smol_vocab.fingerprint
    other = TokenVocabulary.from_tokenizer(sentencepiece_tokenizer())
    assert other.fingerprint != smol_vocab.fingerprint
    # Anything the masks depend on changes the key: the logits width and the EOS set.
    wider = TokenVocabulary.from_tokenizer(smol_tokenizer, vocab_size=smol_vocab.size + 64)
    assert wider.fingerprint != smol_vocab.fingerprint
    more_eos = TokenVocabulary.from_tokenizer(smol_tokenizer, eos_ids=[0])
    assert more_eos.fingerprint != smol_vocab.fingerprint


def test_model_wider_than_tokenizer_pads_unusable_ids(smol_tokenizer: Any) -> None:
    vocab = TokenVocabulary.from_tokenizer(smol_tokenizer, vocab_size=len(smol_tokenizer) + 64)
    assert vocab.size == len(smol_tokenizer) + 64
    assert not vocab.lengths[len(smol_tokenizer) :].any()
    assert vocab.describe()["unusable"] == len(vocab.special_ids) + 64


# -- SentencePiece style (Metaspace + byte fallback), built in-test ---------------------------------------


def test_sentencepiece_round_trip_with_byte_fallback() -> None:
    tokenizer = sentencepiece_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    assert vocab.decoder_kind == "metaspace+byte_fallback"
    fallback_used = 0
    for text in TEXTS:
        encoding = tokenizer.encode(text, add_special_tokens=False)
        assert "<unk>" not in encoding.tokens, text
        fallback_used += sum(t.startswith("<0x") for t in encoding.tokens)
        assert _joined(vocab, encoding.ids) == text.encode("utf-8"), (text, encoding.tokens)
    assert fallback_used > 1000  # CJK, emoji, tabs… are absent from the training corpus
    assert vocab.token_bytes[token_id(tokenizer, "<0x0A>")] == b"\n"
    assert vocab.token_bytes[token_id(tokenizer, "▁")] == b" "
    assert vocab.token_bytes[token_id(tokenizer, NON_SPECIAL_ADDED)] == NON_SPECIAL_ADDED.encode()
    assert {token_id(tokenizer, t) for t in ("<unk>", "<s>", "</s>")} <= vocab.special_ids
    assert _single_byte_coverage(vocab) == set(range(256))
    _assert_consistent_views(vocab)


def test_sentencepiece_prepended_space_is_the_only_difference() -> None:
    # With prepend_scheme="first" the tokenizer adds "▁" before text that does not start with a space:
    # that space is real token content (the decoder strips it only at the start of a whole sequence).
    tokenizer = sentencepiece_tokenizer("first")
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    for text in TEXTS:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        # An added token is split off before pre-tokenization, so nothing is prepended in front of it.
        expected = text if text.startswith((" ", NON_SPECIAL_ADDED)) else " " + text
        assert _joined(vocab, ids) == expected.encode("utf-8"), text


def test_transformers_wrapper_adds_its_specials_and_eos() -> None:
    wrapped = as_transformers_tokenizer(
        sentencepiece_tokenizer(), bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    vocab = TokenVocabulary.from_tokenizer(wrapped)
    raw = TokenVocabulary.from_tokenizer(sentencepiece_tokenizer(), eos_ids=[wrapped.eos_token_id])
    assert vocab.eos_ids == frozenset({wrapped.eos_token_id})
    assert vocab.fingerprint == raw.fingerprint


# -- byte-level BPE, built in-test ----------------------------------------------------------------------


def test_byte_level_round_trip_and_added_tokens() -> None:
    tokenizer = byte_level_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    assert vocab.decoder_kind == "byte_level"
    for text in TEXTS:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        assert _joined(vocab, ids) == text.encode("utf-8"), text
    added = token_id(tokenizer, NON_SPECIAL_ADDED)
    assert vocab.token_bytes[added] == NON_SPECIAL_ADDED.encode() and added not in vocab.special_ids
    assert token_id(tokenizer, "<|endoftext|>") in vocab.special_ids
    assert _single_byte_coverage(vocab) == set(range(256))
    _assert_consistent_views(vocab)


# -- scheme detection -----------------------------------------------------------------------------------


def test_detects_gemma_style_replace_decoder() -> None:
    spec = {
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
            ],
        },
        "model": {"type": "BPE"},
    }
    scheme = detect_scheme(spec)
    assert scheme == DecoderScheme("metaspace", "▁", byte_fallback=True)
    assert scheme.token_bytes("▁hi▁") == b" hi " and scheme.token_bytes("<0xFF>") == b"\xff"


def test_wordpiece_is_refused_not_guessed() -> None:
    tokenizer = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    tokenizer.decoder = decoders.WordPiece()
    with pytest.raises(UnsupportedTokenizerError, match="WordPiece"):
        TokenVocabulary.from_tokenizer(tokenizer)


def test_direct_construction_for_engine_tests() -> None:
    vocab = TokenVocabulary([b"a", b"bc", b"", b"<eos>"], special_ids=[], eos_ids=[3])
    assert vocab.lengths.tolist() == [1, 2, 0, 0]
    assert vocab.special_ids == frozenset({3})
    assert vocab.byte_matrix.tolist() == [[97, 0], [98, 99], [0, 0], [0, 0]]
    assert vocab.byte_matrix.dtype == np.uint8 and vocab.lengths.dtype == np.int32
    with pytest.raises(ValueError):
        vocab.lengths[0] = 5  # the views are read-only: they are fingerprinted and shared by caches
