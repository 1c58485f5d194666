"""Run a document through an exported grammar text in the real engine a server would use.

Only for ``gramwright check --engine`` and the export benchmark: the engines are the bench
extra's peers (``xgrammar``, ``llguidance``), imported lazily here and nowhere in the core.
Each engine gets the text the way vLLM and SGLang hand it over — XGrammar's EBNF or Lark
reader, llguidance's Lark reader or its GBNF conversion (``grammar_from``) — and a tokenizer of
the 256 single bytes, so that a verdict is about the language, not about one model's tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from gramwright.errors import GramwrightError

__all__ = ["ENGINES", "EngineGrammar", "EngineMissing", "EngineVerdict", "load_in_engine"]

Engine = Literal["xgrammar", "llguidance"]
Dialect = Literal["gbnf", "lark"]
ENGINES: tuple[Engine, ...] = ("xgrammar", "llguidance")
INSTALL_HINT = "install the bench extra: pip install 'gramwright[bench]'"


class EngineMissing(GramwrightError):
    def __init__(self, engine: str) -> None:
        super().__init__(f"{engine} is not installed", hint=INSTALL_HINT)


class EngineLoadError(GramwrightError):
    """The engine refused the exported text (a bug in an export, or an engine limit)."""


@dataclass(frozen=True)
class EngineVerdict:
    engine: str
    dialect: str
    accepted: bool
    consumed: int  # bytes the engine took before it stopped (all of them when it did not reject)
    reason: str  # accepted | rejected | incomplete

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "dialect": self.dialect,
            "accepted": self.accepted,
            "consumed": self.consumed,
            "reason": self.reason,
        }


def _import(engine: str) -> Any:
    try:
        if engine == "xgrammar":
            import xgrammar

            return xgrammar
        import llguidance

        return llguidance
    except ImportError as exc:
        raise EngineMissing(engine) from exc


class _ByteTokenizer:
    """What llguidance's TokenizerWrapper asks for: one token per byte, then an end token."""

    def __init__(self) -> None:
        self.eos_token_id = 256
        self.bos_token_id = None
        self.tokens = [bytes([b]) for b in range(256)] + [b"<eos>"]
        self.special_token_ids = [256]

    def __call__(self, text: str | bytes) -> list[int]:
        return list(text if isinstance(text, bytes) else text.encode("utf-8"))


_LLG_TOKENIZER: Any = None


class EngineGrammar:
    """One exported text loaded in one engine; :meth:`check` judges documents against it."""

    def __init__(self, engine: Engine, dialect: Dialect, text: str) -> None:
        global _LLG_TOKENIZER
        self.engine, self.dialect = engine, dialect
        mod = _import(engine)
        try:
            if engine == "xgrammar":
                grammar = mod.Grammar.from_lark(text) if dialect == "lark" else mod.Grammar.from_ebnf(text)
                compiler = mod.GrammarCompiler(mod.TokenizerInfo([]), cache_enabled=False)
                self._compiled = compiler.compile_grammar(grammar)
                self._mod = mod
            else:
                # vLLM's and SGLang's guidance backends call grammar_from("grammar"/"ebnf", text):
                # Lark when a line starts with `start:` or `%llguidance`, else GBNF converted to Lark.
                self._spec = mod.grammar_from("grammar", text)
                if _LLG_TOKENIZER is None:
                    _LLG_TOKENIZER = mod.LLTokenizer(mod.TokenizerWrapper(_ByteTokenizer()))
                self._tok = _LLG_TOKENIZER
                matcher = mod.LLMatcher(self._tok, self._spec, log_level=0)
                if matcher.is_error():
                    raise EngineLoadError(f"llguidance: {matcher.get_error()}")
                self._mod = mod
        except (RuntimeError, ValueError) as exc:
            raise EngineLoadError(f"{engine} did not load the {dialect} text: {exc}") from exc

    def check(self, data: bytes) -> EngineVerdict:
        if self.engine == "xgrammar":
            return self._check_xgrammar(data)
        return self._check_llguidance(data)

    def _verdict(self, accepted: bool, consumed: int, reason: str) -> EngineVerdict:
        return EngineVerdict(self.engine, self.dialect, accepted, consumed, reason)

    def _check_xgrammar(self, data: bytes) -> EngineVerdict:
        matcher = self._mod.GrammarMatcher(self._compiled, terminate_without_stop_token=True)
        if matcher.accept_string(data):
            done = bool(matcher.is_terminated())
            return self._verdict(done, len(data), "accepted" if done else "incomplete")
        matcher = self._mod.GrammarMatcher(self._compiled, terminate_without_stop_token=True)
        consumed = 0
        for b in data:  # where it stopped, for the message (only on rejection)
            if not matcher.accept_string(bytes([b])):
                break
            consumed += 1
        return self._verdict(False, consumed, "rejected")

    def _check_llguidance(self, data: bytes) -> EngineVerdict:
        matcher = self._mod.LLMatcher(self._tok, self._spec, log_level=0)
        consumed = matcher.try_consume_tokens(list(data))
        if consumed < len(data):
            return self._verdict(False, consumed, "rejected")
        done = bool(matcher.is_accepting())
        return self._verdict(done, len(data), "accepted" if done else "incomplete")


def load_in_engine(engine: str, dialect: str, text: str) -> EngineGrammar:
    if engine not in ENGINES:
        raise GramwrightError(f"unknown engine {engine!r}", hint="use xgrammar or llguidance")
    if dialect not in ("gbnf", "lark"):
        raise GramwrightError(f"unknown dialect {dialect!r}", hint="use gbnf or lark")
    return EngineGrammar(engine, dialect, text)  # type: ignore[arg-type]
