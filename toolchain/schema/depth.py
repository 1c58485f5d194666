"""How deep a schema nests, measured without recursion, and the limits gramwright reads it up to.

Loading (the standard library's JSON parser), compiling (one call per subschema), the recognizer
and the validator all recurse, so Python's recursion limit (1,000 frames) decides how deep a
schema they take. Measured here (Python 3.11, under 60 frames of caller): the compiler fails at
183 nested subschemas (``properties``, ``items`` or a ``$ref`` chain of either; 204 ``anyOf``),
at ~400 levels of nested data in a ``const``/``enum``, and ``json.loads`` at 931 levels of JSON
nesting. Rather than a bare ``RecursionError`` somewhere inside, a schema is measured first,
iteratively, and refused past a documented limit:

* ``MAX_SCHEMA_DEPTH`` (128) — subschemas inside subschemas below the root, where a ``$ref``
  leads to its target without a level of its own; checked before compiling (``compile_schema``)
  and by the linter's ``size/nesting-depth``;
* ``MAX_JSON_DEPTH`` (264) — objects and arrays inside each other in the schema's JSON, checked
  on the text before it is parsed (``load``) and on the value before compiling. A subschema
  level takes at most two levels of JSON (``{"anyOf": [ {...} ]}``), hence twice the first limit
  and a few levels of data below the deepest subschema.

The deepest of the 8,028 JSONSchemaBench schemas nests 26 levels of JSON, so the limits are 5-10x
the deepest real schema and leave the compiler ~55 subschema levels (~275 frames) of headroom.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from gramwright.pointer import join_pointer, pointer_tokens
from gramwright.positions import line_col
from gramwright.schema.errors import SchemaTooDeep
from gramwright.schema.facts import DEFINITION_CONTAINERS, subschemas

MAX_SCHEMA_DEPTH = 128
MAX_JSON_DEPTH = 2 * MAX_SCHEMA_DEPTH + 8

JSON_NESTING = "objects and arrays in the JSON text"
SCHEMA_NESTING = "subschemas inside subschemas, $ref targets included"
BEYOND_RECURSION = "Python's recursion limit reached, through references the measure does not follow"

# A string is skipped whole (brackets inside it do not count); the unrolled loop is linear.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def json_depth(text: str, limit: int | None = None) -> tuple[int, int]:
    """How many objects/arrays the JSON ``text`` opens inside each other at most, and the offset
    of the bracket that first goes past ``limit`` (-1 when none does)."""
    depth = deepest = 0
    past = -1
    for m in _TOKEN.finditer(text):
        c = m.group(0)
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if past < 0 and limit is not None and depth > limit:
                    past = m.start()
        elif c in "]}":
            depth -= 1
    return deepest, past


def value_depth(value: Any) -> int:
    """How many objects/arrays the JSON ``value`` holds inside each other at most."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def check_json_depth(text: str, source: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`SchemaTooDeep` when ``text`` nests deeper than ``limit``."""
    depth, past = json_depth(text, limit)
    if depth > limit:
        line, column = line_col(text, past)
        raise SchemaTooDeep(source, depth, limit, nesting=JSON_NESTING, line=line, column=column)


def schema_depth(schema: Any) -> tuple[int, str]:
    """The longest chain of subschemas inside subschemas below the root, and the pointer of the
    last one. A ``$ref`` to a JSON Pointer or anchor of this document leads to its target without
    a level of its own (the compiler recurses into the target's subschemas, not into the
    reference), and ``$defs``/``definitions`` count only where a ``$ref`` reaches them; other
    references are not followed. A recursive reference is cut where it closes
    the cycle (the compiler closes it on the rule being built)."""
    if not isinstance(schema, dict):
        return 0, ""
    anchors = _anchors(schema)
    memo: dict[int, tuple[int, str]] = {}
    on_path: set[int] = set()
    # frame: the subschema, its pointer, its edges (weight, target, pointer), next edge, best so far
    stack: list[tuple[dict[str, Any], str, list[tuple[int, Any, str]], int, tuple[int, str]]] = []

    def push(node: dict[str, Any], pointer: str) -> None:
        on_path.add(id(node))
        stack.append((node, pointer, _edges(node, pointer, schema, anchors), 0, (0, pointer)))

    push(schema, "")
    while stack:
        node, pointer, edges, i, best = stack[-1]
        if i == len(edges):
            stack.pop()
            on_path.discard(id(node))
            memo[id(node)] = best
            if stack:
                parent, p_ptr, p_edges, p_i, p_best = stack[-1]
                weight = p_edges[p_i - 1][0]
                if best[0] + weight > p_best[0]:
                    stack[-1] = (parent, p_ptr, p_edges, p_i, (best[0] + weight, best[1]))
            continue
        weight, child, child_ptr = edges[i]
        stack[-1] = (node, pointer, edges, i + 1, best)
        if id(child) in on_path:
            continue
        known = memo.get(id(child))
        if known is None:
            push(child, child_ptr)
        elif known[0] + weight > best[0]:
            stack[-1] = (node, pointer, edges, i + 1, (known[0] + weight, known[1]))
    return memo[id(schema)]


def check_schema_depth(schema: Any, source: str, limit: int = MAX_SCHEMA_DEPTH) -> None:
    """Raise :class:`SchemaTooDeep` when ``schema``'s subschemas nest deeper than ``limit``, or its
    JSON (data in ``const``/``enum`` included) deeper than ``MAX_JSON_DEPTH``."""
    depth, pointer = schema_depth(schema)
    if depth > limit:
        raise SchemaTooDeep(source, depth, limit, nesting=SCHEMA_NESTING, pointer=pointer)
    depth = value_depth(schema)
    if depth > MAX_JSON_DEPTH:
        raise SchemaTooDeep(source, depth, MAX_JSON_DEPTH, nesting=JSON_NESTING)


def _edges(
    node: dict[str, Any], pointer: str, root: dict[str, Any], anchors: dict[str, Any]
) -> list[tuple[int, Any, str]]:
    edges = [
        (1, item, join_pointer(pointer, keyword) if name is None else join_pointer(pointer, keyword, name))
        for keyword, name, item in subschemas(node)
        # a definition is compiled where a $ref reaches it, not where it is written
        if isinstance(item, dict) and keyword not in DEFINITION_CONTAINERS
    ]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = _local_target(ref[1:], root, anchors)
        if isinstance(target, dict):
            edges.append((0, target, pointer))
    return edges


def _local_target(fragment: str, root: dict[str, Any], anchors: dict[str, Any]) -> Any:
    """The value a ``#fragment`` names in this document (``None`` when it names nothing)."""
    fragment = unquote(fragment)
    if not fragment.startswith("/") and fragment:
        return anchors.get(fragment)
    value: Any = root
    for token in pointer_tokens(fragment):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


def _anchors(root: dict[str, Any]) -> dict[str, Any]:
    """Plain-name anchors of the document: ``$anchor``, ``$dynamicAnchor`` and draft-04/06's
    ``{"id": "#name"}`` / ``{"$id": "#name"}``."""
    found: dict[str, Any] = {}
    todo: list[Any] = [root]
    while todo:
        node = todo.pop()
        for key in ("$anchor", "$dynamicAnchor"):
            if isinstance(node.get(key), str):
                found.setdefault(node[key], node)
        for key in ("$id", "id"):
            ident = node.get(key)
            if isinstance(ident, str) and ident.startswith("#") and len(ident) > 1:
                found.setdefault(ident[1:], node)
        todo.extend(item for _, _, item in subschemas(node) if isinstance(item, dict))
    return found
