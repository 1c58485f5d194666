"""What the engine derives from one vocabulary alone, kept in one object per vocabulary.

Every grammar's engine on a tokenizer reads the same per-token arrays (the transposed byte matrix,
first bytes), the same vocabulary trie (~0.5 s to build), the same per-token byte sets, and shares
the local and suffix masks whose keys are content signatures (a string body is walked once per
vocabulary, not once per schema). Those used to be seven module-level dicts keyed by fingerprint,
alive until the process ended; here they are one ``VocabularyTables``, reached as
``TokenVocabulary.tables``:

* shared by every ``TokenVocabulary`` with the same fingerprint *while one of them is alive* (the
  registry holds it weakly): dropping the vocabularies and their engines frees it;
* ``clear()`` frees everything it holds now (it is rebuilt lazily on next use), and
  ``forget_shared()`` only the masks shared between grammars (benchmarks of cold engines).

Engines made before a ``clear()`` keep the arrays they already hold until they are dropped; the
shared mask stores are emptied in place, so every engine sees that. Builders that belong to one
walk (length bands, a run's tokens) live with that walk and keep their results here.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from gramwright.engine.bitset import IntArray, Words, num_words
from gramwright.engine.byte_sets import TailSets, build_tail_sets
from gramwright.engine.trie import TokenTrie

if TYPE_CHECKING:
    from gramwright.engine.local_masks import LocalMask
    from gramwright.engine.vocab import TokenVocabulary

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
K_contra = TypeVar("K_contra", bound=Hashable, contravariant=True)

SHARED_MAX = 4096  # suffix (and shared local) masks kept per vocabulary for sharing between grammars
PURE_MAX = 64  # byte sets whose tokens are kept (every string's ordinary characters share one)

Bands = tuple[list[IntArray], dict[int, TokenTrie]]  # per length band: its tokens, tries of small ones


class Backing(Protocol[K_contra, V]):
    """A store behind a ``BoundedStore`` (the on-disk mask store, ``mask_store.py``): asked on a
    miss, told of every new entry."""

    def load(self, namespace: str, key: K_contra) -> V | None: ...

    def added(self, namespace: str, key: K_contra, value: V) -> None: ...


class BoundedStore(dict[K, V]):
    """A dict that keeps at most ``limit`` entries, dropping the oldest first (insertion order:
    a content-signed mask that served once is as likely to serve again as a newer one). With a
    ``backing`` attached, ``lookup`` reads what is missing from it and ``put`` reports to it."""

    def __init__(self, limit: int, namespace: str = "") -> None:
        super().__init__()
        self.limit = limit
        self.namespace = namespace
        self.backing: Backing[K, V] | None = None

    def _keep(self, key: K, value: V) -> None:
        if key not in self and len(self) >= self.limit:
            del self[next(iter(self))]
        self[key] = value

    def lookup(self, key: K) -> V | None:
        got = dict.get(self, key)
        if got is None and self.backing is not None:
            got = self.backing.load(self.namespace, key)
            if got is not None:
                self._keep(key, got)
        return got

    def put(self, key: K, value: V) -> V:
        self._keep(key, value)
        if self.backing is not None:
            self.backing.added(self.namespace, key, value)
        return value


@dataclass(frozen=True)
class TokenArrays:
    """Per-token arrays every walker reads (the transposed byte matrix alone is ~4 MB)."""

    ids: IntArray  # tokens with bytes
    multi_byte_ids: IntArray  # … with more than one byte
    matrix_t: npt.NDArray[np.uint8]  # byte matrix, position-major: rows gather fast
    first_byte: npt.NDArray[np.uint8]  # per token id
    ids_first_byte: npt.NDArray[np.uint8]  # per token of ``ids``: its first byte …
    ids_single: npt.NDArray[np.bool_]  # … and whether it is one byte long
    first_counts: list[int]  # tokens with bytes, per first byte
    by_first: list[IntArray]  # per first byte: the tokens with bytes starting with it, sorted
    single_by_first: list[IntArray]  # per byte: the one-byte tokens of exactly that byte
    # (257, words): row b is the multi-byte tokens whose first byte is below b, as a bitset —
    # the XOR of the per-first-byte bitsets below b (each token has one first byte) — so those
    # of bytes lo..hi-1 are ``row hi ^ row lo``
    multi_bits_below: Words


class VocabularyTables:
    """The per-vocabulary tables and mask stores (see the module docstring). Holds the
    vocabulary's own arrays, never the vocabulary object (so no reference cycle keeps it)."""

    def __init__(
        self,
        token_bytes: Sequence[bytes],
        lengths: npt.NDArray[np.int32],
        byte_matrix: npt.NDArray[np.uint8],
    ) -> None:
        self._token_bytes = token_bytes
        self._lengths = lengths
        self._byte_matrix = byte_matrix
        # the two stores whose keys are content signatures: what the on-disk store keeps
        self.shared_masks: BoundedStore[Hashable, LocalMask] = BoundedStore(SHARED_MAX, "local")
        self.suffix_masks: BoundedStore[Hashable, LocalMask] = BoundedStore(SHARED_MAX, "suffix")
        self.pure: BoundedStore[int, npt.NDArray[np.bool_]] = BoundedStore(PURE_MAX)
        self.bands: dict[tuple[int, ...], Bands] = {}
        # per (a run's bytes, a length band): the band's other tokens, its pure ones by length
        self.run_splits: BoundedStore[Hashable, tuple[IntArray, IntArray, IntArray]] = BoundedStore(PURE_MAX)
        self._arrays: TokenArrays | None = None
        self._trie: TokenTrie | None = None
        self._tail_sets: TailSets | None = None

    @classmethod
    def of(cls, vocab: TokenVocabulary) -> VocabularyTables:
        """The tables of ``vocab``: those of a live vocabulary with its fingerprint, else new."""
        got = _LIVE.get(vocab.fingerprint)
        if got is None:
            got = cls(vocab.token_bytes, vocab.lengths, vocab.byte_matrix)
            _LIVE[vocab.fingerprint] = got
        return got

    def arrays(self) -> TokenArrays:
        if self._arrays is None:
            lengths, matrix = self._lengths, self._byte_matrix
            ids = np.nonzero(lengths > 0)[0].astype(np.int32)
            first = np.ascontiguousarray(matrix[:, 0])
            multi = ids[lengths[ids] > 1]
            single = ids[lengths[ids] == 1]
            counts = np.bincount(first[ids], minlength=256)
            width = num_words(lengths.size) * 32
            grid = np.zeros((256, width), dtype=bool)
            grid[first[multi], multi] = True
            per_byte = np.packbits(grid, axis=1, bitorder="little").view(np.uint32)
            self._arrays = TokenArrays(
                ids=ids,
                multi_byte_ids=multi,
                matrix_t=np.ascontiguousarray(matrix.T),
                first_byte=first,
                ids_first_byte=first[ids],
                ids_single=lengths[ids] == 1,
                first_counts=counts.tolist(),
                by_first=_by_first_byte(ids, first),
                single_by_first=_by_first_byte(single, first),
                multi_bits_below=np.concatenate(
                    (np.zeros_like(per_byte[:1]), np.bitwise_xor.accumulate(per_byte, axis=0))
                ),
            )
        return self._arrays

    def prepare(self) -> None:
        """Build the per-tokenizer tables every engine's first masks need, now (idempotent)."""
        self.arrays()
        self.trie()
        self.tail_sets()

    def trie(self) -> TokenTrie:
        """The vocabulary trie, subtree index included (part of the per-tokenizer preparation,
        not of the first mask that needs it)."""
        if self._trie is None:
            trie = TokenTrie(self._token_bytes, (self._lengths > 0).tolist())
            trie.subtrees()
            self._trie = trie
        return self._trie

    def tail_sets(self) -> TailSets:
        """Per token, the bytes after its first one (``byte_sets.py``)."""
        if self._tail_sets is None:
            self._tail_sets = build_tail_sets(self._token_bytes)
        return self._tail_sets

    def attach(self, backing: Backing[Hashable, LocalMask] | None) -> None:
        """Put ``backing`` (or nothing) behind the shared and suffix masks (``mask_store.py``)."""
        self.shared_masks.backing = backing
        self.suffix_masks.backing = backing

    @property
    def backing(self) -> Backing[Hashable, LocalMask] | None:
        return self.shared_masks.backing

    def forget_shared(self) -> None:
        """Drop the masks shared between grammars (the next engine computes its masks cold)."""
        self.shared_masks.clear()
        self.suffix_masks.clear()

    def clear(self) -> None:
        """Free everything held; each table is rebuilt on its next use."""
        self.forget_shared()
        self.pure.clear()
        self.bands.clear()
        self.run_splits.clear()
        self._arrays = None
        self._trie = None
        self._tail_sets = None

    def describe(self) -> dict[str, int | bool]:
        """What is held now, in plain numbers (for reports and tests)."""
        return {
            "arrays": self._arrays is not None,
            "trie": self._trie is not None,
            "tail_sets": self._tail_sets is not None,
            "shared_masks": len(self.shared_masks),
            "suffix_masks": len(self.suffix_masks),
            "pure_token_sets": len(self.pure),
            "band_tables": len(self.bands),
        }


def _by_first_byte(ids: IntArray, first: npt.NDArray[np.uint8]) -> list[IntArray]:
    """``ids`` split by their first byte (256 lists, each ascending: a stable sort), as
    read-only views of one array: walks only read them."""
    order = ids[np.argsort(first[ids], kind="stable")]
    order.setflags(write=False)
    return np.split(order, np.cumsum(np.bincount(first[ids], minlength=256))[:-1])


# Weak: the registry only lets vocabularies with one fingerprint find each other's tables.
_LIVE: weakref.WeakValueDictionary[str, VocabularyTables] = weakref.WeakValueDictionary()
