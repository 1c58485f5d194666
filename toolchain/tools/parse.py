"""A tool-calling turn's text → :class:`ToolOutput`: the free text, and each call in OpenAI's
``tool_calls`` shape (``function.arguments`` a JSON string), validated against exactly its own
tool's schema.

Parsing follows the format (:mod:`gramwright.tools.formats`): the first trigger is where the
calls block begins (free text never contains it), then calls are read one JSON object at a time
between the format's delimiters. Text written under the tool grammar always parses; text from
elsewhere (a hosted model, a log) may not, and then :attr:`ToolOutput.errors` says where.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from gramwright.tools.compile import CompiledTool
from gramwright.tools.formats import ToolFormat
from gramwright.validate import ValidationIssue, parse_document

__all__ = ["ToolCall", "ToolOutput", "parse_tool_output"]


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # the arguments as JSON text, as written
    value: Any = None  # parsed (exact decimals)
    parsed: bool = False  # names an offered tool, and the arguments are JSON
    issues: list[ValidationIssue] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.issues

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.to_openai(), "valid": self.valid, "errors": [str(i) for i in self.issues]}


@dataclass
class ToolOutput:
    content: str | None  # the free text (None when the turn is calls only)
    tool_calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the calls block itself is malformed
    reasoning: str | None = None  # the reasoning section's text, apart from the answer

    @property
    def well_formed(self) -> bool:
        """The calls block parsed and every call names a tool with arguments that are JSON."""
        return not self.errors and all(c.parsed for c in self.tool_calls)

    @property
    def valid(self) -> bool:
        return self.well_formed and all(c.valid for c in self.tool_calls)

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"

    def message(self) -> dict[str, Any]:
        """The assistant message, as OpenAI's Chat Completions API returns it."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_openai() for c in self.tool_calls]
        if self.reasoning is not None:
            out["reasoning_content"] = self.reasoning
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message(),
            "finish_reason": self.finish_reason,
            "well_formed": self.well_formed,
            "valid": self.valid,
            "errors": list(self.errors),
            "calls": [c.to_dict() for c in self.tool_calls],
        }


def _call_id(index: int, name: str, arguments: str) -> str:
    digest = hashlib.sha256(f"{index}\0{name}\0{arguments}".encode()).hexdigest()
    return f"call_{digest[:24]}"


def parse_tool_output(text: str, tools: list[CompiledTool], fmt: ToolFormat) -> ToolOutput:
    """Split ``text`` into free text and calls; validate each call against its own tool."""
    at = text.find(fmt.trigger)
    if at < 0:
        return ToolOutput(text)
    content = text[:at] or None
    out = ToolOutput(content)
    by_name = {t.name: t for t in tools}
    pos = at
    decoder = json.JSONDecoder()

    def expect(token: str, what: str) -> bool:
        nonlocal pos
        if text.startswith(token, pos):
            pos += len(token)
            return True
        out.errors.append(f"offset {pos}: expected {what} {token!r}, found {text[pos : pos + 20]!r}")
        return False

    if not expect(fmt.prefix, "the calls block's start"):
        return out
    while True:
        if not expect(fmt.call_open, "a call's start"):
            return out
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            out.errors.append(f"offset {exc.pos}: the call is not JSON: {exc.msg}")
            return out
        start, pos = pos, end
        if not isinstance(obj, dict) or set(obj) != {"name", "arguments"} or not isinstance(obj["name"], str):
            out.errors.append(f'offset {start}: a call is {{"name": ..., "arguments": ...}}')
            return out
        name = obj["name"]
        head = '{"name": ' + json.dumps(name) + ', "arguments": '
        raw = text[start:end]
        arguments = raw[len(head) : -1] if raw.startswith(head) else json.dumps(obj["arguments"])
        out.tool_calls.append(_checked(len(out.tool_calls), name, arguments, by_name))
        if not expect(fmt.call_close, "a call's end"):
            return out
        if fmt.separator and text.startswith(fmt.separator + fmt.call_open, pos):
            pos += len(fmt.separator)
            continue
        break
    if not expect(fmt.suffix, "the calls block's end"):
        return out
    if text[pos:].strip():
        out.errors.append(f"offset {pos}: text after the calls: {text[pos : pos + 20]!r}")
    return out


def _checked(index: int, name: str, arguments: str, by_name: dict[str, CompiledTool]) -> ToolCall:
    call = ToolCall(_call_id(index, name, arguments), name, arguments)
    tool = by_name.get(name)
    if tool is None:
        call.issues.append(ValidationIssue("", "name", f"no tool named {name!r} was offered"))
        return call
    try:
        call.value = parse_document(arguments)
    except ValueError as exc:
        call.issues.append(ValidationIssue("", "json", f"arguments are not JSON: {exc}"))
        return call
    call.parsed = True
    call.issues.extend(tool.validate(call.value))
    return call
