"""TokenTrie: prefix sharing, node sizes, and the depth-first subtree index the walks take whole."""

from __future__ import annotations

from gramwright.engine.trie import TokenTrie

TOKENS = [b"a", b"ab", b"abc", b"abd", b"b", b"ba", b"", b"ab", b"\xe4\xb8\x80"]


def _prefix(trie: TokenTrie, node: int) -> bytes:
    """The byte string that leads from the root to ``node``."""
    path: dict[int, bytes] = {0: b""}
    stack = [0]
    while stack:
        n = stack.pop()
        for b, c in trie.children[n]:
            path[c] = path[n] + bytes([b])
            stack.append(c)
    return path[node]


def test_sizes_and_subtrees_match_the_tokens_below_each_node() -> None:
    trie = TokenTrie(TOKENS, [True] * len(TOKENS))
    sub = trie.subtrees()
    for node in range(trie.num_nodes):
        prefix = _prefix(trie, node)
        under = sorted(t for t, data in enumerate(TOKENS) if data and data.startswith(prefix))
        assert sub.last[node] - sub.first[node] == len(under)
        assert sorted(sub.order[sub.first[node] : sub.last[node]].tolist()) == under
        # a node's own tokens come first, so ``first + len(ends)`` starts the ones strictly below
        own = sub.order[sub.first[node] : sub.first[node] + len(trie.ends[node])].tolist()
        assert sorted(own) == sorted(t for t in under if TOKENS[t] == prefix)
        tails = {b for t in under for b in TOKENS[t][len(prefix) :]}
        assert sub.below[node] == sum(1 << b for b in tails)


def test_child_lookup_by_byte() -> None:
    trie = TokenTrie(TOKENS, [True] * len(TOKENS))
    a = trie.child(0, ord("a"))
    assert a is not None and trie.child(a, ord("b")) is not None
    assert trie.child(0, ord("z")) is None


def test_bytes_below_a_run_of_children_are_those_their_tokens_go_on_with() -> None:
    trie = TokenTrie(TOKENS, [True] * len(TOKENS))
    for node in range(trie.num_nodes):
        prefix = _prefix(trie, node)
        kids = trie.children[node]
        for i in range(len(kids)):
            for j in range(i, len(kids) + 1):
                heads = {b for b, _ in kids[i:j]}
                tails = {
                    b
                    for data in TOKENS
                    if len(data) > len(prefix) + 1 and data.startswith(prefix) and data[len(prefix)] in heads
                    for b in data[len(prefix) + 1 :]
                }
                assert trie.below_kids(node, i, j) == sum(1 << b for b in tails), (prefix, i, j)
                assert trie.below_kids(node, i, j) == sum(1 << b for b in tails)  # memoised alike
