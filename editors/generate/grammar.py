"""What the file-aware grammars of both formats share: the rule list, the line trie of the first
block's starts, and the chain of files.

Rules are emitted so that every rule's witnesses of productivity come before it (files last to
first, lines last to first, trie nodes children first): ``analysis.prepare``'s fixpoints then
settle in one pass instead of one pass per line.

**The first block of a file** may start at any line with a unique run. Its start is one trie over
the lines: the root rule holds every distinct first line as an inline literal, so the recognizer's
per-rule subset construction shares their common bytes and the token engine sees one stack top
(one mask walk), not one per start line. Inline need only go as far as the line's
``distinguishing_prefixes`` length: past it one alternative is left, and the rest of the line
can be a call of a rule that holds it once (the diff grammar does so; its lines were in the NFA
six times over). Starts that share a first line share the node below it,
and so on until a single start is left, which then continues on its own (a leaf).

**Later blocks** of the same file start after the previous one ended: ``p{j}`` chains the starts
from line ``j`` on, one alternative per start (a mask there walks one stack top per start left).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from gramwright.editors.generate.lines import FileLines
from gramwright.grammar.ir import EMPTY, Expr, Grammar, Ref, alt, literal, seq

__all__ = ["Entry", "Rules", "TrieNode", "distinguishing_prefixes", "file_chain", "line_trie"]


class Rules:
    """Rules in emission order; ``finish`` adds the root last."""

    def __init__(self) -> None:
        self.rules: dict[str, Expr] = {}

    def add(self, name: str, *branches: Expr) -> str:
        if name in self.rules:
            raise ValueError(f"rule {name} defined twice")
        self.rules[name] = alt(*branches)
        return name

    def has(self, name: str) -> bool:
        return name in self.rules

    def finish(self, first: str) -> Grammar:
        self.rules["root"] = Ref(first)
        return Grammar(self.rules, "root")


@dataclass(frozen=True)
class TrieNode:
    """Starts that agree on their first ``depth`` lines; ``children`` by next line text: a child
    node id (several starts) or None (one start: a leaf), and a start of the child (the leaf's
    own), so the line is ``start + depth``."""

    ident: int
    depth: int
    children: tuple[tuple[str, int | None, int], ...]  # (line text, child node | None, start)


def line_trie(lines: FileLines, starts: Sequence[int]) -> list[TrieNode]:
    """The compressed trie of the unique runs from ``starts``, children before parents (the
    root, id 0, last). Every internal node holds two or more starts, and no run ends at one: a
    run that ends there would be unique while another start shares it."""
    nodes: dict[int, TrieNode] = {}
    order: list[int] = []
    next_id = 1
    stack: list[tuple[int, int, Sequence[int], bool]] = [(0, 0, starts, False)]
    pending: dict[int, list[tuple[str, int | None, int]]] = {}
    while stack:
        ident, depth, group, expanded = stack.pop()
        if expanded:
            nodes[ident] = TrieNode(ident, depth, tuple(pending.pop(ident)))
            order.append(ident)
            continue
        by_line: dict[str, list[int]] = {}
        for start in group:
            by_line.setdefault(lines.written[start + depth], []).append(start)
        kids: list[tuple[str, int | None, int]] = []
        stack.append((ident, depth, group, True))
        for text, members in by_line.items():
            if len(members) == 1:
                kids.append((text, None, members[0]))
            else:
                kids.append((text, next_id, members[0]))
                stack.append((next_id, depth + 1, members, False))
                next_id += 1
        pending[ident] = kids
    return [nodes[i] for i in order]


def distinguishing_prefixes(texts: Iterable[str]) -> dict[str, int]:
    """For each distinct text, the length of its shortest prefix that no other text of the set
    starts with (the whole text when another one starts with all of it). A trie rule needs its
    edges inline only that far: past it one alternative is left, whose rest can be a call."""
    ordered = sorted(set(texts))
    out: dict[str, int] = {}
    for i, text in enumerate(ordered):
        common = 0
        if i:
            # by character, as wanted here (ruff's RUF071 is about paths)
            common = len(os.path.commonprefix((text, ordered[i - 1])))  # noqa: RUF071
        if i + 1 < len(ordered):
            after = os.path.commonprefix((text, ordered[i + 1]))  # noqa: RUF071
            common = max(common, len(after))
        out[text] = min(len(text), common + 1)
    return out


@dataclass(frozen=True)
class Entry:
    """One file the patch may touch: the line that opens its first block and the rule after it."""

    head: str
    first: str


def file_chain(rules: Rules, count: int, build: Callable[[int, str], Entry]) -> str:
    """Files in the given order, each at most once, at least one in all. ``build(k, after)``
    emits file ``k``'s rules (``after`` is the rule for the files after it) and returns its
    entry; files are built last first, so that each rule follows its witnesses. Returns the
    first pick rule (the root's body)."""
    nxt: str | None = None
    for k in range(count - 1, -1, -1):
        after = rules.add(f"after{k}", *([Ref(nxt)] if nxt else []), EMPTY)
        entry = build(k, after)
        branches: list[Expr] = [seq(literal(entry.head), Ref(entry.first))]
        if nxt:
            branches.append(Ref(nxt))
        nxt = rules.add(f"pick{k}", *branches)
    assert nxt is not None
    return nxt
