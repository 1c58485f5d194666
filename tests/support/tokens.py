"""Real tokenizers for the engine tests, loaded afresh on each call (the session fixtures
``smol`` and ``sentencepiece`` in tests/conftest.py hold one of each), and encoding text with
either kind."""

from __future__ import annotations

from typing import Any

from gramwright.engine.vocab import TokenVocabulary


def load_smol() -> tuple[Any, TokenVocabulary]:
    """The embedded SmolLM2 tokenizer and our vocabulary of it."""
    from gramwright.models.loader import load_tokenizer

    tok = load_tokenizer()
    return tok, TokenVocabulary.from_tokenizer(tok)


def load_sentencepiece() -> tuple[Any, TokenVocabulary]:
    """A SentencePiece-style tokenizer (bench/tokenizers_fixtures.py) and our vocabulary of it."""
    from bench.tokenizers_fixtures import sentencepiece_tokenizer

    tok = sentencepiece_tokenizer()
    return tok, TokenVocabulary.from_tokenizer(tok)


def encode(tok: object, text: str) -> list[int]:
    """``text``'s token ids, from a Hugging Face tokenizer or a ``tokenizers`` one."""
    if hasattr(tok, "backend_tokenizer"):
        return list(tok.encode(text, add_special_tokens=False))  # type: ignore[attr-defined]
    return list(tok.encode(text, add_special_tokens=False).ids)  # type: ignore[attr-defined]
