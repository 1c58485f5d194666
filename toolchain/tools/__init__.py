"""Tool calling constrained all the way: OpenAI's tools list → one grammar in the IR (free
text, or calls whose name is a closed choice and whose arguments follow only that tool's
schema) → parsed and validated calls in OpenAI's ``tool_calls`` shape.

* :func:`load_tools` / :func:`parse_tools` → :class:`ToolSet`
* :func:`compile_tools` → one :class:`CompiledTool` per tool (namespaced rules; fail closed)
* :func:`build_tool_grammar` → :class:`ToolGrammar` for a ``tool_choice`` and ``parallel``
* :func:`parse_tool_output` → :class:`ToolOutput`
* :func:`prepare_tools` does the three for a tools file at once → :class:`ToolSession`
"""

from __future__ import annotations

from dataclasses import dataclass

from gramwright.tools.compile import CompiledTool, compile_tools
from gramwright.tools.formats import FORMATS, ToolFormat, detect_format, prompt_block
from gramwright.tools.grammar import CHOICES, ToolGrammar, build_tool_grammar
from gramwright.tools.parse import ToolCall, ToolOutput, parse_tool_output
from gramwright.tools.spec import Tool, ToolsError, ToolSet, load_tools, parse_tools

__all__ = [
    "CHOICES",
    "FORMATS",
    "CompiledTool",
    "Tool",
    "ToolCall",
    "ToolFormat",
    "ToolGrammar",
    "ToolOutput",
    "ToolSession",
    "ToolSet",
    "ToolsError",
    "build_tool_grammar",
    "compile_tools",
    "detect_format",
    "load_tools",
    "parse_tool_output",
    "parse_tools",
    "prepare_tools",
    "prompt_block",
]


@dataclass(frozen=True)
class ToolSession:
    """A tools list compiled for one ``tool_choice`` and ``parallel``: its grammar, how to show
    it to the model, and how to read the answer back."""

    toolset: ToolSet
    compiled: tuple[CompiledTool, ...]
    grammar: ToolGrammar

    @property
    def format(self) -> ToolFormat:
        return self.grammar.format

    def prompt(self) -> str:
        return prompt_block(self.toolset.to_openai(), self.format, self.grammar.choice)

    def parse(self, text: str) -> ToolOutput:
        return parse_tool_output(text, list(self.compiled), self.format)


def prepare_tools(
    tools: str | ToolSet,
    *,
    choice: str = "auto",
    parallel: int | None = None,
    fmt: ToolFormat | str | None = None,
) -> ToolSession:
    """Load (a path), compile (fail closed) and build the grammar; ``fmt``: a format or its name
    (default: the unified format)."""
    toolset = load_tools(tools) if isinstance(tools, str) else tools
    if isinstance(fmt, str):
        if fmt not in FORMATS:
            raise ToolsError(f"unknown tool format {fmt!r}", hint=f"formats: {', '.join(FORMATS)}")
        fmt = FORMATS[fmt]
    compiled = compile_tools(toolset)
    grammar = build_tool_grammar(compiled, fmt or FORMATS["unified"], choice, parallel, toolset.source)
    return ToolSession(toolset, tuple(compiled), grammar)
