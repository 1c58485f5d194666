"""TokenTrie: the vocabulary's byte strings as a flattened prefix tree.

Walking the trie through the recognizer's memoised transitions visits each shared prefix once and
drops a whole subtree at the first rejected byte — so a restrictive state (a forced key, a literal,
a digit run) costs time proportional to the few tokens that survive, not to the vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class Subtrees(NamedTuple):
    below: list[int]  # per node: bytes on the edges below it, bit b set for byte b
    order: npt.NDArray[np.int32]  # token ids, depth first (a node's own ids before its children's)
    first: list[int]  # per node: where its tokens (at or below it) start in ``order`` …
    last: list[int]  # … and end


class TokenTrie:
    """Node 0 is the root. ``children[n]`` is a tuple of ``(byte, child)``; ``ends[n]`` the token
    ids whose bytes end exactly at node ``n`` (several ids can share one byte string). Nodes with
    more than ``WIDE`` children (the root, a few common prefixes) also have ``wide[n]``, their
    children by byte: a walk that allows few bytes there looks those up instead of scanning all."""

    WIDE = 16

    __slots__ = ("_below_kids", "_kid_bytes", "_subtrees", "children", "ends", "num_tokens", "wide")

    def __init__(self, token_bytes: Sequence[bytes], usable: Sequence[bool]) -> None:
        self._build((tid, data) for tid, data in enumerate(token_bytes) if data and usable[tid])

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, bytes]]) -> TokenTrie:
        """A trie over ``(token id, bytes)`` pairs (e.g. the longest tokens of a length band)."""
        trie = cls.__new__(cls)
        trie._build((tid, data) for tid, data in pairs if data)
        return trie

    def _build(self, pairs: Iterable[tuple[int, bytes]]) -> None:
        child_maps: list[dict[int, int]] = [{}]
        ends: list[list[int]] = [[]]
        count = 0
        for tid, data in pairs:
            node = 0
            for b in data:
                nxt = child_maps[node].get(b)
                if nxt is None:
                    nxt = len(child_maps)
                    child_maps[node][b] = nxt
                    child_maps.append({})
                    ends.append([])
                node = nxt
            ends[node].append(tid)
            count += 1
        self.children: list[tuple[tuple[int, int], ...]] = [tuple(sorted(m.items())) for m in child_maps]
        self.ends: list[tuple[int, ...]] = [tuple(e) for e in ends]
        self.wide: dict[int, dict[int, int]] = {n: m for n, m in enumerate(child_maps) if len(m) > self.WIDE}
        self.num_tokens = count
        self._subtrees: Subtrees | None = None
        self._kid_bytes: dict[int, tuple[int, ...]] = {}
        self._below_kids: dict[tuple[int, int, int], int] = {}

    def subtrees(self) -> Subtrees:
        """Per node, the bytes on the edges below it (an int bit set) and where the tokens at or
        below it lie in one depth-first order of token ids — ``last - first`` is how many there
        are (built on first use)."""
        if self._subtrees is None:
            children = self.children
            n = len(children)
            below = [0] * n
            for node in range(n - 1, -1, -1):  # children have larger ids than their parent
                acc = 0
                for b, c in children[node]:
                    acc |= (1 << b) | below[c]
                below[node] = acc
            order: list[int] = []
            first = [0] * n
            last = [0] * n
            stack = [(0, False)]
            while stack:
                node, done = stack.pop()
                if done:
                    last[node] = len(order)
                    continue
                first[node] = len(order)
                order.extend(self.ends[node])
                stack.append((node, True))
                stack.extend((c, False) for _, c in reversed(children[node]))
            self._subtrees = Subtrees(below, np.asarray(order, dtype=np.int32), first, last)
        return self._subtrees

    def kid_bytes(self, node: int) -> tuple[int, ...]:
        """The bytes of ``node``'s children, ascending (memoised: for a bisect by byte class)."""
        got = self._kid_bytes.get(node)
        if got is None:
            got = self._kid_bytes[node] = tuple(b for b, _ in self.children[node])
        return got

    def below_kids(self, node: int, i: int, j: int) -> int:
        """The bytes below children ``i`` to ``j`` (exclusive) of ``node``, edges from the
        children down (an int bit set, as ``Subtrees.below``): memoised, as the walks of many
        states cut a wide node (the root) into the same byte classes."""
        memo = (node, i, j)
        got = self._below_kids.get(memo)
        if got is None:
            below = self.subtrees().below
            got = 0
            for _, child in self.children[node][i:j]:
                got |= below[child]
            self._below_kids[memo] = got
        return got

    def child(self, node: int, byte: int) -> int | None:
        by_byte = self.wide.get(node)
        if by_byte is not None:
            return by_byte.get(byte)
        for b, c in self.children[node]:
            if b == byte:
                return c
        return None

    @property
    def num_nodes(self) -> int:
        return len(self.children)
