"""Warming a tokenizer's mask store: the common lexical states walked once, ahead of any schema.

Every JSON schema's grammar is made of the same lexical states — string bodies free and with
length bounds, numbers and integers, ``true``/``false``/``null``, member keys, array and object
punctuation — and those states' masks are keyed by content signature (``keys.py``), so masks
computed for the small schemas below serve every later schema on the tokenizer. Seeded random
walks (tokens drawn uniformly from each mask, as ``walks.py``) visit their states; the masks
land in the store (``mask_store.py``) and are flushed per grammar.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gramwright.engine.cache import load_engine, save_engine, store_of
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import DEAD

# bounds common in real schemas (1: ``char?``, no repetition to unroll; 10: the one bound whose
# first copy keys apart from every other bound's, for tokens of up to 8 bytes — the first copy
# with 9 more after it is folded onto by no later copy, where a longer bound's are)
_MAX_LENGTHS = (1, 8, 10, 16, 32, 64, 100, 128, 255, 256, 1000)
_STRINGS: list[dict[str, object]] = [{"type": "string"}, {"type": "string", "minLength": 1, "maxLength": 64}]
_STRINGS += [{"type": "string", "maxLength": n} for n in _MAX_LENGTHS]
_STRINGS += [{"type": "string", "minLength": n} for n in (1, 2, 3)]
# The schemas whose states are warmed (plain data: the caller compiles them).
WARM_SCHEMAS: list[dict[str, object]] = [
    *_STRINGS,
    {"type": "number"},
    {"type": "integer"},
    {"type": "integer", "minimum": 0},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "array", "items": {"type": "string"}},
    {"type": "array", "items": {"type": "number"}},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object"},
    {"type": "object", "properties": {"name": {"type": "string"}, "id": {"type": "integer"}}},
    {},  # any JSON value
]
# The same states one level down: a value inside an array or object is keyed apart from the same
# value as the whole document (a token may run past its end into what follows there, never at
# the document's end), and real schemas' values are members. Measured: with top-level strings
# only, the purchase-order schema's `"supplier"` (maxLength 64) found 1 of 94 masks in the store.
WARM_SCHEMAS += [
    {"type": "array", "items": s}
    for s in [*_STRINGS, {"type": "number"}, {"type": "integer"}, {"type": "integer", "minimum": 0}]
]

# A free member key (any object whose ``additionalProperties`` is not false: most of them) is a
# trie that excludes the declared names: where the key leaves a name, one state per set of next
# characters, ``([^…c] | esc) chars``. Three in four of those sets are one character (a sample of
# 406 JSONSchemaBench schemas: 4,557 of 6,005), and a state's mask is keyed by content, so the
# same state of any schema finds it in the store. Random walks rarely reach them; the prefixes
# below put each one-character state on a live stack: at ``{"~p`` the only next name character
# is the one after ``p``.
FREE_KEY_GRAMMAR = "free keys"  # the name ``prefixes`` gives the grammar of FREE_KEY_SCHEMA
_KEY_CHARS = string.ascii_lowercase + string.ascii_uppercase + string.digits + "_-.$@ /:"
FREE_KEY_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {f"~{p}{c}": {} for p, c in zip(_KEY_CHARS, _KEY_CHARS[1:] + _KEY_CHARS[:1], strict=True)},
}
# The one-character states (above), and a whole declared name, where only ``other-than`` (any
# character, then anything) is left: every key the model writes out in full passes there.
FREE_KEY_PREFIXES: list[bytes] = [f'{{"~{p}'.encode() for p in _KEY_CHARS] + [
    f'{{"~{_KEY_CHARS[0]}{_KEY_CHARS[1]}'.encode()
]

# Schemas whose states random walks rarely reach, each with the texts that reach them: (name,
# schema, texts). The free keys above; and a bounded string's last copies (``char{0,n}`` with
# fewer than a token's length left), keyed by how many are left, the same for every ``n``, which
# random walks skip (a token is several characters): a string one character longer at a time
# visits each, as the document and as a value inside an array (a member's value is keyed alike).
_BOUND = 128  # past the longest token of the tokenizers seen (SmolLM2's: 81 bytes)
PREFIXED_SCHEMAS: list[tuple[str, dict[str, object], list[bytes]]] = [
    (FREE_KEY_GRAMMAR, FREE_KEY_SCHEMA, FREE_KEY_PREFIXES),
    ("bounded string", {"type": "string", "maxLength": _BOUND}, [b'"' + b"a" * k for k in range(_BOUND + 1)]),
    (
        "bounded strings in an array",
        {"type": "array", "items": {"type": "string", "maxLength": _BOUND}},
        [b'["' + b"a" * k for k in range(_BOUND + 1)],
    ),
]


@dataclass(frozen=True)
class WarmReport:
    grammars: int
    masks: int  # masks asked for on the walks
    seconds: float
    store: Path
    written: int  # segments written


def warm(
    grammars: Sequence[tuple[str, Grammar]],
    vocab: TokenVocabulary,
    *,
    walks: int = 12,
    budget: int = 48,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    prefixes: Mapping[str, Sequence[bytes]] | None = None,
) -> WarmReport:
    """Walk each grammar ``walks`` times (at most ``budget`` tokens each) with its engine on the
    tokenizer's store attached, flushing after each grammar. ``prefixes`` names, per grammar name,
    texts whose states' masks are computed too (states random walks rarely reach)."""
    prefixes = prefixes or {}
    unknown = set(prefixes) - {name for name, _ in grammars}
    if unknown:
        raise ValueError(f"warm prefixes name no grammar: {sorted(unknown)}")
    t0 = time.perf_counter()
    rng = random.Random(seed)
    masks = written = 0
    for i, (name, grammar) in enumerate(grammars):
        if progress is not None:
            progress(i, len(grammars), name)
        engine = load_engine(grammar, vocab)
        for _ in range(walks):
            matcher = engine.matcher()
            for _ in range(budget):
                if matcher.is_terminated():
                    break
                ids = matcher.allowed_token_ids()
                masks += 1
                matcher.consume(int(ids[rng.randrange(ids.size)]))
        for text in prefixes.get(name, ()):
            config = engine.compiled.walk(engine.compiled.initial, text)
            if config == DEAD:
                raise ValueError(f"warm prefix {text!r} is not in grammar {name!r}")
            engine.masks.allowed_bits(config)
            masks += 1
        written += save_engine(engine) is not None
    store = store_of(vocab)
    if store.dir.is_dir():
        store.compact()  # one segment: one index for every lookup of the runs to come
    if progress is not None:
        progress(len(grammars), len(grammars), "done")
    return WarmReport(len(grammars), masks, time.perf_counter() - t0, store.dir, written)
