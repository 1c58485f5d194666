"""Visit every subschema of a document with its RFC 6901 JSON Pointer (draft-04 … 2020-12).

Only values of applicator keywords are subschemas; everything else (``enum``, ``default``, ``x-…``,
unknown keywords) is data and is never walked, so a property *named* ``minimum`` is never mistaken
for the keyword.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from gramwright.pointer import join_pointer
from gramwright.schema.facts import (
    DEFINITION_CONTAINERS,
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    SUBSCHEMA_SINGLE,
    subschemas,
)

SINGLE = SUBSCHEMA_SINGLE
LISTS = SUBSCHEMA_LISTS
MAPS = SUBSCHEMA_MAPS
DESCENDING = frozenset(k for table in (SINGLE, LISTS, MAPS) for k, down in table.items() if down)

DEFAULT_BASE_URI = "file:///gramwright-lint/schema.json"


def is_schema(value: object) -> bool:
    return isinstance(value, dict | bool)


@dataclass(eq=False, slots=True)
class Node:
    """One subschema. ``via`` is the keyword that led here, ``key`` the property/definition name or
    list index under it, ``index`` the document (pre-)order."""

    pointer: str
    schema: Any
    parent: Node | None
    via: str
    key: str
    base_uri: str
    index: int
    children: list[Node] = field(default_factory=list)

    @property
    def obj(self) -> dict[str, Any]:
        """The schema as a mapping (``{}`` for boolean schemas)."""
        return self.schema if isinstance(self.schema, dict) else {}

    @property
    def descends(self) -> bool:
        """True when this subschema describes a child instance of its parent's instance."""
        return self.via in DESCENDING

    @property
    def is_definition(self) -> bool:
        return self.via in DEFINITION_CONTAINERS

    @property
    def property_name(self) -> str | None:
        return self.key if self.via == "properties" else None


@dataclass(slots=True)
class SchemaIndex:
    """Every subschema of one document, with the lookups rules and ``$ref`` resolution need."""

    root: Node | None = None
    nodes: list[Node] = field(default_factory=list)
    by_pointer: dict[str, Node] = field(default_factory=dict)
    by_identity: dict[int, Node] = field(default_factory=dict)
    resources: dict[str, Node] = field(default_factory=dict)
    anchors: dict[tuple[str, str], Node] = field(default_factory=dict)
    ref_nodes: list[Node] = field(default_factory=list)
    draft04_hints: bool = False
    id_keyword: str = "$id"

    def add_root(self, schema: Any, pointer: str = "", base_uri: str = DEFAULT_BASE_URI) -> Node:
        """Walk ``schema`` (the document, or a ``$ref`` target the main walk did not reach) in document
        pre-order: a node's index is smaller than its descendants' and its later siblings'."""
        first: Node | None = None
        stack: list[tuple[Any, str, Node | None, str, str, str]] = [(schema, pointer, None, "", "", base_uri)]
        while stack:
            value, ptr, parent, via, key, base = stack.pop()
            node = self._visit(value, ptr, parent, via, key, base)
            if parent is not None:
                parent.children.append(node)
            first = first or node
            stack.extend(reversed(list(self._children(node))))
        assert first is not None
        if self.root is None:
            self.root = first
        return first

    def _visit(self, schema: Any, pointer: str, parent: Node | None, via: str, key: str, base: str) -> Node:
        if isinstance(schema, dict):
            base = self._rebase(schema, base)
        node = Node(pointer, schema, parent, via, key, base, len(self.nodes))
        self.nodes.append(node)
        self.by_pointer.setdefault(pointer, node)
        if isinstance(schema, dict):
            self.by_identity.setdefault(id(schema), node)
            self._register(node)
        return node

    def _rebase(self, schema: dict[str, Any], base: str) -> str:
        ident = schema.get(self.id_keyword)
        if isinstance(ident, str) and ident and not ident.startswith("#"):
            base = urldefrag(urljoin(base, ident))[0]
        return base

    def _register(self, node: Node) -> None:
        schema = node.schema
        ident = schema.get(self.id_keyword)
        if node.parent is None or (isinstance(ident, str) and ident and not ident.startswith("#")):
            self.resources.setdefault(urldefrag(node.base_uri)[0], node)
        if isinstance(ident, str) and ident.startswith("#") and len(ident) > 1:
            self.anchors.setdefault((urldefrag(node.base_uri)[0], ident[1:]), node)
        for anchor_kw in ("$anchor", "$dynamicAnchor"):
            name = schema.get(anchor_kw)
            if isinstance(name, str):
                self.anchors.setdefault((urldefrag(node.base_uri)[0], name), node)
        if isinstance(schema.get("$ref"), str):
            self.ref_nodes.append(node)
        if isinstance(schema.get("exclusiveMinimum"), bool) or isinstance(
            schema.get("exclusiveMaximum"), bool
        ):
            self.draft04_hints = True

    def _children(self, node: Node) -> Iterator[tuple[Any, str, Node | None, str, str, str]]:
        if not isinstance(node.schema, dict):
            return
        for keyword, name, item in subschemas(node.schema):
            if name is None:
                yield item, join_pointer(node.pointer, keyword), node, keyword, "", node.base_uri
            else:
                pointer = join_pointer(node.pointer, keyword, name)
                yield item, pointer, node, keyword, str(name), node.base_uri


def build_index(schema: Any, *, declared_draft: str | None = None) -> SchemaIndex:
    """Walk a whole document. ``declared_draft`` picks ``id`` (draft-03/04) or ``$id`` as identifier."""
    index = SchemaIndex()
    if declared_draft in ("draft-03", "draft-04"):
        index.id_keyword = "id"
    base = DEFAULT_BASE_URI
    if isinstance(schema, dict):
        ident = schema.get(index.id_keyword)
        if declared_draft is None and not isinstance(ident, str) and isinstance(schema.get("id"), str):
            index.id_keyword = "id"
            index.draft04_hints = True
            ident = schema.get("id")
        if isinstance(ident, str) and ident and not ident.startswith("#"):
            base = urldefrag(urljoin(DEFAULT_BASE_URI, ident))[0]
    index.add_root(schema, "", base)
    return index
