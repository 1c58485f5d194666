"""Generation in-process with llama.cpp (``--backend llama-cpp``): a GGUF run by llama.cpp, under
gramwright's own masks — the same engine, budget and EOS rules as the transformers backend.

:class:`LlamaCppGenerator` offers what :class:`gramwright.generation.Generator` offers the CLI and
the pipeline (``check_budget``, ``engine_for``, ``prompt_for``, ``run``), so ``generate`` and
``extract`` (through :class:`~gramwright.pipeline.backend.GeneratorBackend`) take either. llama.cpp
reads the GGUF as it is (no float32 conversion: quantised weights, its own threads), and the
tokenizer is the one the transformers backend reads from the same GGUF, so token ids and the
engine's vocabulary agree (checked: the widths must match).

``llama_cpp`` (``pip install llama-cpp-python``) is imported only here, when this backend is asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gramwright.errors import ModelError
from gramwright.generation import Generation, SamplingOptions
from gramwright.sources import CompiledSource

if TYPE_CHECKING:
    from gramwright.decode.generate import StepTrace
    from gramwright.decode.prompt import PromptPlan, SchemaRendering
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary

__all__ = ["LLAMA_CPP_HINT", "LlamaCppGenerator"]

LLAMA_CPP_HINT = "pip install llama-cpp-python (it builds llama.cpp: a few minutes, once per machine)"
Progress = Callable[[str], None]


def _quiet(_message: str) -> None:
    return None


def _gguf_path(model: str | None) -> Path:
    from gramwright.models.loader import locate_embedded_gguf

    if model is None:
        return locate_embedded_gguf()
    path = Path(model)
    if path.suffix != ".gguf" or not path.is_file():
        raise ModelError(
            f"{model}: --backend llama-cpp runs a .gguf file",
            hint="give a .gguf file, or omit --model for the embedded SmolLM2-135M-Instruct",
        )
    return path


class LlamaCppGenerator:
    """A GGUF loaded in llama.cpp, with the engine of the grammar last used."""

    def __init__(self, model: str | None = None, *, n_ctx: int = 4096, n_threads: int | None = None) -> None:
        self.model_spec = model
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._llm: Any = None
        self._tokenizer: Any = None
        self._vocab: TokenVocabulary | None = None
        self._engines: dict[int, GrammarEngine] = {}
        self._engine_ms = 0.0
        self.load_s = 0.0

    @property
    def name(self) -> str:
        return _gguf_path(self.model_spec).stem

    def _tokenizer_vocab(self, progress: Progress = _quiet) -> TokenVocabulary:
        if self._vocab is None:
            from gramwright.engine.vocab import TokenVocabulary
            from gramwright.models.loader import load_tokenizer, model_vocab_info

            self._tokenizer = load_tokenizer(self.model_spec, progress)
            info = model_vocab_info(self.model_spec)
            self._vocab = TokenVocabulary.from_tokenizer(self._tokenizer, info.vocab_size, info.eos_ids)
        return self._vocab

    def check_budget(self, source: CompiledSource, max_tokens: int, progress: Progress = _quiet) -> None:
        from gramwright.engine.budget import shortest_output_tokens
        from gramwright.errors import BudgetTooSmall

        vocab = self._tokenizer_vocab(progress)
        BudgetTooSmall.check(shortest_output_tokens(source.grammar, vocab), max_tokens)

    def load_model(self, progress: Progress = _quiet) -> Any:
        if self._llm is None:
            try:
                import llama_cpp
            except ImportError:
                raise ModelError("llama.cpp is not installed (llama_cpp)", hint=LLAMA_CPP_HINT) from None
            vocab = self._tokenizer_vocab(progress)
            path = _gguf_path(self.model_spec)
            progress(f"loading {path.name} in llama.cpp")
            t0 = time.perf_counter()
            llm = llama_cpp.Llama(
                model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads, verbose=False
            )
            self.load_s = time.perf_counter() - t0
            if llm.n_vocab() != vocab.size:
                raise ModelError(
                    f"{path.name}: llama.cpp reads {llm.n_vocab()} tokens, the tokenizer {vocab.size}",
                    hint="the masks index tokens by id: both must read the same vocabulary",
                )
            self._llm = llm
        return self._llm

    def engine_for(
        self, source: CompiledSource, progress: Progress = _quiet, *, use_cache: bool = True
    ) -> GrammarEngine:
        from gramwright.engine.cache import load_engine

        vocab = self._tokenizer_vocab(progress)
        key = hash(source.grammar)
        if key in self._engines:
            self._engine_ms = 0.0
        else:
            t0 = time.perf_counter()
            vocab.tables.prepare()
            self._engines = {key: load_engine(source.grammar, vocab, use_cache=use_cache)}
            self._engine_ms = (time.perf_counter() - t0) * 1000
        return self._engines[key]

    def prompt_for(
        self,
        source: CompiledSource,
        prompt: str,
        *,
        max_tokens: int,
        system: str | None = None,
        schema_prompt: SchemaRendering = "compact",
    ) -> tuple[str, PromptPlan]:
        """The chat prompt (the GGUF's template, read by the same tokenizer as the transformers
        backend) and how the schema was shown, fitted to llama.cpp's context."""
        from gramwright.decode.prompt import plan_system_prompt
        from gramwright.grammar.gbnf import emit_gbnf
        from gramwright.models.loader import apply_chat_template

        llm = self.load_model()

        def chat(system_text: str | None) -> str:
            return apply_chat_template(self._tokenizer, system_text, prompt)

        def count(system_text: str | None) -> int:
            return len(llm.tokenize(chat(system_text).encode("utf-8"), add_bos=False, special=True))

        plan = plan_system_prompt(
            source.schema if source.is_schema else None,
            lambda: emit_gbnf(source.grammar),
            system,
            rendering=schema_prompt,
            count=count,
            context=llm.n_ctx(),
            max_tokens=max_tokens,
        )
        return chat(plan.system), plan

    def run(
        self,
        source: CompiledSource,
        prompt: str,
        *,
        sampling: SamplingOptions | None = None,
        constrain: bool = True,
        on_token: Callable[[StepTrace], None] | None = None,
        progress: Progress = _quiet,
        system: str | None = None,
        use_cache: bool = True,
        open_objects: bool | None = None,
        schema_prompt: SchemaRendering = "compact",
    ) -> Generation:
        """As :meth:`gramwright.generation.Generator.run`, on llama.cpp."""
        import llama_cpp

        from gramwright.decode.generate import StepTrace
        from gramwright.decode.llamacpp import LlamaCppMasks
        from gramwright.engine.cache import save_engine
        from gramwright.validate import validate_output

        sampling = sampling or SamplingOptions()
        source = source.for_generation(open_objects)
        llm = self.load_model(progress)
        engine = self.engine_for(source, progress, use_cache=use_cache) if constrain else None
        vocab = self._tokenizer_vocab()
        text_prompt, plan = self.prompt_for(
            source, prompt, max_tokens=sampling.max_tokens, system=system, schema_prompt=schema_prompt
        )
        tokens = llm.tokenize(text_prompt.encode("utf-8"), add_bos=False, special=True)
        max_tokens = max(1, min(sampling.max_tokens, llm.n_ctx() - len(tokens)))
        matcher = engine.matcher(max_tokens) if engine is not None else None
        masks = LlamaCppMasks(matcher) if matcher is not None else None
        stop_ids = set(vocab.eos_ids) | {int(llm.token_eos())}
        if sampling.seed is not None:
            llm.set_seed(sampling.seed)
        steps: list[StepTrace] = []
        token_ids: list[int] = []
        finish, closing_at = "length", None
        progress(f"generating on {self.name} (llama.cpp)")
        started = time.perf_counter()
        draws = llm.generate(
            tokens,
            top_k=sampling.top_k,  # 0: llama.cpp keeps every token, as gramwright's sampler does
            top_p=sampling.top_p,
            min_p=0.0,
            temp=sampling.temperature,
            repeat_penalty=1.0,
            logits_processor=llama_cpp.LogitsProcessorList([masks]) if masks is not None else None,
        )
        try:
            for token in draws:
                if masks is not None and masks.error is not None:
                    raise masks.error
                step = masks.steps[-1] if masks is not None and masks.steps else None
                if matcher is not None:
                    if step is not None and step.closing and closing_at is None:
                        closing_at = len(matcher.output)
                    matcher.consume(int(token))
                raw = b"" if token in stop_ids else bytes(vocab.token_bytes[token])
                trace = StepTrace(
                    int(token),
                    raw,
                    step.clipped_mass if step else None,
                    step.mask_us if step else None,
                    bool(step and step.closing),
                )
                steps.append(trace)
                if on_token is not None:
                    on_token(trace)
                if token in stop_ids:
                    finish = "stop"
                    break
                token_ids.append(int(token))
                if matcher is not None and matcher.is_terminated():
                    finish = "stop"
                    break
                if len(steps) >= max_tokens:
                    break
        finally:
            draws.close()
        elapsed = time.perf_counter() - started
        raw_text = b"".join(s.text for s in steps)
        text = raw_text.decode("utf-8", "replace")
        metrics = _metrics(steps, elapsed, engine)
        metrics.update(plan.metrics())
        metrics["backend"] = "llama-cpp"
        if max_tokens < sampling.max_tokens:
            metrics["max_tokens_capped_to"] = max_tokens
        if source.closed_objects:
            metrics["closed_objects"] = len(source.closed_objects)
        if engine is not None:
            metrics["grammar_cache_hit"] = engine.from_cache
            metrics["engine_ms"] = round(self._engine_ms, 1)
            if use_cache:
                save_engine(engine)
        validation = None
        if source.is_schema:
            validation = validate_output(text, source.schema, finish, registry=source.registry)
        closing_offset = None
        cut: list[str] = []
        if matcher is not None and closing_at is not None:
            closing_offset = len(matcher.output[:closing_at].decode("utf-8", "replace"))
            if source.is_schema:
                from gramwright.decode.cut import open_json_values

                cut = open_json_values(text, closing_offset)
        return Generation(
            text=text,
            finish_reason=finish,
            tokens=len(steps),
            metrics=metrics,
            model=self.name,
            validation=validation,
            constrained=constrain,
            device="cpu (llama.cpp)",
            token_ids=token_ids,
            closing_offset=closing_offset,
            cut=cut,
        )


def _metrics(steps: list[StepTrace], elapsed: float, engine: GrammarEngine | None) -> dict[str, Any]:
    masks = sorted(s.mask_us for s in steps if s.mask_us is not None)
    masses = [s.clipped_mass for s in steps if s.clipped_mass is not None]
    out: dict[str, Any] = {
        "tokens": len(steps),
        "tokens_per_s": round(len(steps) / elapsed, 2) if elapsed else 0.0,
        "ms_per_token": round(1000 * elapsed / max(len(steps), 1), 2),
    }
    if engine is not None and masks:
        out.update(
            mask_us_p50=round(masks[len(masks) // 2], 1),
            mask_us_p99=round(masks[min(len(masks) - 1, int(0.99 * len(masks)))], 1),
            closing_steps=sum(s.closing for s in steps),
            clipped_mass_avg=round(sum(masses) / len(masses), 4) if masses else 0.0,
            clipped_mass_max=round(max(masses), 4) if masses else 0.0,
        )
    return out
