"""The embedded model with three tools and tool_choice auto: plain text or well-formed calls,
never a malformed call; with a reasoning section the reasoning stays apart from the calls."""

from __future__ import annotations

import pytest

from gramwright.generation import Generator, SamplingOptions
from gramwright.reasoning import Reasoning
from gramwright.tools import parse_tools, prepare_tools
from gramwright.tools.generate import generate_tool_calls

pytestmark = pytest.mark.model

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }
    for name, description, properties in [
        ("get_weather", "Current weather in a city", {"city": {"type": "string", "maxLength": 30}}),
        (
            "get_time",
            "Current time in a time zone",
            {"timezone": {"enum": ["UTC", "Europe/Paris", "Asia/Tokyo"]}},
        ),
        ("add", "Add two numbers", {"a": {"type": "number"}, "b": {"type": "number"}}),
    ]
]


@pytest.fixture(scope="module")
def generator() -> Generator:
    return Generator()


@pytest.mark.parametrize("prompt", ["What is the weather in Paris?", "Say hello.", "What is 2 plus 3?"])
def test_auto_gives_text_or_well_formed_calls(generator: Generator, prompt: str) -> None:
    session = prepare_tools(parse_tools(TOOLS), choice="auto")
    result = generate_tool_calls(
        session, prompt, generator=generator, sampling=SamplingOptions(max_tokens=40)
    )
    out = result.output
    assert out.well_formed, (result.generation.text, out.errors)
    assert out.content or out.tool_calls
    for call in out.tool_calls:
        assert call.name in {"get_weather", "get_time", "add"} and call.valid
    assert result.generation.tokens <= 40


def test_required_with_reasoning_calls_after_a_bounded_section(generator: Generator) -> None:
    session = prepare_tools(parse_tools(TOOLS), choice="required", parallel=1)
    result = generate_tool_calls(
        session,
        "What time is it in Tokyo?",
        generator=generator,
        sampling=SamplingOptions(max_tokens=90),
        reasoning=Reasoning(24),
    )
    out = result.output
    assert out.valid and len(out.tool_calls) == 1
    assert out.reasoning is not None and "<think>" not in result.generation.text
    assert result.generation.reasoning_tokens is not None and result.generation.reasoning_tokens <= 24
    assert out.message()["reasoning_content"] == out.reasoning
