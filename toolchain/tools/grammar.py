"""The grammar of a tool-calling turn, in the project's one IR: free text, tool calls, or both.

Name-first dispatch: a call opens with ``{"name": "`` and the name is a closed choice among the
tools offered; once it is written (its closing quote decides it, so ``get`` and ``get_all`` are
told apart), only that tool's argument grammar follows. Per ``tool_choice``:

* ``none``: free text only — the format's trigger can never be written;
* ``auto``: free text, then optionally a calls block that starts with the trigger;
* ``required``: a calls block only; a tool's name: a calls block calling only that tool.

``parallel`` bounds the calls in a block (1 is OpenAI's ``parallel_tool_calls=false``); None
leaves it open. The calls block alone (:attr:`ToolGrammar.calls`) is what a lazy grammar
(llama.cpp's ``grammar_lazy``) applies from the trigger on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gramwright.grammar.analysis import prepare
from gramwright.grammar.freetext import text_without
from gramwright.grammar.ir import Expr, Grammar, Ref, alt, literal, repeat, seq
from gramwright.tools.compile import CompiledTool
from gramwright.tools.formats import ToolFormat
from gramwright.tools.spec import ToolsError

__all__ = ["CHOICES", "ToolGrammar", "build_tool_grammar", "offered_tools"]

CHOICES = ("auto", "required", "none")


@dataclass(frozen=True)
class ToolGrammar:
    grammar: Grammar  # the whole turn
    calls: Grammar | None  # the calls block alone (root starts with the trigger); None for "none"
    format: ToolFormat
    choice: str
    parallel: int | None
    tools: tuple[CompiledTool, ...]  # the tools the grammar may call

    @property
    def can_call(self) -> bool:
        return self.choice != "none"

    @property
    def free_text(self) -> bool:
        return self.choice in ("auto", "none")


def offered_tools(compiled: list[CompiledTool], choice: str, source: str = "tools") -> list[CompiledTool]:
    """The tools a ``tool_choice`` lets the model call (a name that is no tool is an error)."""
    if choice in CHOICES:
        return [] if choice == "none" else list(compiled)
    chosen = [t for t in compiled if t.name == choice]
    if not chosen:
        names = ", ".join(t.name for t in compiled)
        raise ToolsError(
            f"--tool-choice {choice!r} is neither auto, required, none nor a tool's name",
            where=source,
            hint=f"tools: {names}",
        )
    return chosen


def build_tool_grammar(
    compiled: list[CompiledTool],
    fmt: ToolFormat,
    choice: str = "auto",
    parallel: int | None = None,
    source: str = "tools",
) -> ToolGrammar:
    if parallel is not None and parallel < 1:
        raise ToolsError(f"--parallel {parallel}: at least one call", where=source, hint="give 1 or more")
    tools = offered_tools(compiled, choice, source)
    rules: dict[str, Expr] = {}
    text: Expr = text_without(fmt.trigger)
    calls_root: Grammar | None = None
    if tools:
        # one call: the name is a closed choice, then that tool's arguments only
        by_name = alt(*(seq(literal(json.dumps(t.name) + ', "arguments": '), Ref(t.root)) for t in tools))
        rules["tool-call"] = seq(literal(fmt.call_open + '{"name": '), by_name, literal("}" + fmt.call_close))
        more = repeat(
            seq(literal(fmt.separator), Ref("tool-call")), 0, None if parallel is None else parallel - 1
        )
        rules["tool-calls"] = seq(literal(fmt.prefix), Ref("tool-call"), more, literal(fmt.suffix))
        for tool in tools:
            rules.update(tool.rules)
    if choice == "none":
        root: Expr = Ref("free-text")
    elif choice == "auto":
        root = seq(Ref("free-text"), repeat(Ref("tool-calls"), 0, 1))
    else:
        root = Ref("tool-calls")
    head: dict[str, Expr] = {"root": root}
    if choice in ("auto", "none"):
        head["free-text"] = text
    grammar = prepare(Grammar({**head, **rules}, "root"))
    if tools:
        calls_root = prepare(Grammar({"root": Ref("tool-calls"), **rules}, "root"))
    return ToolGrammar(grammar, calls_root, fmt, choice, parallel, tuple(tools))
