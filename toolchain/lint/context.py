"""What every rule sees: the document, its index, the target profile, options and shared analyses.

Analyses are computed on first use and shared by the rules that need them (a rule that is ignored or
off for the profile never pays for its analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from gramwright.lint.analysis import DepthInfo, nesting_depth, reachable, strongly_connected
from gramwright.lint.dialects import Dialect
from gramwright.lint.profiles import Profile
from gramwright.lint.refs import RefSite
from gramwright.lint.walker import Node, SchemaIndex
from gramwright.schema.depth import schema_depth

if TYPE_CHECKING:
    from gramwright.lint.budget import TokenEstimate
    from gramwright.lint.compile_report import CompileOutcome


class Tokenizer(Protocol):
    """Anything with a Hugging Face style ``encode(text, add_special_tokens=False)``."""

    def encode(self, text: str, add_special_tokens: bool = ...) -> Sequence[int]: ...


@dataclass(frozen=True, slots=True)
class LintOptions:
    """``max_tokens``: the generation budget to check against; ``tokenizer``: counts tokens exactly
    (else bytes/3.5); ``compile``: run our compiler for its report (giving up after
    ``compile_timeout_s``); ``ignore``: rule ids or globs."""

    max_tokens: int | None = None
    tokenizer: Tokenizer | None = None
    tokenizer_name: str = ""
    compile: bool = True
    compile_timeout_s: float = 10.0
    ignore: tuple[str, ...] = ()
    # the text x-grounded members copy from, when one is known (``grounded/empty-source``)
    source_text: str | None = None


class LintContext:
    def __init__(
        self,
        schema: Any,
        index: SchemaIndex,
        dialect: Dialect,
        profile: Profile,
        options: LintOptions,
        ref_sites: list[RefSite],
        base_uri: str | None = None,
    ) -> None:
        self.schema = schema
        self.base_uri = base_uri
        self.index = index
        self.dialect = dialect
        self.profile = profile
        self.options = options
        self.ref_sites = ref_sites
        self.ref_by_node: dict[int, RefSite] = {s.node.index: s for s in ref_sites}
        self.cache: dict[str, Any] = {}  # rule-private memo (e.g. a validator built once per document)
        self.ref_target: dict[int, Node] = {s.node.index: s.target for s in ref_sites if s.target is not None}

    @property
    def root(self) -> Node:
        assert self.index.root is not None
        return self.index.root

    def deref(self, node: Node, hops: int = 32) -> Node:
        """Follow ``$ref`` chains to the subschema that holds the constraints (bounded: cycles)."""
        while hops and node.index in self.ref_target:
            node = self.ref_target[node.index]
            hops -= 1
        return node

    def resolved_schema(self, node: Node) -> dict[str, Any]:
        return self.deref(node).obj

    @cached_property
    def depth(self) -> DepthInfo:
        return nesting_depth(self.root, self.ref_target)

    @cached_property
    def schema_depth(self) -> tuple[int, str]:
        """Subschemas inside subschemas (``$ref`` targets included) and the deepest one's pointer:
        what the compiler's depth limit counts (:mod:`gramwright.schema.depth`)."""
        return schema_depth(self.schema)

    @cached_property
    def cycles(self) -> list[list[Node]]:
        """The recursive parts: each is the list of ``$ref`` subschemas that close a cycle."""
        if not self.ref_target:
            return []
        out: list[list[Node]] = []
        for comp in strongly_connected(self.index.nodes, self.ref_target):
            members = {n.index for n in comp}
            refs = [
                n
                for n in comp
                if self.ref_target.get(n.index) is not None and self.ref_target[n.index].index in members
            ]
            if refs:
                out.append(refs)
        return out

    @cached_property
    def reachable(self) -> set[int]:
        return reachable(self.root, self.ref_target)

    @cached_property
    def compiled(self) -> CompileOutcome | None:
        if not self.options.compile or not isinstance(self.schema, dict | bool):
            # a document that is no schema at all (an array, a number): meta/invalid-schema says
            # so in one finding; the compiler has nothing to add
            return None
        from gramwright.lint.compile_report import run_compiler

        return run_compiler(self.schema, base_uri=self.base_uri, timeout_s=self.options.compile_timeout_s)

    @cached_property
    def property_nodes(self) -> list[Node]:
        return [n for n in self.index.nodes if n.via == "properties"]

    @cached_property
    def token_estimate(self) -> TokenEstimate:
        from gramwright.lint.budget import estimate_tokens

        return estimate_tokens(self, self.options.tokenizer, self.options.tokenizer_name)
