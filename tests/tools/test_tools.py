"""Tools lists → namespaced grammars → parsed, validated calls (spec, compile, grammar, parse)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.grammar.gbnf import emit_gbnf
from gramwright.grammar.ir import Grammar
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.tools import (
    FORMATS,
    ToolsError,
    detect_format,
    load_tools,
    parse_tools,
    prepare_tools,
)

TRAVEL = Path(__file__).resolve().parents[1] / "fixtures" / "tools" / "travel.json"


def _tool(name: str, parameters: object, **extra: object) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "parameters": parameters, **extra}}


def _accepts(grammar: Grammar, text: str) -> bool:
    rec = Recognizer(compile_grammar(grammar))
    return rec.try_feed(text.encode()) and rec.is_accepting()


def test_the_travel_tools_load_and_compile_exactly() -> None:
    session = prepare_tools(str(TRAVEL))
    assert len(session.compiled) == 11
    assert all(not tool.inexact() for tool in session.compiled)
    # a tool without parameters takes the empty object, as OpenAI reads it
    assert session.toolset.get("list_tools_used").parameters == {"type": "object", "properties": {}}


def test_each_tools_defs_are_namespaced() -> None:
    # book_hotel and send_parcel both define $defs/address, differently: neither sees the other's
    session = prepare_tools(str(TRAVEL), choice="required")
    hotel = next(t for t in session.compiled if t.name == "book_hotel")
    parcel = next(t for t in session.compiled if t.name == "send_parcel")
    assert not set(hotel.rules) & set(parcel.rules)
    g = session.grammar.grammar
    head = '<tool_call>\n{"name": "book_hotel", "arguments": '
    hotel_call = head + '{"address":{"city":"Oslo","country":"NO"},"nights":2}}\n</tool_call>'
    parcel_address = head + '{"address":{"line1":"x","postcode":"12345"},"nights":2}}\n</tool_call>'
    assert _accepts(g, hotel_call)
    assert not _accepts(g, parcel_address)


def test_names_are_a_closed_choice_then_only_that_tools_arguments() -> None:
    tools = parse_tools(
        [
            _tool("get", {"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]}),
            _tool("get_all", {"type": "object", "properties": {"p": {"type": "boolean"}}, "required": ["p"]}),
        ]
    )
    g = prepare_tools(tools, choice="required").grammar.grammar
    assert _accepts(g, '<tool_call>\n{"name": "get", "arguments": {"q":1}}\n</tool_call>')
    assert _accepts(g, '<tool_call>\n{"name": "get_all", "arguments": {"p":true}}\n</tool_call>')
    assert not _accepts(g, '<tool_call>\n{"name": "get", "arguments": {"p":true}}\n</tool_call>')
    assert not _accepts(g, '<tool_call>\n{"name": "get_al", "arguments": {"p":true}}\n</tool_call>')
    assert not _accepts(g, '<tool_call>\n{"name": "other", "arguments": {}}\n</tool_call>')


@pytest.mark.parametrize(
    ("choice", "parallel", "text", "accepted"),
    [
        ("auto", None, "just text", True),
        ("auto", None, "", True),
        (
            "auto",
            None,
            'see <tool_call>\n{"name": "get_time", "arguments": {"timezone":"UTC"}}\n</tool_call>',
            True,
        ),
        ("auto", None, "text with <tool_call> inside but no call", False),
        ("auto", None, "a <tool_ca but not quite <<tool", True),
        ("none", None, "plain text", True),
        (
            "none",
            None,
            '<tool_call>\n{"name": "get_time", "arguments": {"timezone":"UTC"}}\n</tool_call>',
            False,
        ),
        ("required", None, "just text", False),
        (
            "get_time",
            1,
            '<tool_call>\n{"name": "get_time", "arguments": {"timezone":"UTC"}}\n</tool_call>',
            True,
        ),
        ("get_time", 1, '<tool_call>\n{"name": "list_tools_used", "arguments": {}}\n</tool_call>', False),
    ],
)
def test_tool_choice(choice: str, parallel: int | None, text: str, accepted: bool) -> None:
    g = prepare_tools(str(TRAVEL), choice=choice, parallel=parallel).grammar.grammar
    assert _accepts(g, text) is accepted


def test_parallel_bounds_the_calls_in_the_grammar() -> None:
    call = '<tool_call>\n{"name": "get_time", "arguments": {"timezone":"UTC"}}\n</tool_call>'
    two = call + "\n" + call
    assert _accepts(prepare_tools(str(TRAVEL), choice="required", parallel=2).grammar.grammar, two)
    assert not _accepts(prepare_tools(str(TRAVEL), choice="required", parallel=1).grammar.grammar, two)
    assert _accepts(prepare_tools(str(TRAVEL), choice="required").grammar.grammar, "\n".join([call] * 5))


def test_parse_gives_openai_tool_calls_validated_against_their_own_tool() -> None:
    session = prepare_tools(str(TRAVEL))
    text = (
        "Let me check. "
        '<tool_call>\n{"name": "get_time", "arguments": {"timezone":"UTC"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city":"Oslo","unit":"kelvin"}}\n</tool_call>'
    )
    out = session.parse(text)
    assert out.content == "Let me check. "
    assert out.well_formed and not out.valid
    first, second = out.tool_calls
    assert first.to_openai()["function"] == {"name": "get_time", "arguments": '{"timezone":"UTC"}'}
    assert first.to_openai()["type"] == "function" and first.id.startswith("call_")
    assert json.loads(first.arguments) == {"timezone": "UTC"}
    assert first.valid
    assert not second.valid and "kelvin" in str(second.issues[0])
    assert out.finish_reason == "tool_calls"
    assert out.message()["tool_calls"][1]["function"]["name"] == "get_weather"


def test_parse_reports_a_malformed_block() -> None:
    session = prepare_tools(str(TRAVEL))
    out = session.parse('<tool_call>\n{"name": "get_time", "arguments": {"timezone": }\n</tool_call>')
    assert not out.well_formed and "not JSON" in out.errors[0]
    out = session.parse('<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>')
    assert not out.well_formed and "no tool named" in str(out.tool_calls[0].issues[0])


def test_the_mistral_format_round_trips() -> None:
    session = prepare_tools(str(TRAVEL), choice="required", fmt="mistral")
    text = (
        '[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone":"UTC"}}, '
        '{"name": "list_tools_used", "arguments": {}}]'
    )
    assert _accepts(session.grammar.grammar, text)
    out = session.parse(text)
    assert out.valid and [c.name for c in out.tool_calls] == ["get_time", "list_tools_used"]


def test_formats_are_detected_from_the_chat_template() -> None:
    assert detect_format("{% for tool in tools %}<tool_call>{{ tool }}</tool_call>") is FORMATS["hermes"]
    assert detect_format("[TOOL_CALLS] {{ calls }}") is FORMATS["mistral"]
    assert detect_format("<|im_start|>{{ message }}") is FORMATS["unified"]
    assert detect_format(None) is FORMATS["unified"]


def test_a_schema_that_does_not_compile_fails_closed_naming_the_tool() -> None:
    tools = parse_tools(
        [_tool("ok", {"type": "object"}), _tool("bad", {"type": "integer", "minimum": 5, "maximum": 1})]
    )
    with pytest.raises(ToolsError) as err:
        prepare_tools(tools)
    assert "'bad'" in err.value.message and "/1/function/parameters" in err.value.where


def test_strict_is_honoured() -> None:
    loose = {"type": "object", "properties": {"a": {"type": "string"}}}
    with pytest.raises(ToolsError) as err:
        prepare_tools(parse_tools([_tool("s", loose, strict=True)]))
    assert "strict" in err.value.message and "additionalProperties" in err.value.message
    missing = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    with pytest.raises(ToolsError, match="not in required: a"):
        prepare_tools(parse_tools([_tool("s", missing, strict=True)]))
    prepare_tools(parse_tools([_tool("s", loose)]))  # not strict: fine


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "non-empty list"),
        ([{"type": "function", "function": {"name": "has space"}}], "bad tool name"),
        ([{"type": "retrieval"}], "not supported"),
        ([_tool("a", {}), _tool("a", {})], "used twice"),
        ([_tool("a", [])], "parameters must be"),
    ],
)
def test_bad_tools_lists_say_where(data: object, message: str) -> None:
    with pytest.raises(ToolsError, match=message):
        parse_tools(data, "t.json")


def test_a_request_body_with_tools_is_read(tmp_path: Path) -> None:
    body = {"model": "x", "tools": [_tool("a", {"type": "object"})]}
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body))
    assert load_tools(path).names == ["a"]
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(ToolsError, match="not JSON") as err:
        load_tools(bad)
    assert err.value.where.startswith(str(bad))


def test_an_unknown_tool_choice_is_an_error() -> None:
    with pytest.raises(ToolsError, match="neither auto"):
        prepare_tools(str(TRAVEL), choice="fly")
    with pytest.raises(ToolsError, match="at least one"):
        prepare_tools(str(TRAVEL), parallel=0)


def test_the_free_text_grammar_is_plain_gbnf() -> None:
    text = emit_gbnf(prepare_tools(str(TRAVEL), choice="none").grammar.grammar)
    assert text.startswith("root ::= free-text")
    assert "tool-call" not in text


def test_lint_tools_finds_what_hurts_tool_calling() -> None:
    from gramwright.tools.lint import lint_tools

    address_a = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 9}}}
    address_b = {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]+$"}}}
    tools = parse_tools(
        [
            _tool("get", {"type": "object", "properties": {"q": {"type": "string"}}}, strict=False),
            _tool("get_all", {"type": "object", "$defs": {"address": address_a}}),
            _tool("ship", {"type": "object", "$defs": {"address": address_b}}, strict=True),
        ],
        "t.json",
    )
    found = {(d.rule, d.pointer) for d in lint_tools(tools)}
    assert ("tools/prefix-names", "/0/function/name") in found
    assert ("tools/colliding-defs", "/2/function/parameters/$defs/address") in found
    assert ("tools/unbounded-string", "/0/function/parameters/properties/q") in found
    assert ("tools/unbounded-string", "/2/function/parameters/$defs/address/properties/zip") in found
    assert ("tools/mixed-strict", "") in found
    assert not any(rule == "tools/too-many" for rule, _ in found)
    many = parse_tools([_tool(f"t{i}", {"type": "object"}) for i in range(130)])
    by_profile = {d.severity for d in lint_tools(many, "openai-strict") if d.rule == "tools/too-many"}
    assert by_profile == {"error"}
    assert {d.severity for d in lint_tools(many) if d.rule == "tools/too-many"} == {"warn"}
    # the travel set: get_weather / get_weather_forecast, two $defs/address, strict and not
    travel = {d.rule for d in lint_tools(load_tools(TRAVEL))}
    assert travel == {"tools/prefix-names", "tools/colliding-defs", "tools/mixed-strict"}
