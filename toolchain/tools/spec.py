"""A tools list as OpenAI's Chat Completions API takes it → :class:`ToolSet`.

Accepted: the list itself (``[{"type": "function", "function": {...}}, ...]``), a request body
with a ``tools`` member, or the older flat form (``{"name", "parameters", ...}`` per item).
Names follow OpenAI's rule (``^[a-zA-Z0-9_-]{1,64}$``) and are unique; a tool without
``parameters`` takes the empty object, as OpenAI reads it. Every problem is a
:class:`ToolsError` naming the file and the JSON Pointer of the tool at fault.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gramwright.errors import GramwrightError
from gramwright.readlimit import read_limited

__all__ = ["NAME_RE", "Tool", "ToolSet", "ToolsError", "load_tools", "parse_tools"]

NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


class ToolsError(GramwrightError):
    """A tools list that cannot be used: unreadable, malformed, or a schema that does not compile."""


@dataclass(frozen=True)
class Tool:
    name: str
    parameters: Any  # the argument schema (a JSON Schema object, or a boolean schema)
    description: str = ""
    strict: bool = False
    pointer: str = ""  # where in the tools file (JSON Pointer)

    def to_openai(self) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.name}
        if self.description:
            function["description"] = self.description
        function["parameters"] = self.parameters
        if self.strict:
            function["strict"] = True
        return {"type": "function", "function": function}


@dataclass(frozen=True)
class ToolSet:
    tools: tuple[Tool, ...]
    source: str = ""  # the file it came from (for messages)
    by_name: dict[str, Tool] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_name.update({t.name: t for t in self.tools})

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def get(self, name: str) -> Tool:
        tool = self.by_name.get(name)
        if tool is None:
            raise ToolsError(
                f"no tool named {name!r}",
                where=self.source or "tools",
                hint=f"name one of: {', '.join(self.names)}",
            )
        return tool

    def to_openai(self) -> list[dict[str, Any]]:
        return [t.to_openai() for t in self.tools]


def load_tools(path: str | Path) -> ToolSet:
    """Read a tools file (JSON). Raises :class:`ToolsError` with the file and what to fix."""
    where = str(path)
    try:
        text = read_limited(path, "tools file").decode("utf-8-sig")
    except FileNotFoundError:
        raise ToolsError(
            "no such file", where=where, hint="give a JSON file with OpenAI's tools list"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolsError(f"cannot read: {exc}", where=where) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolsError(
            f"not JSON: {exc.msg}", where=f"{where}:{exc.lineno}:{exc.colno}", hint="fix the JSON syntax"
        ) from None
    return parse_tools(data, where)


def parse_tools(data: Any, source: str = "tools") -> ToolSet:
    """A tools list (or a body holding one) as data → :class:`ToolSet`."""
    base = ""
    if isinstance(data, dict) and "tools" in data:
        data, base = data["tools"], "/tools"
    if not isinstance(data, list) or not data:
        raise ToolsError(
            "expected a non-empty list of tools",
            where=f"{source}, {base or '/'}",
            hint='write [{"type": "function", "function": {"name": ..., "parameters": {...}}}]',
        )
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for i, item in enumerate(data):
        pointer = f"{base}/{i}"
        tool = _tool(item, pointer, source)
        if tool.name in seen:
            raise ToolsError(
                f"tool name {tool.name!r} is used twice ({seen[tool.name]} and {pointer})",
                where=source,
                hint="give every tool its own name",
            )
        seen[tool.name] = pointer
        tools.append(tool)
    return ToolSet(tuple(tools), source)


def _tool(item: Any, pointer: str, source: str) -> Tool:
    def fail(message: str, at: str = "", hint: str = "") -> ToolsError:
        return ToolsError(message, where=f"{source}, {pointer}{at}", hint=hint)

    if not isinstance(item, dict):
        raise fail("a tool must be an object", hint='write {"type": "function", "function": {...}}')
    function, at = item, ""
    if item.get("type", "function") != "function":
        raise fail(f"tool type {item.get('type')!r} is not supported", "/type", 'use "function"')
    if "function" in item:
        function, at = item["function"], "/function"
        if not isinstance(function, dict):
            raise fail("function must be an object", at)
    name = function.get("name")
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise fail(
            f"bad tool name {name!r}",
            f"{at}/name",
            "a name is 1-64 characters of a-z, A-Z, 0-9, _ and -",
        )
    parameters = function.get("parameters", EMPTY_PARAMETERS)
    if not isinstance(parameters, dict | bool):
        raise fail("parameters must be a JSON Schema object", f"{at}/parameters")
    strict = function.get("strict", False)
    if not isinstance(strict, bool):
        raise fail("strict must be true or false", f"{at}/strict")
    description = function.get("description", "")
    if not isinstance(description, str):
        raise fail("description must be a string", f"{at}/description")
    return Tool(name, parameters, description, strict, f"{pointer}{at}")
