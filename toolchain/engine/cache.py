"""The engine's disk cache: the per-tokenizer mask store (``mask_store.py``) behind an engine.

What persists is what does not depend on one grammar: the local masks keyed by content signature
(string bodies, numbers, literals, key starts, the bundled grammars' lexical states), kept per
(tokenizer fingerprint, engine version) in files that are data, not code. A grammar's own tables
(its configurations, its local automaton) are rebuilt per process: they are cheap beside the
vocabulary walks the store saves, and keeping them would mean serialising live objects (the
pickle this module used to write, which could run code when loaded).

``load_engine`` attaches the tokenizer's store to the vocabulary's tables (once per process);
``save_engine`` writes what the process computed as a new segment, atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gramwright.engine.mask_store import MaskStore
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.fsutil import CACHE_ENV, cache_root
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import compile_grammar

__all__ = ["CACHE_ENV", "STATS", "CacheStats", "cache_root", "load_engine", "save_engine", "store_of"]


@dataclass
class CacheStats:
    hits: int = 0  # engines whose tokenizer had a store on disk
    misses: int = 0
    writes: int = 0


STATS = CacheStats()


def store_of(vocab: TokenVocabulary) -> MaskStore:
    """The mask store attached to ``vocab``'s tables, attaching one (for the current cache root)
    on first use."""
    tables = vocab.tables
    store = tables.backing
    root = cache_root()
    if not isinstance(store, MaskStore) or store.root != root / "masks":
        store = MaskStore(vocab.fingerprint, vocab.size, root)
        tables.attach(store)
    return store


def load_engine(grammar: Grammar, vocab: TokenVocabulary, *, use_cache: bool = True) -> GrammarEngine:
    """A GrammarEngine for ``grammar`` × ``vocab`` whose grammar-independent masks come from the
    tokenizer's store on disk (``use_cache=False``: no store; masks are computed in memory)."""
    engine = GrammarEngine(compile_grammar(grammar), vocab)
    if use_cache:
        store = store_of(vocab)
        engine.from_cache = bool(store.segments())
    if engine.from_cache:
        STATS.hits += 1
    else:
        STATS.misses += 1
    return engine


def save_engine(engine: GrammarEngine) -> Path | None:
    """Write the masks computed since the last save to the tokenizer's store (a new segment,
    atomically); None when there was nothing new or no store is attached."""
    store = engine.vocab.tables.backing
    if not isinstance(store, MaskStore):
        return None
    engine.masks.publish()  # the grammar's own masks, named by its hash only now
    path = store.flush()
    if path is not None:
        STATS.writes += 1
    return path
