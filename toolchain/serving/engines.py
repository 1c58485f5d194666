"""The engines a server would use (XGrammar, llguidance) and ours, behind two small interfaces.

The peers come with the bench extra and are imported lazily, here and nowhere else in the core.

* :class:`EngineGrammar` (``gramwright check --engine``, the export benchmark): an exported
  grammar text loaded the way vLLM and SGLang hand it over — XGrammar's EBNF or Lark reader,
  llguidance's Lark reader or its GBNF conversion (``grammar_from``) — with a tokenizer of the
  256 single bytes, so that a verdict is about the language, not about one model's tokens.
* :class:`MaskEngine` (every benchmark that runs the peers: masks, compile, end to end): a JSON
  Schema compiled by each engine for a real tokenizer, one token mask at a time in the peers'
  int32 bitset layout — :class:`OursMasks`, :class:`LLGuidanceMasks`, :class:`XGrammarMasks`.
  The peers also apply their mask to a row of logits with their own kernel (``apply``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from gramwright.errors import GramwrightError

__all__ = [
    "ENGINES",
    "EngineGrammar",
    "EngineMissing",
    "EngineVerdict",
    "LLGuidanceMasks",
    "MaskEngine",
    "OursMasks",
    "XGrammarMasks",
    "load_in_engine",
    "mask_engine",
]

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


# -- token masks for a JSON Schema on a real tokenizer -------------------------------------------
class MaskEngine(Protocol):
    """Compile a schema, then for each state fill ``bitmask`` (int32 words, 1 x ceil(vocab/32))
    and consume a token: what the mask benchmarks time, the same for every engine."""

    name: str
    bitmask: Any

    def compile(self, schema: Any) -> Any: ...

    def matcher(self, compiled: Any) -> Any: ...

    def mask(self, matcher: Any) -> None: ...

    def consume(self, matcher: Any, tid: int) -> bool: ...

    def finished(self, matcher: Any) -> bool: ...


class OursMasks:
    """Our token engine. Per-tokenizer preparation (the vocabulary trie and byte tables) is done
    here, before timing, as the peers do in their tokenizer objects; masks named by content are
    shared by every grammar in the process unless ``isolated``."""

    name = "ours"

    def __init__(self, vocab: Any, isolated: bool = False) -> None:
        import numpy as np

        from gramwright.engine.bitset import num_words

        self.vocab = vocab
        self.isolated = isolated
        self.bitmask = np.zeros((1, num_words(vocab.size)), dtype=np.int32)  # as the peers allocate
        vocab.tables.prepare()

    def compile(self, schema: Any) -> Any:
        from gramwright.engine.matcher import GrammarEngine
        from gramwright.schema import compile_schema

        if self.isolated:  # nothing shared with earlier schemas' engines
            self.vocab.tables.forget_shared()
        return GrammarEngine(compile_schema(schema).grammar, self.vocab)

    def matcher(self, compiled: Any) -> Any:
        return compiled.matcher()

    def mask(self, matcher: Any) -> None:
        matcher.fill_bitmask(self.bitmask, 0)

    def consume(self, matcher: Any, tid: int) -> bool:
        return bool(matcher.try_consume(tid))

    def finished(self, matcher: Any) -> bool:
        return bool(matcher.is_terminated())


@dataclass
class _LLGuidanceGrammar:
    """A compiled schema for llguidance: the grammar, and the matcher that checked it, handed out
    by the first :meth:`LLGuidanceMasks.matcher` call so the check is not paid twice."""

    grammar: str
    checked: Any


class LLGuidanceMasks:
    """llguidance with the Hugging Face tokenizer, compact JSON (no flexible whitespace)."""

    name = "llguidance"

    def __init__(self, hf_tokenizer: Any) -> None:
        self.llg = _import("llguidance")
        import llguidance.hf
        import llguidance.numpy

        self.tok = llguidance.hf.from_tokenizer(hf_tokenizer)
        self.bitmask = llguidance.numpy.allocate_token_bitmask(1, self.tok.vocab_size)

    def compile(self, schema: Any) -> _LLGuidanceGrammar:
        """The schema's grammar, checked by building a matcher for it (what vLLM's first request
        does); a grammar llguidance refuses raises ``ValueError`` with its reason."""
        grammar = self.llg.LLMatcher.grammar_from_json_schema(
            json.dumps(schema), defaults={"whitespace_flexible": False}
        )
        matcher = self.llg.LLMatcher(self.tok, grammar, log_level=0)
        if matcher.is_error():
            raise ValueError(matcher.get_error())
        return _LLGuidanceGrammar(grammar, matcher)

    def matcher(self, compiled: _LLGuidanceGrammar) -> Any:
        if compiled.checked is not None:
            matcher, compiled.checked = compiled.checked, None
            return matcher
        return self.llg.LLMatcher(self.tok, compiled.grammar, log_level=0)

    def mask(self, matcher: Any) -> None:
        self.llg.numpy.fill_next_token_bitmask(matcher, self.bitmask, 0)

    def consume(self, matcher: Any, tid: int) -> bool:
        return bool(matcher.consume_token(tid)) and not matcher.is_error()

    def finished(self, matcher: Any) -> bool:
        return bool(matcher.is_stopped()) or bool(matcher.is_error())

    def apply(self, logits: Any) -> None:
        """Block, in place, the tokens the last :meth:`mask` excluded (``logits``: a 1 x vocab
        torch tensor), with llguidance's own kernel."""
        import llguidance.torch
        import torch

        llguidance.torch.apply_token_bitmask_inplace(logits, torch.from_numpy(self.bitmask))


class XGrammarMasks:
    """XGrammar with the Hugging Face tokenizer, compact JSON, no compile cache (every schema
    cold); ``max_threads`` as XGrammar's compiler takes it (None: its default)."""

    name = "xgrammar"

    def __init__(self, hf_tokenizer: Any, vocab_size: int, max_threads: int | None = None) -> None:
        self.xgr = _import("xgrammar")
        info = self.xgr.TokenizerInfo.from_huggingface(hf_tokenizer, vocab_size=vocab_size)
        threads = {} if max_threads is None else {"max_threads": max_threads}
        self.compiler = self.xgr.GrammarCompiler(info, cache_enabled=False, **threads)
        self.bitmask = self.xgr.allocate_token_bitmask(1, vocab_size)

    def compile(self, schema: Any) -> Any:
        return self.compiler.compile_json_schema(
            json.dumps(schema), any_whitespace=False, separators=(",", ":")
        )

    def matcher(self, compiled: Any) -> Any:
        return self.xgr.GrammarMatcher(compiled)

    def mask(self, matcher: Any) -> None:
        matcher.fill_next_token_bitmask(self.bitmask)

    def consume(self, matcher: Any, tid: int) -> bool:
        return bool(matcher.accept_token(tid))

    def finished(self, matcher: Any) -> bool:
        return bool(matcher.is_terminated())

    def apply(self, logits: Any) -> None:
        """Block, in place, the tokens the last :meth:`mask` excluded (``logits``: a 1 x vocab
        torch tensor), with XGrammar's own kernel."""
        self.xgr.apply_token_bitmask_inplace(logits, self.bitmask)


def mask_engine(
    name: str,
    hf_tokenizer: Any,
    vocab: Any = None,
    *,
    vocab_size: int | None = None,
    max_threads: int | None = None,
) -> MaskEngine:
    """The engine ``name`` (ours, llguidance, xgrammar) for ``hf_tokenizer``; ours needs our
    ``vocab`` of it, XGrammar its size (``vocab.size`` when not given) and, optionally, how many
    threads its compiler may use. A missing peer is :class:`EngineMissing`."""
    if name == "ours":
        return OursMasks(vocab)
    if name == "llguidance":
        return LLGuidanceMasks(hf_tokenizer)
    if name == "xgrammar":
        return XGrammarMasks(hf_tokenizer, vocab_size if vocab_size is not None else vocab.size, max_threads)
    raise GramwrightError(f"unknown engine {name!r}", hint="use ours, llguidance or xgrammar")
