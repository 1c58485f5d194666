"""A tool-calling turn with a local model: the tools shown in the system prompt, the output
constrained by the tool grammar (optionally after a bounded reasoning section), then parsed into
OpenAI's ``tool_calls`` and validated call by call.

The format is the model's chat template's where it writes tool calls (Hermes/Qwen, Mistral),
else the unified format; either way the tools and the call syntax are described in the system
prompt (:func:`~gramwright.tools.formats.prompt_block`) — SmolLM2's template takes no tools.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gramwright.generation import Generation, Generator, SamplingOptions
from gramwright.sources import CompiledSource
from gramwright.tools.formats import detect_format
from gramwright.tools.grammar import build_tool_grammar
from gramwright.tools.parse import ToolOutput

if TYPE_CHECKING:
    from gramwright.decode.generate import StepTrace
    from gramwright.reasoning import Reasoning
    from gramwright.tools import ToolSession

__all__ = ["ToolGeneration", "generate_tool_calls"]


@dataclass
class ToolGeneration:
    output: ToolOutput
    generation: Generation

    def to_dict(self) -> dict[str, Any]:
        gen = self.generation
        out = {
            **self.output.to_dict(),
            "text": gen.text,
            "tokens": gen.tokens,
            "model": gen.model,
            "metrics": gen.metrics,
        }
        if gen.reasoning is not None:
            out["reasoning_tokens"] = gen.reasoning_tokens
            out["reasoning_closed_by_budget"] = gen.reasoning_closed_by_budget
        return out


def _quiet(_message: str) -> None:
    return None


def for_model(session: ToolSession, chat_template: str | None) -> ToolSession:
    """``session`` in the format the model's chat template writes tool calls in."""
    fmt = detect_format(chat_template)
    if fmt == session.format:
        return session
    grammar = build_tool_grammar(
        list(session.compiled), fmt, session.grammar.choice, session.grammar.parallel, session.toolset.source
    )
    return dataclasses.replace(session, grammar=grammar)


def generate_tool_calls(
    session: ToolSession,
    prompt: str,
    *,
    generator: Generator | None = None,
    model: str | None = None,
    sampling: SamplingOptions | None = None,
    reasoning: Reasoning | None = None,
    on_token: Callable[[StepTrace], None] | None = None,
    progress: Callable[[str], None] = _quiet,
) -> ToolGeneration:
    """One turn: free text and/or calls as ``session``'s ``tool_choice`` allows."""
    generator = generator or Generator(model)
    lm = generator.load_model(progress)
    session = for_model(session, getattr(lm.tokenizer, "chat_template", None))
    source = CompiledSource(session.grammar.grammar, "gbnf", f"tools:{session.toolset.source}", 0.0)
    gen = generator.run(
        source,
        prompt,
        sampling=sampling,
        system=session.prompt(),
        on_token=on_token,
        progress=progress,
        reasoning=reasoning,
    )
    output = session.parse(gen.text)
    output.reasoning = gen.reasoning
    return ToolGeneration(output, gen)
