"""How tool calls are written in a model's output: the chat template's format where the model
has one, otherwise gramwright's documented unified format (docs/tools.md).

A format is the text around each call and between calls; the call itself is always the JSON
object ``{"name": NAME, "arguments": ARGS}`` (the shape Hermes, Qwen and Mistral templates
share), written with one space after each ``:`` and ``,`` as those templates show it. The
*trigger* is the text every calls block starts with: free text never contains it (see
:mod:`gramwright.grammar.freetext`), so the first trigger in an output is where the calls begin.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from gramwright.grammar.freetext import self_synchronizing

__all__ = ["FORMATS", "ToolFormat", "detect_format", "prompt_block"]


@dataclass(frozen=True)
class ToolFormat:
    name: str
    trigger: str  # every calls block starts with it; never inside free text
    prefix: str  # before the first call (starts with ``trigger``, or empty when call_open does)
    call_open: str
    call_close: str
    separator: str
    suffix: str
    description: str = ""

    def __post_init__(self) -> None:
        start = self.prefix or self.call_open
        if not start.startswith(self.trigger) or not self_synchronizing(self.trigger):
            raise ValueError(f"format {self.name}: the trigger must start every calls block")

    def call_text(self, name: str, arguments: str) -> str:
        """One call as this format writes it (``arguments``: compact JSON text)."""
        return f'{self.call_open}{{"name": {json.dumps(name)}, "arguments": {arguments}}}{self.call_close}'

    def calls_text(self, calls: list[tuple[str, str]]) -> str:
        body = self.separator.join(self.call_text(n, a) for n, a in calls)
        return f"{self.prefix}{body}{self.suffix}"


HERMES = ToolFormat(
    "hermes",
    trigger="<tool_call>",
    prefix="",
    call_open="<tool_call>\n",
    call_close="\n</tool_call>",
    separator="\n",
    suffix="",
    description="Hermes / Qwen chat templates: each call in <tool_call>…</tool_call>",
)
# The unified format is Hermes's text, so any Hermes tool parser (vLLM's ``hermes``, SGLang's
# ``qwen25``) reads what a model without a tool template wrote under it.
UNIFIED = replace(
    HERMES,
    name="unified",
    description="gramwright's unified format (Hermes's text) for models without a tool template",
)
MISTRAL = ToolFormat(
    "mistral",
    trigger="[TOOL_CALLS]",
    prefix="[TOOL_CALLS][",
    call_open="",
    call_close="",
    separator=", ",
    suffix="]",
    description="Mistral chat templates: [TOOL_CALLS] then a JSON array of calls",
)
FORMATS: dict[str, ToolFormat] = {f.name: f for f in (UNIFIED, HERMES, MISTRAL)}


def detect_format(chat_template: str | None) -> ToolFormat:
    """The format a chat template writes tool calls in; the unified one when it shows none."""
    text = chat_template or ""
    if "[TOOL_CALLS]" in text:
        return MISTRAL
    if "<tool_call>" in text:
        return HERMES
    return UNIFIED


def prompt_block(tools: list[dict[str, Any]], fmt: ToolFormat, choice: str = "auto") -> str:
    """The system-prompt text that shows the model the tools and how to call them (for a model
    whose chat template does not take ``tools`` itself: SmolLM2's does not)."""
    example = fmt.calls_text([("TOOL_NAME", '{"ARGUMENT": "VALUE"}')])
    lines = [
        "You can call these tools (OpenAI function definitions):",
        json.dumps(tools, ensure_ascii=False),
        "To call a tool, write exactly:",
        example,
    ]
    if choice == "auto":
        lines.append("Otherwise answer in plain text.")
    elif choice == "required":
        lines.append("Answer with tool calls only.")
    elif choice != "none":
        lines.append(f"Call the tool {choice}.")
    return "\n".join(lines)
