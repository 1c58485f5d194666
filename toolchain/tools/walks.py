"""Random constrained walks over a tool grammar, and the checks every walk must pass.

A walk draws tokens uniformly from each mask under a token budget (the closing zone ends every
walk accepted). Uniform draws almost never spell a trigger by chance, so in ``auto`` a walk is
*steered* at a random step: from then on it draws the tokens that spell the trigger, then
uniform again — the walk still only takes tokens the mask allows. :func:`walk_problems` is the
contract: every call names an offered tool, its arguments validate against exactly that tool's
schema, no more calls than ``parallel``, a named ``tool_choice`` calls only that tool, ``none``
never calls, and the block always parses.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gramwright.engine.matcher import GrammarEngine, Matcher
from gramwright.engine.walks import uniform_token
from gramwright.tools.grammar import ToolGrammar
from gramwright.tools.parse import ToolOutput, parse_tool_output

__all__ = ["ToolWalk", "tool_walk", "walk_problems"]


@dataclass
class ToolWalk:
    text: str
    tokens: int
    accepting: bool
    output: ToolOutput
    closed_by_budget: bool


def _steered(matcher: Matcher, ids: list[int], rest: bytes) -> int | None:
    """The allowed token that spells the longest head of ``rest`` (None: none does)."""
    best: tuple[int, int] | None = None
    table = matcher.engine.vocab.token_bytes
    for token in ids:
        data = table[token] if token < len(table) else b""
        if data and rest.startswith(data) and (best is None or len(data) > best[0]):
            best = (len(data), token)
    return None if best is None else best[1]


def tool_walk(
    engine: GrammarEngine,
    tools: ToolGrammar,
    rng: random.Random,
    budget: int,
    *,
    steer: float = 0.7,
) -> ToolWalk:
    """One walk of at most ``budget`` tokens (EOS counted) under ``engine`` (built from
    ``tools.grammar``). With probability ``steer`` (``auto`` only) the walk spells the trigger
    after a random number of free-text tokens."""
    matcher = engine.matcher(budget)
    eos = engine.vocab.eos_ids
    steer_at = rng.randrange(0, 12) if tools.choice == "auto" and rng.random() < steer else -1
    rest = b""
    while not matcher.is_terminated() and matcher.consumed < budget:
        token: int | None = None
        if matcher.consumed == steer_at:
            rest = tools.format.trigger.encode()
        if rest:
            ids = matcher.allowed_token_ids()
            token = _steered(matcher, [int(i) for i in ids], rest)
            # none: the budget no longer leaves room for a call
            rest = b"" if token is None else rest[len(engine.vocab.token_bytes[token]) :]
        if token is None:
            token = uniform_token(matcher, rng)
        matcher.consume(token)
        if token in eos:
            break
    text = matcher.output.decode("utf-8")
    output = parse_tool_output(text, list(tools.tools), tools.format)
    return ToolWalk(text, matcher.consumed, matcher.is_accepting(), output, matcher.closed_by_budget)


def walk_problems(walk: ToolWalk, tools: ToolGrammar) -> list[str]:
    """What the walk broke (empty: nothing)."""
    problems: list[str] = []
    if not walk.accepting:
        problems.append("ended outside the grammar")
    out = walk.output
    if out.errors:
        problems.append(f"malformed calls block: {out.errors[0]}")
    offered = {t.name for t in tools.tools}
    if tools.choice == "none" and out.tool_calls:
        problems.append("tool_choice none, yet a call")
    if tools.choice not in ("auto", "none") and not out.tool_calls:
        problems.append(f"tool_choice {tools.choice}, yet no call")
    if tools.parallel is not None and len(out.tool_calls) > tools.parallel:
        problems.append(f"{len(out.tool_calls)} calls, parallel {tools.parallel}")
    if not tools.free_text and out.content:
        problems.append(f"free text under tool_choice {tools.choice}")
    for call in out.tool_calls:
        if call.name not in offered:
            problems.append(f"call to {call.name!r}, not offered")
        elif not call.parsed:
            problems.append(f"{call.name}: arguments are not JSON")
        elif call.issues:
            problems.append(f"{call.name}: {call.issues[0]}")
    return problems
