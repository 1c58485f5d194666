"""The rule registry: one small function per rule, registered by id (python-jsonschema's shape).

A *node* rule runs on every subschema that has one of its trigger keywords (``on``; ``None`` means
every subschema) and yields findings for that subschema. A *document* rule runs once per schema.
Severity is not the rule's business beyond a default: target profiles override it per rule and per
variant (``rule#variant``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypedDict, Unpack

from gramwright.lint.diagnostic import Finding, Severity

if TYPE_CHECKING:
    from gramwright.lint.context import LintContext
    from gramwright.lint.walker import Node

NodeCheck = Callable[["Node", "LintContext"], Iterable[Finding]]
DocumentCheck = Callable[["LintContext"], Iterable[Finding]]
SeveritySetting = Literal["error", "warn", "info", "off"]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    what: str
    why: str
    anchors: str
    default: SeveritySetting
    variants: Mapping[str, SeveritySetting] = field(default_factory=dict)
    on: frozenset[str] | None = None
    node_check: NodeCheck | None = None
    document_check: DocumentCheck | None = None
    fixable: bool = False
    limits: tuple[str, ...] = ()  # inert unless the profile sets at least one of these limits

    def default_for(self, variant: str) -> SeveritySetting:
        return self.variants.get(variant, self.default)


RULES: dict[str, Rule] = {}


def _register(rule: Rule) -> None:
    if rule.id in RULES:
        raise ValueError(f"lint rule {rule.id!r} registered twice")
    RULES[rule.id] = rule


class RuleOptions(TypedDict, total=False):
    """What a rule may say beyond its id, ``what`` and ``why`` (node and document rules alike)."""

    anchors: str
    default: SeveritySetting  # "warn" when not given
    variants: Mapping[str, SeveritySetting]
    fixable: bool
    limits: tuple[str, ...]


def _rule(
    rule_id: str,
    what: str,
    why: str,
    options: RuleOptions,
    *,
    on: frozenset[str] | None = None,
    node_check: NodeCheck | None = None,
    document_check: DocumentCheck | None = None,
) -> None:
    _register(
        Rule(
            rule_id,
            what,
            why,
            options.get("anchors", ""),
            options.get("default", "warn"),
            dict(options.get("variants") or {}),
            on,
            node_check,
            document_check,
            options.get("fixable", False),
            options.get("limits", ()),
        )
    )


def node_rule(
    rule_id: str, *, on: Iterable[str] | None, what: str, why: str, **options: Unpack[RuleOptions]
) -> Callable[[NodeCheck], NodeCheck]:
    def wrap(check: NodeCheck) -> NodeCheck:
        _rule(rule_id, what, why, options, on=frozenset(on) if on is not None else None, node_check=check)
        return check

    return wrap


def document_rule(
    rule_id: str, *, what: str, why: str, **options: Unpack[RuleOptions]
) -> Callable[[DocumentCheck], DocumentCheck]:
    def wrap(check: DocumentCheck) -> DocumentCheck:
        _rule(rule_id, what, why, options, document_check=check)
        return check

    return wrap


def all_rules() -> dict[str, Rule]:
    """Every registered rule, sorted by id (importing the rule modules registers them)."""
    import gramwright.lint.rules  # noqa: F401 - registers the rules

    return dict(sorted(RULES.items()))


def is_severity(value: str) -> bool:
    return value in ("error", "warn", "info")


def as_severity(value: SeveritySetting) -> Severity | None:
    return None if value == "off" else value
