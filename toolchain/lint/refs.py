"""Local ``$ref`` resolution: every reference → its target subschema, or why there is none.

Nothing is ever fetched. JSON Pointer and anchor fragments into the document's own resources (the
root and every embedded ``$id``) are resolved directly so that the target's pointer is known; other
forms go through ``referencing`` with a registry that holds only this document's resources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote, urldefrag, urljoin

import referencing
import referencing.exceptions
import referencing.jsonschema

from gramwright.lint.walker import Node, SchemaIndex, is_schema
from gramwright.pointer import join_pointer, unescape_token

RefKind = Literal["local", "external", "unresolvable"]
REF_KEYWORDS = ("$ref", "$recursiveRef", "$dynamicRef")


@dataclass(frozen=True, slots=True)
class RefSite:
    node: Node
    ref: str
    uri: str
    kind: RefKind
    target: Node | None = None
    reason: str = ""

    @property
    def pointer(self) -> str:
        return join_pointer(self.node.pointer, "$ref")


class RefResolver:
    def __init__(self, index: SchemaIndex, schema_uri: str = "") -> None:
        self.index = index
        self.schema_uri = schema_uri
        self._registry: referencing.Registry[Any] | None = None

    def resolve_all(self) -> list[RefSite]:
        """Resolve every ``$ref``; targets the walk did not reach are walked too (and their refs)."""
        sites: list[RefSite] = []
        i = 0
        while i < len(self.index.ref_nodes):
            node = self.index.ref_nodes[i]
            i += 1
            sites.append(self.resolve(node, node.obj["$ref"]))
        return sites

    def resolve(self, node: Node, ref: str) -> RefSite:
        base = urldefrag(node.base_uri)[0]
        uri = base + ref if ref.startswith("#") else urljoin(node.base_uri, ref)
        resource_uri, fragment = urldefrag(uri)
        resource = self.index.resources.get(resource_uri)
        if resource is None:
            target = self._via_referencing(node, ref)
            if target is not None:
                return RefSite(node, ref, uri, "local", target)
            return RefSite(node, ref, uri, "external", reason=f"{resource_uri} is not part of this document")
        fragment = unquote(fragment)
        if not fragment:
            return RefSite(node, ref, uri, "local", resource)
        if fragment.startswith("/"):
            return self._pointer(node, ref, uri, resource, fragment)
        anchor = self.index.anchors.get((resource_uri, fragment))
        if anchor is None:
            anchor = self._via_referencing(node, ref)
        if anchor is None:
            return RefSite(node, ref, uri, "unresolvable", reason=f"no anchor {fragment!r} in the document")
        return RefSite(node, ref, uri, "local", anchor)

    def _pointer(self, node: Node, ref: str, uri: str, resource: Node, fragment: str) -> RefSite:
        value: Any = resource.schema
        tokens = [unescape_token(t) for t in fragment.split("/")[1:]]
        walked: list[str] = []
        for token in tokens:
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                where = "/" + "/".join(walked) if walked else "the document root"
                reason = f"no {token!r} under {where}"
                return RefSite(node, ref, uri, "unresolvable", reason=reason)
            walked.append(token)
        pointer = join_pointer(resource.pointer, *tokens)
        if not is_schema(value):
            return RefSite(node, ref, uri, "unresolvable", reason=f"{fragment} is not a schema")
        target = self.index.by_identity.get(id(value)) if isinstance(value, dict) else None
        if target is None:
            target = self.index.by_pointer.get(pointer)
        if target is None:
            target = self.index.add_root(value, pointer, resource.base_uri)
        return RefSite(node, ref, uri, "local", target)

    def _via_referencing(self, node: Node, ref: str) -> Node | None:
        """The library's resolution for forms the direct path does not cover (never retrieves)."""
        try:
            resolved = self._get_registry().resolver(node.base_uri).lookup(ref)
        except (referencing.exceptions.Unresolvable, referencing.exceptions.CannotDetermineSpecification):
            return None
        except Exception:  # noqa: BLE001 - a malformed ref must not crash the linter
            return None
        contents = resolved.contents
        return self.index.by_identity.get(id(contents)) if isinstance(contents, dict) else None

    def _get_registry(self) -> referencing.Registry[Any]:
        if self._registry is None:
            spec = referencing.jsonschema.specification_with(
                self.schema_uri or "https://json-schema.org/draft/2020-12/schema",
                default=referencing.jsonschema.DRAFT202012,
            )
            registry: referencing.Registry[Any] = referencing.Registry()
            for uri, node in self.index.resources.items():
                registry = registry.with_resource(uri, spec.create_resource(node.schema))
            self._registry = registry.crawl()
        return self._registry
