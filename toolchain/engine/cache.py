"""On-disk cache of compiled engine artefacts, keyed by (grammar hash, tokenizer fingerprint,
engine version) — a cache that ignored the tokenizer would serve wrong masks.

What is stored is the memoised state that is expensive to rebuild: the recognizer's configuration
tables, the local automaton and its per-key vocabulary masks. Loading it makes the first request of
a new process as fast as a warm one. Written atomically (temp file + rename); a corrupt or
incompatible file is ignored and rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass
from pathlib import Path

from gramwright.engine.matcher import ENGINE_VERSION, GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.fsutil import atomic_write_bytes
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import compile_grammar

CACHE_ENV = "GRAMWRIGHT_CACHE"


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    writes: int = 0


STATS = CacheStats()


def cache_dir() -> Path:
    root = os.environ.get(CACHE_ENV)
    base = Path(root) if root else Path.home() / ".cache" / "gramwright"
    return base / "engine"


def _path(key: tuple[str, str, str]) -> Path:
    digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:32]
    return cache_dir() / f"{digest}.pkl"


def load_engine(grammar: Grammar, vocab: TokenVocabulary, *, use_cache: bool = True) -> GrammarEngine:
    """A GrammarEngine for ``grammar`` × ``vocab``, restored from disk when a matching entry exists."""
    compiled = compile_grammar(grammar)
    key = (compiled.hash, vocab.fingerprint, ENGINE_VERSION)
    path = _path(key)
    if use_cache and path.exists():
        try:
            with path.open("rb") as fh:
                stored_key, state = pickle.load(fh)
            if stored_key == key:
                engine = GrammarEngine.restore(state, vocab)
                STATS.hits += 1
                engine.from_cache = True
                return engine
        except Exception:  # noqa: BLE001 - any unreadable entry is rebuilt, never trusted
            pass
    STATS.misses += 1
    return GrammarEngine(compiled, vocab)


def save_engine(engine: GrammarEngine) -> Path:
    """Persist the engine's memo tables (atomically) so the next process starts warm."""
    path = _path(engine.cache_key)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, pickle.dumps((engine.cache_key, engine.state()), protocol=5))
    STATS.writes += 1
    return path
