"""Reference cycles that make no progress, found before compiling.

A ``$ref`` cycle is a recursive type when the way round it goes through a keyword that moves to
another instance location (``properties``, ``items``, ``propertyNames``...): each turn consumes
input, and the compiler closes it on the rule being built. A cycle made only of keywords that
apply to the *same* instance (``$ref``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/
``else``, ``dependentSchemas``) never reaches a value: ``{"$ref": "#"}`` asks the instance to match
itself forever, and a validator that follows it recurses until the stack runs out. Such a cycle
is refused with the keyword locations that close it, whatever the compiler would make of it.

The walk is iterative (schemas nest deeper than Python's recursion limit) and visits each
subschema once; references are resolved as written (a ``$dynamicRef`` to its initial target).
"""

from __future__ import annotations

from gramwright.pointer import join_pointer
from gramwright.schema.compiler import keywords as kw
from gramwright.schema.errors import SchemaCompileError, UnsupportedSchema
from gramwright.schema.facts import DEFINITION_CONTAINERS, subschemas
from gramwright.schema.resolve import Loc, SchemaRegistry

# Applicators whose subschemas apply to the instance itself (no input consumed on the way in).
IN_PLACE = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
)
REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")

# An edge: the target, the keyword location it is written at, and whether it stays in place.
Edge = tuple[Loc, str, bool]


class NoProgressCycle(UnsupportedSchema):
    """A cycle of in-place applicators: ``pointers`` are the keyword locations, in order."""

    def __init__(self, pointers: list[str], start: str) -> None:
        self.pointers = pointers
        path = " -> ".join(f"#{p}" for p in pointers)
        super().__init__(
            pointers[0],
            f"the schema refers to itself without consuming input: {path} -> back to #{start}",
            keyword=pointers[0].rsplit("/", 1)[-1],
            hint="a recursive schema must go through properties or items before it comes back",
        )


def _edges(registry: SchemaRegistry, loc: Loc) -> list[Edge]:
    schema = loc.schema
    if not isinstance(schema, dict):
        return []
    draft = loc.draft
    out: list[Edge] = []
    # Before 2019-09 a $ref replaces its siblings: they are not applied at all.
    replaced = draft <= 7 and "$ref" in schema
    for ref_kw in REFERENCES:
        if ref_kw in schema and (ref_kw == "$ref" or kw.asserts(ref_kw, draft)):
            try:
                target = registry.lookup(loc, ref_kw)
            except SchemaCompileError:
                continue  # unresolvable: the compiler says so where it meets it
            out.append((target, join_pointer(loc.pointer, ref_kw), True))
    if replaced:
        return out
    for keyword, name, _ in subschemas(schema):
        if keyword in DEFINITION_CONTAINERS or not kw.asserts(keyword, draft):
            continue
        path: tuple[str | int, ...] = (keyword,) if name is None else (keyword, name)
        child = registry.child(loc, *path)
        out.append((child, child.pointer, keyword in IN_PLACE))
    return out


def find_no_progress_cycle(registry: SchemaRegistry) -> tuple[list[str], str] | None:
    """The first in-place cycle reachable from the root: the locations of the keywords that
    close it, in order, and the pointer of the subschema it starts and ends at; or None."""
    root = registry.root_loc()
    # 1. every subschema an instance can reach, with its edges (each visited once)
    edges: dict[int, list[Edge]] = {}
    locs: dict[int, Loc] = {}
    todo = [root]
    while todo:
        loc = todo.pop()
        if id(loc.schema) in edges or not isinstance(loc.schema, dict):
            continue
        locs[id(loc.schema)] = loc
        edges[id(loc.schema)] = out = _edges(registry, loc)
        todo.extend(target for target, _, _ in out)
    # 2. a depth-first search over the in-place edges only; a grey target closes a cycle
    in_place = {
        node: [(id(t.schema), p) for t, p, same in out if same and id(t.schema) in edges]
        for node, out in edges.items()
    }
    state: dict[int, int] = {}  # 1: on the path, 2: done
    for start in locs:
        if start in state:
            continue
        state[start] = 1
        stack: list[tuple[int, int]] = [(start, 0)]
        via: list[str] = []  # via[i]: the keyword location leading from stack[i] to stack[i + 1]
        while stack:
            node, i = stack[-1]
            succ = in_place[node]
            if i == len(succ):
                state[node] = 2
                stack.pop()
                if via:
                    via.pop()
                continue
            stack[-1] = (node, i + 1)
            t, pointer = succ[i]
            st = state.get(t, 0)
            if st == 1:
                at = next(j for j, (n, _) in enumerate(stack) if n == t)
                return [*via[at:], pointer], locs[t].pointer
            if st == 0:
                state[t] = 1
                stack.append((t, 0))
                via.append(pointer)
    return None


def check_no_progress_cycles(registry: SchemaRegistry) -> None:
    """Raise :class:`NoProgressCycle` when the schema has an in-place reference cycle."""
    cycle = find_no_progress_cycle(registry)
    if cycle is not None:
        raise NoProgressCycle(*cycle)
