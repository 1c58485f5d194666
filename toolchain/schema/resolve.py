"""Schema locations and ``$ref`` resolution (draft-04 … 2020-12), never over the network.

A :class:`Loc` is a subschema together with what is needed to interpret it: its canonical JSON
Pointer (for reports and rule names), the ``referencing`` resolver that knows its base URI and
dynamic scope, and its draft. Resolution (``$id``, ``$anchor``, ``$dynamicAnchor``, JSON Pointers,
draft-04 ``id``) is delegated to ``referencing``, the library python-jsonschema uses, so the
compiler and the validator agree on what a ``$ref`` means.

Remote documents come only from a local registry: a mapping URI prefix → folder (the test suite
maps ``http://localhost:1234/`` to its ``remotes/`` folder), ``file://`` URIs, and the bundled
meta-schemas. Retrieved documents are cached, so a subschema is always the same Python object —
the compiler memoises rules and the conformance runner maps validation errors back by identity.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jsonschema_specifications
import referencing.exceptions
from referencing import Registry, Resource, Specification
from referencing._core import Resolver
from referencing.jsonschema import (
    DRAFT3,
    DRAFT4,
    DRAFT6,
    DRAFT7,
    DRAFT201909,
    DRAFT202012,
    specification_with,
)

from gramwright.pointer import join_pointer
from gramwright.readlimit import InputTooLarge, read_limited
from gramwright.schema.errors import SchemaLoadError, UnsupportedSchema
from gramwright.schema.facts import VALIDATION_VOCABULARY
from gramwright.schema.load import read_schema_bytes

# Drafts as numbers so that "from draft 2019-09 on" is a comparison.
SPECS: dict[int, Specification[Any]] = {
    3: DRAFT3,
    4: DRAFT4,
    6: DRAFT6,
    7: DRAFT7,
    2019: DRAFT201909,
    2020: DRAFT202012,
}
_SPEC_DRAFTS: dict[str, int] = {spec.name: number for number, spec in SPECS.items()}

TEST_SUITE_REMOTE = "http://localhost:1234/"


def draft_of_dialect(dialect: object, default: int) -> int:
    """The draft named by a ``$schema`` value; unknown or missing dialects give ``default``."""
    if not isinstance(dialect, str):
        return default
    spec = specification_with(dialect, default=None)  # type: ignore[arg-type]  # None is a valid sentinel
    if spec is None:
        return default
    return _SPEC_DRAFTS.get(spec.name, default)


@dataclass(frozen=True, eq=False, slots=True)
class Loc:
    """A subschema in context. Identity (``schema`` object, ``consumed``) is the memo key."""

    schema: Any  # dict[str, Any] | bool
    pointer: str
    resolver: Resolver[Any]
    draft: int

    @property
    def is_dict(self) -> bool:
        return isinstance(self.schema, dict)


class SchemaRegistry:
    """The documents a compilation may reach, with a pointer index over all of them."""

    def __init__(
        self,
        root: Any,
        *,
        base_uri: str | None = None,
        default_draft: int = 2020,
        remotes: Mapping[str, Path] | None = None,
    ) -> None:
        self.root = root
        self.base_uri = base_uri or ""
        self.root_draft = (
            draft_of_dialect(root.get("$schema"), default_draft) if isinstance(root, dict) else default_draft
        )
        self.default_draft = default_draft
        # the root names its draft ($schema) rather than having one assumed for it
        self.declared = isinstance(root, dict) and draft_of_dialect(root.get("$schema"), 0) != 0
        self.remotes = dict(remotes or {})
        self._docs: dict[str, Any] = {}
        self._index: dict[int, tuple[str, int]] = {}  # id(dict) → (pointer, draft)
        self._children: dict[tuple[int, tuple[str | int, ...]], Loc] = {}
        self.has_dynamic = False
        self._index_doc(root, "", self.root_draft)
        spec = SPECS[self.root_draft]
        resource = spec.create_resource(root)
        registry: Registry[Any] = Registry(retrieve=self._retrieve).combine(  # type: ignore[call-arg]
            jsonschema_specifications.REGISTRY
        )
        root_id = resource.id()
        uri = self.base_uri or root_id or ""
        if root_id and self.base_uri:
            # An absolute $id wins over the file location; a relative one is joined to it.
            from urllib.parse import urljoin

            uri = urljoin(self.base_uri, root_id)
        self.registry: Registry[Any] = registry.with_resource(uri, resource)
        if root_id and uri != root_id:
            self.registry = self.registry.with_resource(root_id, resource)
        self.root_uri = uri
        self.disabled: frozenset[str] = self._vocabulary_gaps(root)

    # -- documents ----------------------------------------------------------------------------
    def _index_doc(self, doc: Any, prefix: str, draft: int) -> None:
        stack: list[tuple[Any, str, int]] = [(doc, prefix, draft)]
        while stack:
            node, ptr, d = stack.pop()
            if isinstance(node, dict):
                if "$schema" in node:
                    d = draft_of_dialect(node["$schema"], d)
                if "$dynamicAnchor" in node or "$recursiveAnchor" in node:
                    self.has_dynamic = True
                self._index.setdefault(id(node), (ptr, d))
                for k, v in node.items():
                    if isinstance(v, dict | list):
                        stack.append((v, join_pointer(ptr, k), d))
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    if isinstance(v, dict | list):
                        stack.append((v, join_pointer(ptr, i), d))

    def _local_path(self, uri: str) -> Path | None:
        for prefix, folder in self.remotes.items():
            if uri.startswith(prefix):
                return Path(folder) / unquote(uri[len(prefix) :])
        parts = urlsplit(uri)
        if parts.scheme == "file":
            return Path(unquote(parts.path))
        return None

    def _retrieve(self, uri: str) -> Resource[Any]:
        doc = self._docs.get(uri)
        if doc is None:
            path = self._local_path(uri)
            if path is None or not path.is_file():
                # Never fetched: only the local registry can answer.
                raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs alias
            # the one schema reader: a referenced file is read like the root one (BOM, depth, ...)
            try:
                data = read_limited(path, "schema")
            except InputTooLarge as exc:  # said as a reader's error, so the lookup names the file
                raise SchemaLoadError(str(path), exc.message, hint=exc.hint) from None
            doc = read_schema_bytes(data, str(path), any_value=True)
            self._docs[uri] = doc
            draft = draft_of_dialect(doc.get("$schema"), self.root_draft) if isinstance(doc, dict) else 2020
            self._index_doc(doc, uri + "#", draft)
        spec = SPECS[self.root_draft]
        return Resource.from_contents(doc, default_specification=spec)

    def _vocabulary_gaps(self, root: Any) -> frozenset[str]:
        """Keywords switched off by a custom meta-schema's ``$vocabulary`` (2019-09 on)."""
        dialect = root.get("$schema") if isinstance(root, dict) else None
        if not isinstance(dialect, str) or specification_with(dialect, default=None) is not None:  # type: ignore[arg-type]
            return frozenset()
        try:
            meta = self.registry.resolver(self.root_uri).lookup(dialect).contents
        except referencing.exceptions.Unresolvable:
            return frozenset()
        vocab = meta.get("$vocabulary") if isinstance(meta, dict) else None
        if not isinstance(vocab, dict):
            return frozenset()
        if isinstance(meta, dict):
            self.root_draft = draft_of_dialect(meta.get("$schema"), self.root_draft)
        if any(uri.endswith("/vocab/validation") for uri in vocab):
            return frozenset()
        return VALIDATION_VOCABULARY

    # -- locations ----------------------------------------------------------------------------
    def root_loc(self) -> Loc:
        return Loc(self.root, "", self.registry.resolver(self.root_uri), self.root_draft)

    def info(self, node: Any) -> tuple[str, int] | None:
        return self._index.get(id(node))

    def child(self, loc: Loc, *path: str | int) -> Loc:
        """The subschema at ``path`` below ``loc`` (entering embedded resources with ``$id``).

        Memoised by position: a subschema's base URI is a function of where it sits, so only a
        registry with dynamic anchors (where the dynamic scope matters) computes it every time.
        """
        if self.has_dynamic:
            return self._child(loc, path)
        key = (id(loc.schema), path)
        known = self._children.get(key)
        if known is None:
            known = self._children[key] = self._child(loc, path)
        return known

    def _child(self, loc: Loc, path: tuple[str | int, ...]) -> Loc:
        node: Any = loc.schema
        for seg in path:
            node = node[seg]
        pointer = join_pointer(loc.pointer, *path)
        draft = loc.draft
        resolver = loc.resolver
        if isinstance(node, dict):
            known = self._index.get(id(node))
            if known is not None:
                pointer, draft = known
            elif "$schema" in node:
                draft = draft_of_dialect(node["$schema"], draft)
            # A malformed $id/id (or a container that is not a schema) keeps the base URI.
            with contextlib.suppress(AttributeError, TypeError, ValueError):
                resolver = resolver.in_subresource(SPECS[draft].create_resource(node))
        return Loc(node, pointer, resolver, draft)

    def lookup(self, loc: Loc, keyword: str) -> Loc:
        """Resolve ``loc.schema[keyword]`` (``$ref`` / ``$dynamicRef`` / ``$recursiveRef``)."""
        ref = loc.schema[keyword]
        where = join_pointer(loc.pointer, keyword)
        if not isinstance(ref, str):
            raise UnsupportedSchema(where, f"{keyword} must be a string", keyword=keyword)
        try:
            if keyword == "$recursiveRef":
                from referencing.jsonschema import lookup_recursive_ref

                resolved = lookup_recursive_ref(loc.resolver)
            else:
                resolved = loc.resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            reason = f"cannot resolve {keyword} {ref!r} ({type(exc).__name__})"
            unreadable = _load_error(exc)
            if unreadable is None:
                raise UnsupportedSchema(where, reason, keyword=keyword) from None
            # a local file that is there but is no schema: say why, and what to do about it
            reason += f": {unreadable}"
            raise UnsupportedSchema(where, reason, keyword=keyword, hint=unreadable.hint) from None
        target = resolved.contents
        known = self._index.get(id(target)) if isinstance(target, dict) else None
        if known is not None:
            pointer, draft = known
        else:
            pointer, draft = f"{where}→{ref}", loc.draft
            if isinstance(target, dict):
                draft = draft_of_dialect(target.get("$schema"), draft)
        return Loc(target, pointer, resolved.resolver, draft)

    def documents(self) -> Iterator[Any]:
        yield self.root
        yield from self._docs.values()


def _load_error(exc: BaseException) -> SchemaLoadError | None:
    """The reader's error behind a failed lookup (``referencing`` wraps what ``retrieve`` raised)."""
    cause = exc.__cause__
    while cause is not None and not isinstance(cause, SchemaLoadError):
        cause = cause.__cause__
    return cause


def dynamic_scope_key(loc: Loc) -> tuple[str, ...]:
    """The dynamic scope as it matters for ``$dynamicRef``: each URI at its outermost position."""
    seen: dict[str, None] = {}
    for uri, _ in reversed(list(loc.resolver.dynamic_scope())):
        seen.setdefault(uri, None)
    return tuple(seen)
