"""A bounded section, then the constrained output: two engines, one matcher.

A reasoning model writes ``<think>…</think>`` before its answer. The section has a grammar of
its own (the markers around text that never contains the closing marker) and a token budget of
its own; the answer has the output grammar and what is left of the request's budget. Each part
is a plain :class:`Matcher` with a budget, so the closing zone (``budget.py``) closes the
section in time exactly as it closes any output: every token of the section leaves room for the
closing marker within the section's budget, and the section's budget leaves room for the
shortest answer. The section ends when its grammar allows nothing more (the closing marker is
written); the answer's matcher starts there.

:class:`SectionedEngine` is a :class:`GrammarEngine` for the decode loop (its metrics, caches
and cache key are the answer engine's); its matchers answer for whichever part is current.
A token never spans the boundary: the section's grammar ends at its closing marker.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gramwright.engine.bitset import IntArray
from gramwright.engine.matcher import GrammarEngine, Matcher
from gramwright.errors import EngineError

__all__ = ["SectionedEngine", "SectionedMatcher"]


class SectionedEngine(GrammarEngine):
    """``section`` (at most ``section_tokens`` tokens) then ``main``. The per-engine state the
    decode loop reads (vocabulary, mask computer, compile time) is the main engine's."""

    def __init__(self, section: GrammarEngine, main: GrammarEngine, section_tokens: int) -> None:
        # not GrammarEngine.__init__: nothing is compiled here, both engines exist already
        self.section = section
        self.main = main
        self.section_tokens = section_tokens
        self.compiled = main.compiled
        self.vocab = main.vocab
        self.masks = main.masks
        self.eos = main.eos
        self._bitmasks = main._bitmasks
        self.stopped_bitmask = main.stopped_bitmask
        self.from_cache = main.from_cache
        self._closing = None
        self.setup_ms = section.setup_ms + main.setup_ms
        shortest = section.shortest_output()
        if shortest is None or shortest - 1 > section_tokens:
            need = "?" if shortest is None else str(shortest - 1)
            raise EngineError(
                f"the section needs {need} tokens at least (its markers, a byte a token by the "
                f"budget's sound bound); its bound is {section_tokens}",
                hint=f"give --reasoning {need} or more",
            )

    def shortest_output(self) -> int | None:
        """The shortest section (its closing marker in place of EOS) and the shortest answer."""
        first, second = self.section.shortest_output(), self.main.shortest_output()
        return None if first is None or second is None else first - 1 + second

    def matcher(self, max_tokens: int | None = None) -> SectionedMatcher:
        return SectionedMatcher(self, max_tokens)

    def forced(self, config: int) -> bytes:
        """Nothing is fast-forwarded in a sectioned run: a configuration number alone does not say
        whether it is the section's or the answer's (the matcher knows, the engine does not), and
        the section is free text, where nothing is forced anyway."""
        return b""


class SectionedMatcher(Matcher):
    """The section's matcher until its closing marker, then the answer's (budget: what is left)."""

    def __init__(self, engine: SectionedEngine, max_tokens: int | None = None) -> None:
        # not Matcher.__init__: the two parts are matchers of their own
        self.engine = engine
        self.sectioned = engine
        self.max_tokens = max_tokens
        if max_tokens is not None:
            engine.check_budget(max_tokens)
        limit = engine.section_tokens
        main_shortest = engine.main.shortest_output()
        if max_tokens is not None and main_shortest is not None:
            limit = min(limit, max_tokens - main_shortest)
        # the section's grammar ends at its closing marker (no EOS there): a budget of
        # ``limit + 1`` lets it use at most ``limit`` tokens (the +1 is the EOS the closing
        # zone counts and that is never written)
        self.section = Matcher(engine.section, limit + 1)
        self.main: Matcher | None = None

    # --- which part is current ---------------------------------------------------------------

    def part(self) -> Matcher:
        """The matcher of the current part (the section's until its closing marker)."""
        if self.main is not None:
            return self.main
        if not self.section.is_terminated():
            return self.section
        left = None if self.max_tokens is None else self.max_tokens - self.section.consumed
        self.main = Matcher(self.sectioned.main, left)
        return self.main

    @property
    def in_section(self) -> bool:
        return self.part() is self.section

    @property
    def section_consumed(self) -> int:
        """Tokens the section took (so far)."""
        return self.section.consumed

    @property
    def section_output(self) -> bytes:
        return self.section.output

    @property
    def main_output(self) -> bytes:
        return b"" if self.main is None else self.main.output

    # --- the Matcher interface, answered by the current part --------------------------------

    @property
    def remaining(self) -> int | None:
        return None if self.max_tokens is None else self.max_tokens - self.consumed

    @property
    def closing_began(self) -> tuple[int, int] | None:
        """Where the budget first narrowed the *answer's* masks (tokens, bytes of the whole
        output); a section closed by its own budget is :attr:`section_closed_by_budget`."""
        if self.main is None or self.main.closing_began is None:
            return None
        tokens, size = self.main.closing_began
        return (tokens + self.section.consumed, size + len(self.section.output))

    @closing_began.setter
    def closing_began(self, value: tuple[int, int] | None) -> None:
        return None  # kept by the parts

    @property
    def closing_steps(self) -> int:
        return self.section.closing_steps + (0 if self.main is None else self.main.closing_steps)

    @closing_steps.setter
    def closing_steps(self, value: int) -> None:
        return None

    @property
    def section_closed_by_budget(self) -> bool:
        return self.section.closed_by_budget

    def mask_state(self, budget: bool = True) -> tuple[int, int]:
        part = self.part()
        config, left = part.mask_state(budget)
        if part is self.section and config >= 0:
            return (-2 - config, left)  # the section's states apart from the answer's
        return (config, left)

    def fits(self, token_id: int) -> bool:
        return self.part().fits(token_id)

    def every_token_fits(self) -> bool:
        return self.part().every_token_fits()

    @property
    def config(self) -> int:
        return self.part().config

    @property
    def consumed(self) -> int:
        return self.section.consumed + (0 if self.main is None else self.main.consumed)

    @property
    def stopped(self) -> bool:
        return self.main is not None and self.main.stopped

    @property
    def output(self) -> bytes:
        return self.section.output + self.main_output

    def is_accepting(self) -> bool:
        part = self.part()
        return part is not self.section and part.is_accepting()

    def is_terminated(self) -> bool:
        part = self.part()
        return part is not self.section and part.is_terminated()

    def allowed_token_ids(self) -> IntArray:
        return self.part().allowed_token_ids()

    def bitmask(self, budget: bool = True) -> npt.NDArray[np.int32]:
        return self.part().bitmask(budget)

    def try_consume(self, token_id: int) -> bool:
        return self.part().try_consume(token_id)

    def rollback(self, n: int) -> None:
        if self.main is not None:
            back = min(n, self.main.consumed)
            self.main.rollback(back)
            n -= back
            if n:
                self.main = None
        if n:
            self.section.rollback(n)

    def forced_bytes(self) -> bytes:
        return self.part().forced_bytes()
