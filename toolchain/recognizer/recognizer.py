"""Recognizer: an incremental byte cursor over a CompiledGrammar.

The one recognizer of the project: the CLI's ``check``, the schema conformance runner and the token
engine all run on it. A rejected feed leaves the state exactly as it was and says where and what
would have been allowed. Snapshots are ints (configuration id + position), so restore is O(1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gramwright.errors import GrammarError
from gramwright.grammar.ir import Grammar
from gramwright.recognizer.compiled import DEAD, CompiledGrammar
from gramwright.recognizer.nfa import EAGER_MAX_RULES


def describe_bytes(allowed: frozenset[int], limit: int = 12) -> str:
    """Human summary of a byte set: printable ASCII shown as characters, runs as ranges."""
    if not allowed:
        return "nothing (end of input expected)"
    runs: list[tuple[int, int]] = []
    for b in sorted(allowed):
        if runs and b == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))

    def show(b: int) -> str:
        return repr(chr(b)) if 0x20 <= b < 0x7F else f"0x{b:02x}"

    parts = [show(lo) if lo == hi else f"{show(lo)}-{show(hi)}" for lo, hi in runs]
    text = " ".join(parts[:limit])
    return text + (f" … ({len(parts) - limit} more)" if len(parts) > limit else "")


class InputRejected(GrammarError):
    """A byte the grammar does not allow here. The recognizer's state is unchanged."""

    def __init__(
        self,
        *,
        offset: int,
        position: int,
        byte: int,
        allowed: frozenset[int],
        accepting: bool,
        active_rules: list[str],
    ) -> None:
        self.offset = offset  # index into the rejected chunk
        self.position = position  # absolute byte offset in the whole input
        self.byte = byte
        self.allowed = allowed
        self.accepting = accepting  # the input so far is complete: the byte came after the end
        self.active_rules = active_rules
        tail = " (input was already complete)" if accepting else ""
        super().__init__(
            f"byte {byte:#04x} rejected{tail}; allowed: {describe_bytes(allowed)}",
            where=f"byte offset {position}",
        )


@dataclass(frozen=True, slots=True)
class Snapshot:
    config: int
    position: int


class Recognizer:
    """Feed bytes incrementally; ask viability, completeness and the allowed next bytes."""

    __slots__ = ("_cg", "_config", "_position")

    def __init__(self, compiled: CompiledGrammar) -> None:
        self._cg = compiled
        self._config = compiled.initial
        self._position = 0

    @property
    def compiled(self) -> CompiledGrammar:
        return self._cg

    @property
    def position(self) -> int:
        """Bytes accepted so far."""
        return self._position

    @property
    def config(self) -> int:
        """The current configuration id (the key the token engine caches masks by)."""
        return self._config

    def feed(self, data: bytes) -> None:
        """Consume ``data`` entirely, or raise InputRejected and consume nothing."""
        cg = self._cg
        trans = cg.trans
        config = self._config
        for i, b in enumerate(data):
            nxt = trans[config].get(b)
            if nxt is None:
                nxt = cg.step(config, b)
            if nxt == DEAD:
                raise InputRejected(
                    offset=i,
                    position=self._position + i,
                    byte=b,
                    allowed=cg.allowed_bytes(config),
                    accepting=cg.config_accepting[config],
                    active_rules=cg.active_rules(config),
                )
            config = nxt
        self._config = config
        self._position += len(data)

    def try_feed(self, data: bytes) -> bool:
        """Like feed, but answers False instead of raising (state unchanged on False)."""
        config = self._cg.walk(self._config, data)
        if config == DEAD:
            return False
        self._config = config
        self._position += len(data)
        return True

    def feed_byte(self, b: int) -> bool:
        """The fast path for one byte; False (state unchanged) when the byte is not allowed."""
        nxt = self._cg.trans[self._config].get(b)
        if nxt is None:
            nxt = self._cg.step(self._config, b)
        if nxt == DEAD:
            return False
        self._config = nxt
        self._position += 1
        return True

    def is_accepting(self) -> bool:
        """The input so far is a complete sentence of the grammar."""
        return self._cg.config_accepting[self._config]

    def is_viable(self) -> bool:
        """Some continuation completes the input. Always true: dead parts are pruned at compile
        time and rejected bytes never enter, so every reachable configuration can still finish."""
        return True

    def can_continue(self) -> bool:
        """More bytes are possible (false once only the end of input is allowed)."""
        return bool(self._cg.config_frames[self._config])

    def allowed_bytes(self) -> frozenset[int]:
        return self._cg.allowed_bytes(self._config)

    def active_rules(self) -> list[str]:
        return self._cg.active_rules(self._config)

    def snapshot(self) -> Snapshot:
        return Snapshot(self._config, self._position)

    def restore(self, snap: Snapshot) -> None:
        self._config = snap.config
        self._position = snap.position

    def reset(self) -> None:
        self._config = self._cg.initial
        self._position = 0


# A grammar of more than EAGER_MAX_RULES rules (the NFA's own bound for a large grammar) is
# compiled afresh rather than looked up: the memo hashes the whole grammar (~0.15 s for a
# 5,000-line edit grammar's 30k rules), and such a grammar's compile is the cheap part (its NFA
# is built per rule when entered, and a prepared grammar is not prepared again). Edit grammars
# are made for one request and not met again.


def compile_grammar(grammar: Grammar) -> CompiledGrammar:
    """Prepare and lower a grammar; cached per grammar (the memo tables are shared by design),
    except for a large grammar (more than ``nfa.EAGER_MAX_RULES`` rules)."""
    if len(grammar.rules) > EAGER_MAX_RULES:
        return CompiledGrammar(grammar)
    return _compile_memo(grammar)


@lru_cache(maxsize=64)
def _compile_memo(grammar: Grammar) -> CompiledGrammar:
    return CompiledGrammar(grammar)


def clear_compile_cache() -> None:
    """Forget the memoised compiled grammars (measurements that must start cold)."""
    _compile_memo.cache_clear()
