"""``lint --tools``: what in a tools list hurts constrained tool calling, as lint diagnostics.

Rules (``tools/…``), each a small generator over the tool set:

* ``prefix-names``: a name that is a prefix of another (``get``, ``get_all``). gramwright's
  grammar tells them apart by the closing quote, but engines that dispatch on a trigger per
  tool (a structural tag whose ``begin`` ends at the name, a parser matching ``"name": "get``)
  may pick the shorter one;
* ``colliding-defs``: two tools define the same ``$defs`` name differently. gramwright
  namespaces each tool's rules; a server that merges all tools into one schema keeps one;
* ``unbounded-string``: an argument string with no ``maxLength``, ``enum``, ``const``,
  ``format`` or anchored pattern without unbounded repetition: a small model can run away in
  it until the token budget closes it;
* ``mixed-strict``: some tools strict, some not — only the strict ones are guaranteed by
  OpenAI, so the same agent gets two kinds of arguments;
* ``too-many``: more tools than the profile's limit (OpenAI's API takes at most 128; its
  guide advises fewer than 20 at a time, as many tools degrade tool choice).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from gramwright.lint.diagnostic import Diagnostic, Severity
from gramwright.tools.spec import ToolSet

__all__ = ["TOOL_LIMITS", "lint_tools"]

# profile → (hard limit: error past it, advised limit: warn past it)
TOOL_LIMITS: dict[str, tuple[int | None, int]] = {"openai-strict": (128, 20)}
DEFAULT_LIMITS: tuple[int | None, int] = (None, 20)


def lint_tools(toolset: ToolSet, profile: str = "gramwright") -> list[Diagnostic]:
    """Every finding, in rule order then tool order."""
    out: list[Diagnostic] = []
    for rule, severity, pointer, message, hint in _findings(toolset, profile):
        out.append(Diagnostic(f"tools/{rule}", severity, message, pointer, profile, hint))
    return out


Found = tuple[str, Severity, str, str, str]


def _findings(toolset: ToolSet, profile: str) -> Iterator[Found]:
    yield from _prefix_names(toolset)
    yield from _colliding_defs(toolset)
    yield from _unbounded_strings(toolset)
    yield from _mixed_strict(toolset)
    yield from _too_many(toolset, profile)


def _prefix_names(toolset: ToolSet) -> Iterator[Found]:
    for tool in toolset.tools:
        longer = [o.name for o in toolset.tools if o.name != tool.name and o.name.startswith(tool.name)]
        if longer:
            yield (
                "prefix-names",
                "warn",
                f"{tool.pointer}/name",
                f"tool name {tool.name!r} is a prefix of {', '.join(map(repr, longer))}",
                "engines that dispatch on the name's first characters may call the wrong one: rename it",
            )


def _defs(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            found.update(schema[key])
    return found


def _colliding_defs(toolset: ToolSet) -> Iterator[Found]:
    first: dict[str, tuple[str, str]] = {}  # def name → (tool, canonical text)
    for tool in toolset.tools:
        for name, sub in _defs(tool.parameters).items():
            text = json.dumps(sub, sort_keys=True)
            seen = first.setdefault(name, (tool.name, text))
            if seen[0] != tool.name and seen[1] != text:
                yield (
                    "colliding-defs",
                    "warn",
                    f"{tool.pointer}/parameters/$defs/{name}",
                    f"$defs/{name} of {tool.name!r} differs from $defs/{name} of {seen[0]!r}",
                    "gramwright keeps them apart; a server merging the tools' schemas would not: rename one",
                )


def _strings(schema: Any, pointer: str) -> Iterator[str]:
    """Pointers of string subschemas that bound nothing."""
    if not isinstance(schema, dict):
        return
    types = schema.get("type")
    is_string = types == "string" or (isinstance(types, list) and "string" in types)
    bounded = any(k in schema for k in ("maxLength", "enum", "const", "format"))
    if is_string and not bounded and not _bounded_pattern(schema.get("pattern")):
        yield pointer
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            for name, sub in value.items():
                yield from _strings(sub, f"{pointer}/{key}/{name.replace('~', '~0').replace('/', '~1')}")
        elif key in ("items", "additionalProperties", "not", "contains") and isinstance(value, dict):
            yield from _strings(value, f"{pointer}/{key}")
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _strings(sub, f"{pointer}/{key}/{i}")


def _bounded_pattern(pattern: Any) -> bool:
    """An anchored pattern without an unbounded repetition (``^[A-Z]{3}$``) bounds the length."""
    if not isinstance(pattern, str) or not (pattern.startswith("^") and pattern.endswith("$")):
        return False
    return not any(mark in pattern for mark in ("*", "+", ",}"))


def _unbounded_strings(toolset: ToolSet) -> Iterator[Found]:
    for tool in toolset.tools:
        for pointer in _strings(tool.parameters, f"{tool.pointer}/parameters"):
            yield (
                "unbounded-string",
                "info",
                pointer,
                f"an argument string of {tool.name!r} has no maxLength, enum, const or format",
                "give it a maxLength: the model cannot run away in it",
            )


def _mixed_strict(toolset: ToolSet) -> Iterator[Found]:
    strict = [t.name for t in toolset.tools if t.strict]
    if strict and len(strict) < len(toolset.tools):
        loose = [t.name for t in toolset.tools if not t.strict]
        yield (
            "mixed-strict",
            "warn",
            "",
            f"{len(strict)} tools are strict and {len(loose)} are not ({', '.join(loose[:5])})",
            "make every tool strict (or none): a strict tool's arguments always match its schema",
        )


def _too_many(toolset: ToolSet, profile: str) -> Iterator[Found]:
    hard, advised = TOOL_LIMITS.get(profile, DEFAULT_LIMITS)
    count = len(toolset.tools)
    if hard is not None and count > hard:
        yield ("too-many", "error", "", f"{count} tools; {profile} takes at most {hard}", "offer fewer tools")
    elif count > advised:
        yield (
            "too-many",
            "warn",
            "",
            f"{count} tools; more than {advised} at a time degrades the model's choice",
            "offer the tools the task needs (tool_choice can name one)",
        )
