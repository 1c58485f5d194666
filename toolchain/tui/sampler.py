"""Constrained generation for the sample panel: the same calls as ``gramwright generate``.

The wiring follows :func:`gramwright.cli.generate_cmd.run_generation` (load the model, build the
token vocabulary and the grammar engine, the schema in the system prompt, generate, validate), with
two things an interactive session needs: the model and the engines are kept between runs, and every
token is handed to a callback that can stop the run (the TUI's cancel).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gramwright.sources import LoadedGrammar

Progress = Callable[[str], None]


class SampleCancelled(Exception):
    """Raised from the per-token callback when the user cancelled the run."""


@dataclass
class SampleOutcome:
    text: str
    finish_reason: str
    tokens: int
    metrics: dict[str, Any]
    model: str
    validation: dict[str, Any] = field(default_factory=dict)


class Sampler:
    """Holds the loaded model (one per session) and one grammar engine per grammar."""

    def __init__(self, model: str | None = None) -> None:
        self.model_spec = model
        self._loaded: Any = None
        self._vocab: Any = None
        self._engines: dict[int, Any] = {}

    @property
    def model_loaded(self) -> bool:
        return self._loaded is not None

    def _ensure_model(self, progress: Progress) -> None:
        if self._loaded is not None:
            return
        from gramwright.engine.vocab import TokenVocabulary
        from gramwright.models.loader import load_model

        loaded = load_model(self.model_spec, progress=progress)
        progress(f"model {loaded.name} on {loaded.device} ({loaded.load_s:.1f}s); reading the vocabulary")
        self._vocab = TokenVocabulary.from_loaded(loaded)
        self._loaded = loaded

    def _engine(self, loaded_grammar: LoadedGrammar, progress: Progress) -> Any:
        from gramwright.engine.cache import load_engine

        key = hash(loaded_grammar.grammar)
        if key not in self._engines:
            progress("building the grammar engine")
            # Only the latest grammar is kept: an edited schema makes the old engine useless.
            self._engines = {key: load_engine(loaded_grammar.grammar, self._vocab)}
        return self._engines[key]

    def run(
        self,
        loaded_grammar: LoadedGrammar,
        prompt: str,
        *,
        max_tokens: int,
        progress: Progress,
        on_token: Callable[[Any], None],
    ) -> SampleOutcome:
        """Generate under ``loaded_grammar``; ``on_token`` gets each ``StepTrace`` and may raise
        :class:`SampleCancelled` to stop."""
        from gramwright.decode.generate import generate
        from gramwright.decode.prompt import system_prompt
        from gramwright.engine.cache import save_engine
        from gramwright.grammar.gbnf import emit_gbnf
        from gramwright.models.loader import apply_chat_template
        from gramwright.validate import validate_output

        progress("loading model")
        self._ensure_model(progress)
        engine = self._engine(loaded_grammar, progress)
        is_schema = loaded_grammar.kind == "schema"
        system = system_prompt(
            schema=loaded_grammar.schema if is_schema else None,
            grammar_text=None if is_schema else emit_gbnf(loaded_grammar.grammar),
        )
        lm = self._loaded
        text_prompt = apply_chat_template(lm.tokenizer, system, prompt)
        progress(f"generating on {lm.name} ({lm.device})")
        result = generate(
            lm.model,
            lm.tokenizer,
            text_prompt,
            engine=engine,
            max_tokens=max_tokens,
            on_step=on_token,
            eos_ids=self._vocab.eos_ids,
        )
        result.metrics["grammar_cache_hit"] = engine.from_cache
        save_engine(engine)  # the next session starts with warm masks, as `gramwright generate` does
        outcome = SampleOutcome(
            result.text, result.finish_reason, len(result.steps), dict(result.metrics), lm.name
        )
        if is_schema:
            outcome.validation = validate_output(result.text, loaded_grammar.schema, result.finish_reason)
        return outcome
