"""Real tokenizers built in-process (no downloads) and varied sample texts, shared by the engine tests.

* ``sentencepiece_tokenizer()``: Llama-2-style BPE — Metaspace ``▁``, byte fallback through ``<0x00>``…
  ``<0xFF>`` in the model vocabulary (not added tokens, as in real SentencePiece conversions), ``<unk>``,
  ``<s>``/``</s>`` as special added tokens.
* ``byte_level_tokenizer()``: GPT-2-style byte-level BPE with ``<|endoftext|>``.

Both also carry one non-special added token (``<tool>``) and are trained on ``TRAINING_CORPUS``, which holds
no CJK, emoji, tabs or accented letters, so those force the byte paths.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

TRAINING_CORPUS: list[str] = [
    "The quick brown fox jumps over the lazy dog.",
    '{"name": "Alice", "age": 30, "tags": ["a", "b"], "ok": true, "score": null}',
    "def add(a, b):\n    return a + b\n",
    "Constrained decoding guarantees the form of an output, not its content.",
    "SELECT id, name FROM users WHERE age > 21 ORDER BY name;",
    "for i in range(10): print(i)",
    "A mask is a mechanism; a prompt is a request.",
    "[1, 2, 3, 4.5, -6e7]",
] * 4

NON_SPECIAL_ADDED = "<tool>"


def _trained_bpe_model(
    pre_tokenizer: pre_tokenizers.PreTokenizer, vocab_size: int, byte_level: bool
) -> dict[str, Any]:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [],
    )
    tokenizer.train_from_iterator(TRAINING_CORPUS, trainer=trainer)
    return json.loads(tokenizer.to_str())["model"]  # type: ignore[no-any-return]


@cache
def _sentencepiece_json(prepend_scheme: str) -> str:
    metaspace = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=prepend_scheme)
    trained = _trained_bpe_model(metaspace, vocab_size=300, byte_level=False)
    # SentencePiece layout: control tokens first, then the 256 byte tokens, then the learned pieces.
    vocab: dict[str, int] = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for piece in sorted(trained["vocab"], key=trained["vocab"].__getitem__):
        vocab.setdefault(piece, len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in trained["merges"]]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True))
    tokenizer.pre_tokenizer = metaspace
    tokenizer.decoder = decoders.Sequence(
        [
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Metaspace(replacement="▁", prepend_scheme=prepend_scheme),
        ]
    )
    tokenizer.add_special_tokens(["<unk>", "<s>", "</s>"])
    tokenizer.add_tokens([NON_SPECIAL_ADDED])
    return tokenizer.to_str()


def sentencepiece_tokenizer(prepend_scheme: str = "never") -> Tokenizer:
    """A fresh copy each call (tokenizers are mutable); the training itself is done once."""
    return Tokenizer.from_str(_sentencepiece_json(prepend_scheme))


@cache
def _byte_level_json() -> str:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    tokenizer.train_from_iterator(TRAINING_CORPUS, trainer=trainer)
    tokenizer.add_tokens([NON_SPECIAL_ADDED])
    return tokenizer.to_str()


def byte_level_tokenizer() -> Tokenizer:
    return Tokenizer.from_str(_byte_level_json())


def as_transformers_tokenizer(tokenizer: Tokenizer, **special_tokens: str) -> Any:
    """Wrap for APIs that take a transformers tokenizer (``bos_token="<s>"``, ``eos_token=…``)."""
    from transformers import PreTrainedTokenizerFast

    wrapper: Any = PreTrainedTokenizerFast  # untyped constructor
    return wrapper(tokenizer_object=tokenizer, **special_tokens)


def token_id(tokenizer: Tokenizer, token: str) -> int:
    found = tokenizer.token_to_id(token)
    assert found is not None, token
    return found


_PIECES = [
    "hello",
    " world",
    "JSON",
    '{"k": "v"}',
    '"esc\\"aped\\\\ \\n \\t \\u00e9"',
    "待客户确认",
    "中文，标点。",
    "😀",
    "👩‍💻",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "café",
    "naïve",
    "e\u0301",
    "مرحبا",
    "Привет",
    "   ",
    "\t\t",
    "\n\n\n",
    "\r\n",
    "    return x\n",
    "if (a && b) { c(); }",
    "x = [1, 2, 3]",
    "-12.5e+3",
    "@#$%^&*()",
    "~`|\\",
    "\u00a0",
    "\x7f",
    "<tool>",
    "0",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
]


def sample_texts(count: int = 300, seed: int = 1234) -> list[str]:
    """Each piece alone, then ``count`` random concatenations of 1–8 pieces (deterministic)."""
    rng = random.Random(seed)
    texts = list(_PIECES)
    texts += ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 8))) for _ in range(count)]
    return texts
