"""Every token id as the exact bytes it appends to the output: what the engine's masks are computed over.

The byte string of a token is read from the tokenizer's own backend description (its ``decoder`` and
``model`` sections), never guessed from a few tokens:

* byte-level BPE (GPT-2 family, SmolLM2, Llama 3, Qwen): each character of a token stands for one byte
  through GPT-2's byte↔unicode table;
* SentencePiece style (Llama 2, Mistral, Gemma): ``▁`` (the Metaspace / Replace decoder's character) is a
  space, and with byte fallback a ``<0xNN>`` token is that single byte;
* non-special added tokens are their content's UTF-8 bytes; special/control tokens (and the unknown token)
  have no bytes at all: the engine allows them only where a grammar names them (EOS: in accepting states).

Sequence-level decoder quirks (Metaspace stripping the first token's leading space) are not token bytes
and are left to whoever renders a whole output.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from gramwright.engine.tables import VocabularyTables
from gramwright.errors import EngineError

# Part of every fingerprint: bump it when the meaning of token bytes changes.
_FINGERPRINT_VERSION = b"gramwright-vocab-1\0"
_BYTE_FALLBACK_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>\Z")


class VocabularyError(EngineError):
    """A tokenizer whose tokens cannot be read as byte strings."""


class UnsupportedTokenizerError(VocabularyError):
    def __init__(self, message: str) -> None:
        self.hint = "use a model whose tokenizer.json has a ByteLevel or Metaspace/ByteFallback decoder"
        super().__init__(message)


def _gpt2_unicode_to_byte() -> dict[str, int]:
    """GPT-2's table: printable bytes stand for themselves, the other 68 are shifted to U+0100 onwards."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table = {chr(b): b for b in printable}
    shifted = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


_UNICODE_TO_BYTE = _gpt2_unicode_to_byte()


@dataclass(frozen=True)
class DecoderScheme:
    """How a token's string becomes bytes; ``kind`` is "byte_level" or "metaspace"."""

    kind: str
    replacement: str = "▁"
    byte_fallback: bool = False

    @property
    def name(self) -> str:
        return self.kind + ("+byte_fallback" if self.byte_fallback else "")

    def token_bytes(self, token: str) -> bytes:
        if self.kind == "byte_level":
            # As tokenizers' ByteLevel decoder: a token with any unmapped character is taken as UTF-8.
            mapped = [_UNICODE_TO_BYTE.get(ch) for ch in token]
            if all(b is not None for b in mapped):
                return bytes(b for b in mapped if b is not None)
            return token.encode("utf-8")
        if self.byte_fallback and (match := _BYTE_FALLBACK_TOKEN.match(token)):
            return bytes([int(match.group(1), 16)])
        return token.replace(self.replacement, " ").encode("utf-8")


def _flatten(section: Mapping[str, Any] | None, key: str) -> list[Mapping[str, Any]]:
    if not section:
        return []
    if section.get("type") == "Sequence":
        return [part for child in section.get(key, []) for part in _flatten(child, key)]
    return [section]


def detect_scheme(spec: Mapping[str, Any]) -> DecoderScheme:
    """The decoding scheme from a tokenizer.json document (``Tokenizer.to_str()`` parsed)."""
    decoders = _flatten(spec.get("decoder"), "decoders")
    pre_tokenizers = _flatten(spec.get("pre_tokenizer"), "pretokenizers")
    types = {d.get("type") for d in decoders}
    if "ByteLevel" in types or any(p.get("type") == "ByteLevel" for p in pre_tokenizers):
        return DecoderScheme("byte_level")
    byte_fallback = "ByteFallback" in types or bool((spec.get("model") or {}).get("byte_fallback"))
    for d in decoders:
        if d.get("type") == "Metaspace":
            return DecoderScheme("metaspace", str(d.get("replacement", "▁")), byte_fallback)
        pattern = d.get("pattern") or {}
        if d.get("type") == "Replace" and d.get("content") == " " and "String" in pattern:
            return DecoderScheme("metaspace", str(pattern["String"]), byte_fallback)
    raise UnsupportedTokenizerError(
        f"cannot tell the bytes of tokens from decoder {sorted(t for t in types if t) or 'none'}"
    )


class TokenVocabulary:
    """Token id → bytes for ids in ``[0, size)``, plus numpy views for whole-vocabulary mask passes.

    ``fingerprint`` is the sha256 of every token's bytes, the special ids and the EOS ids: it is the
    tokenizer component of every compiled-artefact and mask cache key (two tokenizers with the same
    fingerprint get the same masks, any difference changes it).

    From a loaded model or a model name: ``gramwright.models.vocabulary`` (the engine knows no
    model loader).
    """

    def __init__(
        self,
        token_bytes: list[bytes],
        special_ids: Iterable[int] = (),
        eos_ids: Iterable[int] = (),
        special_tokens: Mapping[int, str] | None = None,
        decoder_kind: str = "bytes",
    ) -> None:
        self.eos_ids = frozenset(eos_ids)
        # EOS is a control token too: it never contributes bytes, the engine allows it by state.
        self.special_ids = frozenset(special_ids) | self.eos_ids
        self.token_bytes = [b"" if i in self.special_ids else b for i, b in enumerate(token_bytes)]
        self.size = len(self.token_bytes)
        self.special_tokens: Mapping[int, str] = dict(special_tokens or {})
        self.decoder_kind = decoder_kind
        # A zero-length token is never allowed (it would advance nothing), so 0 also marks unusable ids.
        self.lengths = np.fromiter((len(b) for b in self.token_bytes), dtype=np.int32, count=self.size)
        flat = np.frombuffer(b"".join(self.token_bytes), dtype=np.uint8)
        starts = np.cumsum(self.lengths) - self.lengths
        rows = np.repeat(np.arange(self.size), self.lengths)
        cols = np.arange(flat.size) - np.repeat(starts, self.lengths)
        self.byte_matrix = np.zeros((self.size, max(int(self.lengths.max(initial=0)), 1)), dtype=np.uint8)
        self.byte_matrix[rows, cols] = flat
        self.lengths.setflags(write=False)
        self.byte_matrix.setflags(write=False)
        digest = hashlib.sha256(_FINGERPRINT_VERSION)
        digest.update(np.array([self.size, len(self.special_ids), len(self.eos_ids)], dtype="<i8").tobytes())
        digest.update(self.lengths.astype("<i4").tobytes())
        digest.update(flat.tobytes())
        digest.update(np.array(sorted(self.special_ids), dtype="<i8").tobytes())
        digest.update(np.array(sorted(self.eos_ids), dtype="<i8").tobytes())
        self.fingerprint = digest.hexdigest()
        self._tables: VocabularyTables | None = None

    @property
    def tables(self) -> VocabularyTables:
        """What the engine derives from this vocabulary alone (trie, byte tables, the masks
        shared between grammars), built lazily; shared with every live vocabulary of the same
        fingerprint. ``tables.clear()`` frees it (``tables.py``)."""
        if self._tables is None:
            self._tables = VocabularyTables.of(self)
        return self._tables

    @classmethod
    def from_tokenizer(
        cls, tokenizer: Any, vocab_size: int | None = None, eos_ids: Iterable[int] = ()
    ) -> TokenVocabulary:
        """From a transformers tokenizer or a ``tokenizers.Tokenizer``; ``vocab_size`` is the model's
        logits width when it exceeds the tokenizer (padding rows become unusable ids)."""
        backend = (
            tokenizer if isinstance(tokenizer, Tokenizer) else getattr(tokenizer, "backend_tokenizer", None)
        )
        if not isinstance(backend, Tokenizer):
            raise UnsupportedTokenizerError(f"{type(tokenizer).__name__} has no fast (tokenizers) backend")
        spec = json.loads(backend.to_str())
        scheme = detect_scheme(spec)
        added = {int(entry["id"]): entry for entry in spec.get("added_tokens", [])}
        size = max(
            backend.get_vocab_size(with_added_tokens=True), max(added, default=-1) + 1, vocab_size or 0
        )
        special = {i for i, entry in added.items() if entry.get("special")}
        unk = (spec.get("model") or {}).get("unk_token")
        # The unknown token stands for text the tokenizer could not represent, not for "<unk>" itself.
        if isinstance(unk, str) and (unk_id := backend.token_to_id(unk)) is not None:
            special.add(unk_id)
        eos = set(eos_ids)
        if backend is not tokenizer:
            special |= {i for i in getattr(tokenizer, "all_special_ids", []) if isinstance(i, int)}
            if isinstance(getattr(tokenizer, "eos_token_id", None), int):
                eos.add(tokenizer.eos_token_id)
        token_bytes: list[bytes] = []
        for i in range(size):
            entry = added.get(i)
            if entry is not None:
                content = str(entry["content"])
                if scheme.kind == "metaspace" and entry.get("normalized"):
                    content = content.replace(scheme.replacement, " ")
                token_bytes.append(content.encode("utf-8"))
                continue
            token = backend.id_to_token(i)
            token_bytes.append(b"" if token is None else scheme.token_bytes(token))
        names = {i: str(added[i]["content"]) if i in added else backend.id_to_token(i) or "" for i in special}
        return cls(token_bytes, special, eos, names, scheme.name)

    def describe(self) -> dict[str, object]:
        """Plain numbers for reports: how big, how many control and unusable ids, token byte lengths."""
        usable = self.lengths[self.lengths > 0]
        return {
            "size": self.size,
            "decoder": self.decoder_kind,
            "special": len(self.special_ids),
            "eos": sorted(self.eos_ids),
            "unusable": int(self.size - usable.size),
            "max_token_bytes": int(usable.max(initial=0)),
            "mean_token_bytes": round(float(usable.mean()), 2) if usable.size else 0.0,
            "fingerprint": self.fingerprint,
        }
