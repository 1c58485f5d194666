"""The per-tokenizer mask store (engine/mask_store.py, store_format.py): masks read back from disk
equal masks computed fresh, two processes filling it at once leave it valid, a truncated or
damaged file is removed and its masks rebuilt, and no file is ever unpickled."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gramwright.engine import cache
from gramwright.engine.mask_store import MaskStore
from gramwright.engine.matcher import ENGINE_VERSION, GrammarEngine
from gramwright.engine.store_format import MAGIC, Segment
from gramwright.engine.vocab import TokenVocabulary
from gramwright.recognizer.recognizer import clear_compile_cache
from gramwright.schema import compile_schema
from tests.support.masks import store_schemas, walk_masks


def _fresh_store(vocab: TokenVocabulary) -> MaskStore:
    """Forget everything in memory and attach a new store object (it reads the disk afresh)."""
    vocab.tables.attach(None)
    vocab.tables.clear()
    return cache.store_of(vocab)


def test_masks_from_the_store_equal_masks_computed_fresh(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    _, vocab = smol
    schemas = [compile_schema(s).grammar for s in store_schemas()]
    try:
        _fresh_store(vocab)
        for i, grammar in enumerate(schemas):  # fill the store
            engine = cache.load_engine(grammar, vocab)
            walk_masks(engine, seed=i)
            cache.save_engine(engine)
        store = _fresh_store(vocab)
        assert store.segments(), "nothing was written"
        from_store = [walk_masks(cache.load_engine(g, vocab), seed=i) for i, g in enumerate(schemas)]
        assert store.hits > 0 and store.damaged == 0
        vocab.tables.attach(None)
        vocab.tables.clear()
        fresh = [walk_masks(GrammarEngine(g, vocab), seed=i) for i, g in enumerate(schemas)]
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()
    assert len(fresh) == len(from_store)
    for a, b in zip(fresh, from_store, strict=True):
        assert len(a) == len(b) and len(a) > 5
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)


FILL = """
import json, random, sys
from gramwright.engine import cache
from gramwright.schema import compile_schema
from tests.support.masks import store_schemas, walk_masks
from tests.support.tokens import load_smol
_, vocab = load_smol()
seed = int(sys.argv[1])
for round_ in range(3):
    for i, schema in enumerate(store_schemas()):
        engine = cache.load_engine(compile_schema(schema).grammar, vocab)
        walk_masks(engine, seed=seed * 100 + round_ * 10 + i, walks=2, budget=25)
        cache.save_engine(engine)
print("ok")
"""


def test_two_processes_filling_the_store_at_once_leave_it_valid(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path
) -> None:
    env = {**os.environ, cache.CACHE_ENV: str(tmp_path)}
    root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", FILL, str(seed)], env=env, cwd=root, stdout=subprocess.PIPE, text=True
        )
        for seed in (1, 2)
    ]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and all("ok" in o for o in outs)
    _, vocab = smol
    store = MaskStore(vocab.fingerprint, vocab.size, tmp_path)
    paths = sorted(store.dir.glob("*.gwm"))
    assert paths and not list(store.dir.glob(".*.tmp"))  # no temp file left behind
    entries = 0
    for path in paths:  # every file whole, every entry's checksum right
        seg = Segment(path, engine=ENGINE_VERSION, fingerprint=vocab.fingerprint, vocab_size=vocab.size)
        for key in seg.names():
            assert seg.read(key) is not None
            entries += 1
        seg.close()
    assert entries > 0
    assert store.segments() and store.damaged == 0


def test_truncated_and_damaged_files_are_removed_and_rebuilt(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    _, vocab = smol
    grammar = compile_schema(store_schemas()[-1]).grammar
    try:
        _fresh_store(vocab)
        engine = cache.load_engine(grammar, vocab)
        want = walk_masks(engine, seed=3, walks=2)
        path = cache.save_engine(engine)
        assert path is not None and path.read_bytes().startswith(MAGIC)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])  # truncated
        store = _fresh_store(vocab)
        engine = cache.load_engine(grammar, vocab)
        assert not engine.from_cache and store.damaged == 1 and not path.exists()
        assert all(
            np.array_equal(a, b) for a, b in zip(want, walk_masks(engine, seed=3, walks=2), strict=True)
        )
        rebuilt = cache.save_engine(engine)  # the masks computed again are written again
        assert rebuilt is not None and rebuilt.exists()
        # a flipped byte in an entry: its checksum catches it, the file goes, masks stay right
        raw = bytearray(rebuilt.read_bytes())
        raw[-10] ^= 0xFF
        rebuilt.write_bytes(bytes(raw))
        store = _fresh_store(vocab)
        got = walk_masks(cache.load_engine(grammar, vocab), seed=3, walks=2)
        assert store.damaged == 1 and not rebuilt.exists()
        assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()


def test_a_pickle_in_the_store_is_never_loaded(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    _, vocab = smol
    store = MaskStore(vocab.fingerprint, vocab.size, tmp_path)
    store.dir.mkdir(parents=True)
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self) -> tuple[object, tuple[str, str]]:
            return (open, (str(marker), "w"))  # creates the marker, if it is ever unpickled

    (store.dir / "seg-0-evil.gwm").write_bytes(pickle.dumps(Evil()))
    assert store.segments() == [] and store.damaged == 1 and not marker.exists()


def test_a_string_body_learned_under_one_name_serves_another_schema(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Content signatures (keys.py) are grammar-independent: the string body walked for a member
    ``alpha`` of one schema is the body of ``beta_gamma`` in another, so the second schema, as
    in a new process, reads that mask from disk."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    tok, vocab = smol

    def replay(schema: dict[str, object], text: str) -> int:
        store = _fresh_store(vocab)
        engine = cache.load_engine(compile_schema(schema).grammar, vocab)
        matcher = engine.matcher()
        for tid in tok.encode(text, add_special_tokens=False):  # type: ignore[attr-defined]
            matcher.bitmask()
            matcher.consume(tid)
        hits = store.hits  # (a flush adds them to the stats file and starts counting afresh)
        cache.save_engine(engine)
        return hits

    try:
        first = {"type": "object", "properties": {"alpha": {"type": "string"}}, "required": ["alpha"]}
        replay(first, '{"alpha":"some words, and more of them"}')
        second = {
            "type": "object",
            "properties": {"beta_gamma": {"type": "string"}},
            "required": ["beta_gamma"],
        }
        assert replay(second, '{"beta_gamma":"other words entirely"}') > 0
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()


def test_a_grammar_the_store_never_saw_costs_one_lookup_and_a_second_run_reads_its_own_masks(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grammar's own masks are stored under its hash with a mark: a schema's first run asks the
    store once for the mark (not once per key, each a digest), a later run of it reads its masks."""
    from gramwright.engine.masks import GRAMMAR_NAMESPACE

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    _, vocab = smol
    grammar = compile_schema(store_schemas()[-1]).grammar
    asked: list[tuple[str, object]] = []
    real_load = MaskStore.load

    def counting(self: MaskStore, namespace: str, key: object) -> object:
        asked.append((namespace, key))
        return real_load(self, namespace, key)  # type: ignore[arg-type]

    monkeypatch.setattr(MaskStore, "load", counting)
    try:
        _fresh_store(vocab)
        clear_compile_cache()  # a compiled grammar of its own (an earlier test may have hashed one)
        engine = cache.load_engine(grammar, vocab)
        first = walk_masks(engine, seed=3)
        own_first = [k for ns, k in asked if ns == GRAMMAR_NAMESPACE]
        assert len(own_first) == 1  # the mark of its rule names only
        assert engine.masks.local_misses > 10  # … though the walks computed many own masks
        # … and the grammar's hash (a repr of its whole IR) was not made in a mask's time
        assert engine.compiled._hash is None
        cache.save_engine(engine)
        asked.clear()
        store = _fresh_store(vocab)
        again = walk_masks(cache.load_engine(grammar, vocab), seed=3)
        own_again = [k for ns, k in asked if ns == GRAMMAR_NAMESPACE]
        assert len(own_again) > 1 and store.hits >= len(own_again) - 1
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()
    assert len(first) == len(again)
    for x, y in zip(first, again, strict=True):
        assert np.array_equal(x, y)


def test_warmed_free_key_states_serve_a_schema_the_store_never_saw(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gramwright warm` puts each one-character exclusion state of a free member key on a live
    stack (FREE_KEY_PREFIXES): another schema's key that leaves a declared name there (``xy``
    at ``x``: any next character but ``y``) finds that state's mask on disk, and the mask equals
    the one computed without a store."""
    from gramwright.engine.warm import FREE_KEY_PREFIXES, FREE_KEY_SCHEMA, warm

    _, vocab = smol
    schema = {"type": "object", "properties": {"xy": {"type": "integer"}, "q": {"type": "string"}}}

    def mask_at(prefix: bytes, store_dir: Path) -> tuple[np.ndarray, int]:
        monkeypatch.setenv(cache.CACHE_ENV, str(store_dir))
        _fresh_store(vocab)
        engine = cache.load_engine(compile_schema(schema).grammar, vocab)
        config = engine.compiled.walk(engine.compiled.initial, prefix)
        bits = engine.masks.allowed_bits(config).copy()
        return bits, engine.masks.local_misses

    try:
        monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "warm"))
        _fresh_store(vocab)
        report = warm(
            [("free keys", compile_schema(FREE_KEY_SCHEMA).grammar)],
            vocab,
            walks=0,
            prefixes={"free keys": FREE_KEY_PREFIXES},
        )
        assert report.masks == len(FREE_KEY_PREFIXES) and report.written == 1
        cold, cold_misses = mask_at(b'{"x', tmp_path / "empty")
        warmed, warm_misses = mask_at(b'{"x', tmp_path / "warm")
        assert np.array_equal(cold, warmed)
        # the exclusion state ``[^y] chars`` — its ASCII characters, and the characters past
        # ASCII (one rule shared by every exclusion) — from disk
        assert warm_misses == cold_misses - 2
        with pytest.raises(ValueError, match="name no grammar"):
            warm([], vocab, prefixes={"free keys": FREE_KEY_PREFIXES})
        with pytest.raises(ValueError, match="not in grammar"):
            warm(
                [("free keys", compile_schema(FREE_KEY_SCHEMA).grammar)],
                vocab,
                walks=0,
                prefixes={"free keys": [b"[1"]},
            )
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()


def test_warm_leaves_one_segment_that_serves_what_each_grammar_wrote(
    smol: tuple[Any, TokenVocabulary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`warm` flushes after each grammar, then merges the segments into one (a lookup that misses
    searches every index): the merged store serves the same masks as a store never merged."""
    from gramwright.engine.warm import warm

    _, vocab = smol
    grammars = [(f"g{i}", compile_schema(s).grammar) for i, s in enumerate(store_schemas()[-2:])]
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    try:
        _fresh_store(vocab)
        report = warm(grammars, vocab, walks=2, budget=12)
        assert report.written == 2
        store = _fresh_store(vocab)
        assert len(list(store.dir.glob("*.gwm"))) == 1
        assert sum(seg.count for seg in store.segments()) > 0
        from_store = walk_masks(cache.load_engine(grammars[1][1], vocab), seed=3, walks=2, budget=12)
        assert store.hits > 0 and store.damaged == 0
        vocab.tables.attach(None)
        vocab.tables.clear()
        fresh = walk_masks(GrammarEngine(grammars[1][1], vocab), seed=3, walks=2, budget=12)
    finally:
        vocab.tables.attach(None)
        vocab.tables.clear()
    assert len(fresh) == len(from_store) > 5
    for x, y in zip(fresh, from_store, strict=True):
        assert np.array_equal(x, y)


def _spelled(obj: object) -> bytes:
    """The store's key spelling by its definition (isinstance by isinstance, frozensets sorted)."""
    if isinstance(obj, tuple):
        return b"(" + b",".join(_spelled(x) for x in obj) + b")"
    if isinstance(obj, frozenset):
        return b"{" + b",".join(sorted(_spelled(x) for x in obj)) + b"}"
    if isinstance(obj, str):
        return b"s%d:" % len(obj.encode()) + obj.encode()
    if isinstance(obj, bool):
        return b"T" if obj else b"F"
    if isinstance(obj, int):
        return b"i%d" % obj
    assert obj is None
    return b"N"


def test_key_spelling_is_exact_for_every_kind_of_key_part() -> None:
    """``encode_key`` (exact types first) spells keys as the definition does — subclasses of
    tuple and int (a named tuple, a bool) included — and refuses what is not plain data."""
    from collections import namedtuple

    from gramwright.engine.store_format import encode_key

    pair = namedtuple("pair", "a b")
    rng = random.Random(3)

    def part(depth: int) -> object:
        r = rng.random()
        if depth > 3 or r < 0.35:
            return rng.choice([rng.randint(-9, 10**15), f"s\u00e9{rng.random()}", True, False, None, ""])
        if r < 0.65:
            return tuple(part(depth + 1) for _ in range(rng.randint(0, 4)))
        if r < 0.85:
            return frozenset(rng.randint(0, 40) for _ in range(rng.randint(0, 5)))
        return pair(part(depth + 1), part(depth + 1))

    for _ in range(3000):
        key = part(0)
        assert encode_key(key) == _spelled(key), key
    for bad in ([1], {1: 2}, 1.5, b"x", (1, [2])):
        with pytest.raises(TypeError):
            encode_key(bad)
