"""Whole-document graph analyses: instance nesting depth, ``$ref`` cycles, reachability.

The graph's vertices are subschemas; edges are the structural children plus one edge from each
``$ref`` to its target. Structural edges form a tree, so every cycle goes through a ``$ref``.
All walks are iterative: real schemas nest deeper than Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gramwright.lint.facts import is_array, is_object
from gramwright.lint.walker import Node


def _instance_edges(node: Node, ref_target: Mapping[int, Node]) -> list[tuple[Node, bool]]:
    edges = [(c, c.descends) for c in node.children if not c.is_definition]
    target = ref_target.get(node.index)
    if target is not None:
        edges.append((target, False))
    return edges


@dataclass(frozen=True, slots=True)
class DepthInfo:
    """``depth`` counts nested containers (objects/arrays) on the deepest instance path, one
    unrolling of any recursion; ``path`` is the subschemas along it (root first)."""

    depth: int
    path: tuple[Node, ...]
    recursive: bool


def nesting_depth(root: Node, ref_target: Mapping[int, Node]) -> DepthInfo:
    memo: dict[int, int] = {}
    best: dict[int, Node | None] = {}
    state: dict[int, int] = {}
    recursive = False
    # frame: node, its edges, next edge index, best value so far, best child so far
    stack: list[tuple[Node, list[tuple[Node, bool]], int, int, Node | None]] = []

    def own(n: Node) -> int:
        return 1 if isinstance(n.schema, dict) and (is_object(n.schema) or is_array(n.schema)) else 0

    stack.append((root, _instance_edges(root, ref_target), 0, own(root), None))
    state[root.index] = 1
    while stack:
        node, edges, i, value, arg = stack[-1]
        if i < len(edges):
            child, down = edges[i]
            stack[-1] = (node, edges, i + 1, value, arg)
            st = state.get(child.index, 0)
            if st == 0:
                state[child.index] = 1
                stack.append((child, _instance_edges(child, ref_target), 0, own(child), None))
                # the parent's frame is revisited once the child is done (see below)
                stack[-2] = (node, edges, i, value, arg)
            elif st == 2:
                cand = memo[child.index] + (1 if down else 0)
                if cand > value:
                    stack[-1] = (node, edges, i + 1, cand, child)
            else:
                recursive = True
            continue
        stack.pop()
        memo[node.index] = value
        best[node.index] = arg
        state[node.index] = 2
    path = [root]
    seen = {root.index}
    while (nxt := best.get(path[-1].index)) is not None and nxt.index not in seen:
        path.append(nxt)
        seen.add(nxt.index)
    return DepthInfo(memo.get(root.index, 0), tuple(path), recursive)


def strongly_connected(nodes: list[Node], ref_target: Mapping[int, Node]) -> list[list[Node]]:
    """Tarjan's SCCs (iterative) of size > 1 or with a self-loop: the recursive parts of a schema."""

    def succ(n: Node) -> list[Node]:
        out = list(n.children)
        t = ref_target.get(n.index)
        if t is not None:
            out.append(t)
        return out

    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[Node] = []
    result: list[list[Node]] = []
    counter = 0
    for start in nodes:
        if start.index in index:
            continue
        work: list[tuple[Node, list[Node], int]] = [(start, succ(start), 0)]
        index[start.index] = low[start.index] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start.index)
        while work:
            node, kids, i = work[-1]
            if i < len(kids):
                work[-1] = (node, kids, i + 1)
                k = kids[i]
                if k.index not in index:
                    index[k.index] = low[k.index] = counter
                    counter += 1
                    stack.append(k)
                    on_stack.add(k.index)
                    work.append((k, succ(k), 0))
                elif k.index in on_stack:
                    low[node.index] = min(low[node.index], index[k.index])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent.index] = min(low[parent.index], low[node.index])
            if low[node.index] == index[node.index]:
                comp: list[Node] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w.index)
                    comp.append(w)
                    if w is node:
                        break
                self_loop = ref_target.get(node.index) is node
                if len(comp) > 1 or self_loop:
                    result.append(sorted(comp, key=lambda n: n.index))
    return result


def reachable(root: Node, ref_target: Mapping[int, Node], extra_roots: Iterable[Node] = ()) -> set[int]:
    """Subschemas an instance can reach from the root (definitions only through ``$ref``)."""
    seen: set[int] = set()
    todo = [root, *extra_roots]
    while todo:
        node = todo.pop()
        if node.index in seen:
            continue
        seen.add(node.index)
        todo.extend(c for c, _ in _instance_edges(node, ref_target))
    return seen
