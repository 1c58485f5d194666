"""Tool sets and reasoning sections as the request bodies serving engines read today.

* ``vllm-request`` / ``sglang-request``: a ``structural_tag`` response format in XGrammar's
  current shape (``{"type": "structural_tag", "format": {...}}``, the ``format`` tree of
  ``sequence``, ``tag``, ``or``, ``star``/``repeat``, ``any_text`` and ``grammar`` items), read
  by vLLM (>= 0.12, ``response_format``) and SGLang (``response_format``, XGrammar backend).
  Each tool is a ``tag`` whose ``begin`` holds the call's opening and the tool's name, so the
  name is chosen before any argument; its ``content`` is the tool's arguments as the ``gbnf``
  export (the language gramwright generates, not the server's own reading of the schema).
  Free text is ``any_text`` excluding the trigger; a bounded ``parallel`` is a ``repeat``.
  A reasoning section is a ``tag`` between the markers around ``any_text`` (the closing marker
  excluded) with the token bound as its ``max_tokens`` and as vLLM's ``thinking_token_budget``.
* ``llamacpp-request``: ``grammar`` (the ``gbnf`` export); with ``tool_choice`` ``auto`` it is
  lazy — ``grammar_lazy: true`` and a word trigger (``{"type": 1, "value": "<tool_call>"}``,
  llama-server's ``COMMON_GRAMMAR_TRIGGER_TYPE_WORD``) — and the grammar is the calls block
  alone, applied from the trigger on, as llama.cpp's own tool templates do. With a reasoning
  section the grammar is the whole turn instead (section, free text and calls), not lazy: a
  lazy grammar would leave the section unconstrained.

:func:`turn_grammar` is the language all of these must agree with (the differential in
:mod:`gramwright.serving.structural` checks it by loading every body in its engine).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gramwright.grammar.analysis import prepare
from gramwright.grammar.export.gbnf import emit_gbnf_export
from gramwright.grammar.export.requests import CHECKED_READERS
from gramwright.grammar.ir import Expr, Grammar, Ref, seq
from gramwright.reasoning import Reasoning
from gramwright.tools.compile import rename_rules
from gramwright.tools.grammar import ToolGrammar

__all__ = ["TOOL_TARGETS", "TurnExport", "export_turn", "structural_tag", "turn_grammar"]

TOOL_TARGETS = ("vllm-request", "sglang-request", "llamacpp-request")
WORD_TRIGGER = 1  # llama-server's COMMON_GRAMMAR_TRIGGER_TYPE_WORD


@dataclass(frozen=True)
class TurnExport:
    target: str
    body: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return json.dumps(self.body, ensure_ascii=False, indent=2) + "\n"


def _check(tools: ToolGrammar | None, output: Grammar | None) -> None:
    if (tools is None) == (output is None):
        raise ValueError("give either a tool grammar or an output grammar")


def turn_grammar(
    tools: ToolGrammar | None = None, reasoning: Reasoning | None = None, output: Grammar | None = None
) -> Grammar:
    """The whole turn as one grammar: the reasoning section (if any), then the tool turn or the
    output grammar. The section's token bound is no part of a grammar (the engine keeps it)."""
    _check(tools, output)
    main = tools.grammar if tools is not None else output
    assert main is not None
    if reasoning is None:
        return main
    section = reasoning.grammar()
    rules: dict[str, Expr] = {"root": seq(Ref("reasoning-root"), Ref("answer-root"))}
    rules.update(rename_rules(section.rules, "reasoning"))
    rules.update(rename_rules(main.rules, "answer"))
    return prepare(Grammar(rules, "root"))


def _grammar_item(g: Grammar) -> dict[str, Any]:
    return {"type": "grammar", "grammar": emit_gbnf_export(g), "syntax": "ebnf"}


def _const(text: str) -> list[dict[str, Any]]:
    return [{"type": "const_string", "value": text}] if text else []


def _sequence(items: list[dict[str, Any]]) -> dict[str, Any]:
    return items[0] if len(items) == 1 else {"type": "sequence", "elements": items}


def _calls_format(tools: ToolGrammar) -> dict[str, Any]:
    fmt = tools.format
    tags = [
        {
            "type": "tag",
            "begin": fmt.call_open + '{"name": ' + json.dumps(t.name) + ', "arguments": ',
            "content": _grammar_item(Grammar(t.rules, t.root)),
            "end": "}" + fmt.call_close,
        }
        for t in tools.tools
    ]
    call = tags[0] if len(tags) == 1 else {"type": "or", "elements": tags}
    more: list[dict[str, Any]] = []
    if tools.parallel is None:
        more = [{"type": "star", "content": _sequence([*_const(fmt.separator), call])}]
    elif tools.parallel > 1:
        more = [
            {
                "type": "repeat",
                "min": 0,
                "max": tools.parallel - 1,
                "content": _sequence([*_const(fmt.separator), call]),
            }
        ]
    return _sequence([*_const(fmt.prefix), call, *more, *_const(fmt.suffix)])


def structural_tag(
    tools: ToolGrammar | None = None, reasoning: Reasoning | None = None, output: Grammar | None = None
) -> dict[str, Any]:
    """The ``structural_tag`` response format of the same turn :func:`turn_grammar` describes."""
    _check(tools, output)
    if tools is not None:
        text = {"type": "any_text", "excludes": [tools.format.trigger]}
        if tools.choice == "none":
            answer: dict[str, Any] = text
        elif tools.choice == "auto":
            answer = {
                "type": "sequence",
                "elements": [text, {"type": "optional", "content": _calls_format(tools)}],
            }
        else:
            answer = _calls_format(tools)
    else:
        assert output is not None
        answer = _grammar_item(output)
    if reasoning is not None:
        section = {
            "type": "tag",
            "begin": reasoning.open,
            "content": {
                "type": "any_text",
                "excludes": [reasoning.close],
                "max_tokens": reasoning.max_tokens,
            },
            "end": reasoning.close,
        }
        answer = {"type": "sequence", "elements": [section, answer]}
    return {"type": "structural_tag", "format": answer}


def _notes(tools: ToolGrammar | None, reasoning: Reasoning | None) -> list[str]:
    notes = []
    if tools is not None:
        notes.append(
            f"tool calls in the {tools.format.name} format ({tools.format.description}); "
            "each tool's arguments follow its gbnf export, so the server enforces gramwright's "
            "language (closed objects, compact JSON), not its own reading of the schema"
        )
    if reasoning is not None:
        notes.append(
            f"the reasoning section is at most {reasoning.max_tokens} tokens only where the server "
            "counts them (vLLM: thinking_token_budget with a reasoning parser configured; SGLang: "
            "strict thinking; llama-server: --reasoning-budget); no grammar can count tokens"
        )
    return notes


def export_turn(
    target: str,
    *,
    tools: ToolGrammar | None = None,
    reasoning: Reasoning | None = None,
    output: Grammar | None = None,
    model: str = "MODEL",
) -> TurnExport:
    """The request body of ``target`` for a tool turn (``tools``) or a constrained output
    (``output``), each optionally after a reasoning section."""
    _check(tools, output)
    notes = _notes(tools, reasoning)
    messages = [{"role": "user", "content": "..."}]
    request: dict[str, Any] = {"model": model, "messages": messages}
    if tools is not None and tools.tools:
        request["tools"] = [t.tool.to_openai() for t in tools.tools]
        request["tool_choice"] = _openai_choice(tools.choice)
        if tools.parallel == 1:
            request["parallel_tool_calls"] = False
    if target in ("vllm-request", "sglang-request"):
        tag = structural_tag(tools, reasoning, output)
        body: dict[str, Any] = {
            "target": target,
            "checked_readers": CHECKED_READERS,
            "endpoint": "POST /v1/chat/completions",
            "response_format": tag,
            "example": {**request, "response_format": tag},
        }
        if reasoning is not None and target == "vllm-request":
            body["example"]["thinking_token_budget"] = reasoning.max_tokens
        body["notes"] = [
            *notes,
            "response_format constrains the whole message: start the server without a tool-call "
            "parser's own structural tags (and, with a reasoning section here, without a reasoning "
            "parser that would lift the section out before the format applies)",
        ]
        return TurnExport(target, body, body["notes"])
    if target != "llamacpp-request":
        raise ValueError(f"unknown target {target!r}; targets: {', '.join(TOOL_TARGETS)}")
    # lazy only without a section: a lazy grammar leaves everything before the trigger free,
    # the section included; with one the whole turn is the grammar (free text is GBNF too)
    lazy = tools is not None and tools.choice == "auto" and reasoning is None
    if lazy:
        assert tools is not None and tools.calls is not None
        grammar = emit_gbnf_export(tools.calls)
        extra: dict[str, Any] = {
            "grammar_lazy": True,
            "grammar_triggers": [{"type": WORD_TRIGGER, "value": tools.format.trigger}],
            "preserved_tokens": [tools.format.trigger],
        }
        notes.append("lazy: text is free until the trigger, then the calls block is constrained to its end")
    else:
        grammar = emit_gbnf_export(turn_grammar(tools, reasoning, output))
        extra = {"grammar_lazy": False}
    body = {
        "target": target,
        "checked_readers": CHECKED_READERS,
        "dialect": "gbnf",
        "endpoint": "POST /completion",
        "body": {"prompt": "...", "n_predict": 512, "grammar": grammar, **extra},
        "chat_body": {**request, "grammar": grammar, **extra},
        "notes": notes,
    }
    return TurnExport(target, body, notes)


def _openai_choice(choice: str) -> Any:
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}
