"""Free text that never contains a given word: the text beside a tool call or inside a reasoning
section, built as an expression of the IR without recursion.

A model writing free text before a tool call must not be able to write the call's trigger
(``<tool_call>``) by accident and go on in prose: the trigger is what starts the constrained
part. The language "any text without ``w``" is regular; its automaton (the word's prefix matched
so far) becomes a star of cycles here. That is exact when the word's first character occurs only
at its start (``<tool_call>``, ``</think>``, ``[TOOL_CALLS]``): on a mismatch the automaton then
falls back to "nothing matched", or to "first character matched" when the mismatching character
is the first character again. A word without that property is refused (:class:`ValueError`);
every trigger and marker gramwright writes has it.
"""

from __future__ import annotations

from gramwright.grammar.ir import Expr, alt, char_class, literal, repeat, seq

__all__ = ["self_synchronizing", "text_without"]


def self_synchronizing(word: str) -> bool:
    """The word's first character occurs nowhere else in it (and it has at least two)."""
    return len(word) >= 2 and word[0] not in word[1:]


def _not(*chars: str) -> Expr:
    """One character other than ``chars``."""
    return char_class([(ord(c), ord(c)) for c in chars], negated=True)


def text_without(word: str) -> Expr:
    """Any text (possibly empty) in which ``word`` does not occur.

    With the automaton's states 0 (nothing of ``word`` matched) and k (``word[:k]`` matched): a
    cycle from state 0 back to 0 is one character other than ``word[0]``, or ``word[0]``, then
    any number of returns to state 1 (``word[1:j] + word[0]``), then a way out
    (``word[1:j]`` and a character that is neither ``word[j]`` nor ``word[0]``). The text ends
    in state 0, or in a state k < len(word)."""
    if not self_synchronizing(word):
        raise ValueError(f"{word!r}: its first character must occur only at its start")
    first, n = word[0], len(word)
    back_to_one = alt(*(literal(word[1:j] + first) for j in range(1, n)))
    way_out = alt(*(seq(literal(word[1:j]), _not(word[j], first)) for j in range(1, n)))
    cycle = alt(_not(first), seq(literal(first), repeat(back_to_one, 0, None), way_out))
    partial = alt(literal(""), seq(literal(first), repeat(back_to_one, 0, None), _prefixes(word)))
    return seq(repeat(cycle, 0, None), partial)


def _prefixes(word: str) -> Expr:
    """``word[1:j]`` for j in 1 … len-1: where the text may stop inside a partial match."""
    return alt(*(literal(word[1:j]) for j in range(1, len(word))))
