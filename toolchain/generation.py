"""The one generation entry point: source → model → engine → prompt → generate → validate.

``generate_structured(source, prompt)`` runs it once; a :class:`Generator` keeps the loaded model,
its token vocabulary and one engine per grammar between runs (the TUI's session, a batch job).
The CLI's ``generate`` and the TUI's sample panel are adapters over these two; neither wires the
layers itself.

Form comes from the mask; content does not: a schema-constrained result is validated with
``jsonschema`` (through the compile's ``$ref`` registry) and the verdict is part of the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gramwright.sources import CompiledSource, load_for_generation
from gramwright.validate import Validation, validate_output

if TYPE_CHECKING:
    from gramwright.decode.generate import GenerationResult, StepTrace
    from gramwright.decode.prompt import PromptPlan, SchemaRendering
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.errors import BudgetTooSmall
    from gramwright.models.loader import LoadedModel
    from gramwright.reasoning import Reasoning
    from gramwright.schema.grounding import GroundedValue

__all__ = ["BatchItem", "Generation", "Generator", "SamplingOptions", "generate_structured"]

Progress = Callable[[str], None]


def _quiet(_message: str) -> None:
    return None


@dataclass(frozen=True)
class SamplingOptions:
    """How tokens are drawn (after the mask): ``temperature`` 0 is greedy."""

    max_tokens: int = 256
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if self.temperature < 0 or self.top_k < 0 or not 0.0 <= self.top_p <= 1.0:
            raise ValueError("temperature ≥ 0, top_k ≥ 0 and 0 ≤ top_p ≤ 1")


@dataclass(frozen=True)
class BatchItem:
    """One request of :meth:`Generator.run_batch`: what :meth:`Generator.run` takes for one."""

    source: CompiledSource
    prompt: str
    sampling: SamplingOptions = field(default_factory=SamplingOptions)
    constrain: bool = True
    fast_forward: bool = True
    # seconds the item may spend in the batch; past them it ends with finish_reason "timeout"
    time_limit_s: float | None = None


@dataclass
class Generation:
    """One generation: the text, why it ended, what it cost, and (schemas) the validation verdict."""

    text: str
    finish_reason: str  # "stop" | "length"
    tokens: int
    metrics: dict[str, Any]
    model: str
    validation: Validation | None = None
    constrained: bool = True
    device: str = ""
    dtype: str = ""  # the model's weights: float32, bfloat16, …
    token_ids: list[int] = field(default_factory=list, repr=False)
    # the token budget narrowed the masks from this character of ``text`` on (None: never): the
    # output is complete, but the values open there were closed early (``cut``)
    closing_offset: int | None = None
    cut: list[str] = field(default_factory=list)  # schemas: JSON Pointers of the values cut short
    # with a reasoning section (``reasoning=``): its text apart from the value (``text``), the
    # tokens it took, and whether its own budget closed it
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    reasoning_closed_by_budget: bool = False
    # x-grounded values with their span in the source text (a source was given)
    grounded: list[GroundedValue] = field(default_factory=list)

    @property
    def closed_by_budget(self) -> bool:
        return self.closing_offset is not None

    @property
    def ok(self) -> bool:
        """Finished by the model (not truncated) and, where a schema applies, valid."""
        return self.finish_reason == "stop" and (self.validation is None or self.validation.valid)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "tokens": self.tokens,
            "constrained": self.constrained,
            "model": self.model,
            "device": self.device,
            "dtype": self.dtype,
            "metrics": self.metrics,
            "token_ids": list(self.token_ids),  # to replay the run in another engine
        }
        if self.constrained:
            out["closed_by_budget"] = self.closed_by_budget
            if self.closing_offset is not None:
                out["closing_offset"] = self.closing_offset
                out["cut"] = list(self.cut)
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
            out["reasoning_tokens"] = self.reasoning_tokens
            out["reasoning_closed_by_budget"] = self.reasoning_closed_by_budget
        if self.validation is not None:
            out.update(self.validation.to_dict())
        if self.grounded:
            out["grounded"] = [g.to_dict() for g in self.grounded]
        return out


class Generator:
    """A loaded model with its vocabulary, and the engine of the grammar last used (engines are
    also kept on disk, so a new process starts with warm masks)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        threads: int | None = None,
        dtype: str | None = None,
    ) -> None:
        """``device``: auto (default: CUDA when present), cpu or cuda; ``threads``: torch's CPU
        threads for every pass (default: ``OMP_NUM_THREADS``, else one core left free, lent to
        torch while other processes leave it free; ``models/threads``);
        ``dtype``: auto (default: float32 on a CPU, the checkpoint's on a GPU), float32,
        bfloat16 or float16 (``models/loader.resolve_dtype``)."""
        self.model_spec = model
        self.device = device
        self.threads = threads
        self.dtype = dtype
        self._lm: LoadedModel | None = None
        self._vocab: Any = None
        self._tokenizer_vocab: Any = None  # the tokenizer's alone, read before a model loads
        self._engines: dict[int, GrammarEngine] = {}
        self._engine_ms = 0.0  # building the latest engine (with the tokenizer's tables, first time)
        self._sections: dict[Reasoning, GrammarEngine] = {}  # reasoning sections' engines

    @property
    def model_loaded(self) -> bool:
        return self._lm is not None

    def check_budget(self, source: CompiledSource, max_tokens: int, progress: Progress = _quiet) -> None:
        """Refuse (``BudgetTooSmall``) a ``max_tokens`` below the shortest output ``source``
        accepts, reading only the tokenizer: before any model loads."""
        from gramwright.engine.budget import shortest_output_tokens
        from gramwright.engine.vocab import TokenVocabulary
        from gramwright.errors import BudgetTooSmall

        vocab = self._vocab or self._tokenizer_vocab
        if vocab is None:
            from gramwright.models.loader import load_tokenizer

            vocab = TokenVocabulary.from_tokenizer(load_tokenizer(self.model_spec, progress))
            self._tokenizer_vocab = vocab  # a batch asks once per request
        BudgetTooSmall.check(shortest_output_tokens(source.grammar, vocab), max_tokens)

    def load_model(self, progress: Progress = _quiet) -> LoadedModel:
        if self._lm is None:
            from gramwright.models.loader import load_model
            from gramwright.models.vocabulary import vocabulary_of_loaded

            lm = load_model(
                self.model_spec, device=self.device, progress=progress, threads=self.threads, dtype=self.dtype
            )
            progress(f"model {lm.name} on {lm.device}, {lm.dtype} ({lm.load_s:.1f}s); reading the vocabulary")
            self._vocab = vocabulary_of_loaded(lm)
            self._lm = lm
        return self._lm

    @property
    def vocab(self) -> Any:
        """The loaded model's token vocabulary (loads the model)."""
        self.load_model()
        return self._vocab

    def engine_for(
        self, source: CompiledSource, progress: Progress = _quiet, *, use_cache: bool = True
    ) -> GrammarEngine:
        from gramwright.engine.cache import load_engine

        self.load_model(progress)
        key = hash(source.grammar)
        if key in self._engines:
            self._engine_ms = 0.0  # the engine of the request before: nothing built
        else:
            progress("building the grammar engine")
            t0 = time.perf_counter()
            # the per-tokenizer tables (vocabulary trie, byte tables: ~0.4 s, once per process)
            # are built here, with the engine, and not inside the first mask that needs them
            self._vocab.tables.prepare()
            # only the latest grammar is kept: an edited schema makes the old engine useless
            self._engines = {key: load_engine(source.grammar, self._vocab, use_cache=use_cache)}
            self._engine_ms = (time.perf_counter() - t0) * 1000
        return self._engines[key]

    def sectioned(self, engine: GrammarEngine, reasoning: Reasoning) -> GrammarEngine:
        """``engine`` after a reasoning section of at most ``reasoning.max_tokens`` tokens."""
        from gramwright.engine.matcher import GrammarEngine
        from gramwright.engine.sections import SectionedEngine

        self.load_model()
        section = self._sections.get(reasoning)
        if section is None:
            section = self._sections[reasoning] = GrammarEngine(reasoning.grammar(), self._vocab)
        return SectionedEngine(section, engine, reasoning.max_tokens)

    def prompt_for(
        self,
        source: CompiledSource,
        prompt: str,
        *,
        max_tokens: int,
        system: str | None = None,
        schema_prompt: SchemaRendering = "compact",
    ) -> tuple[str, PromptPlan]:
        """The chat prompt :meth:`run` sends, and how the schema was shown in it."""
        from gramwright.decode.generate import context_length
        from gramwright.decode.prompt import plan_system_prompt
        from gramwright.grammar.gbnf import emit_gbnf
        from gramwright.models.loader import apply_chat_template

        lm = self.load_model()

        def chat(system_text: str | None) -> str:
            return apply_chat_template(lm.tokenizer, system_text, prompt)

        def count(system_text: str | None) -> int:
            return len(lm.tokenizer(chat(system_text), add_special_tokens=False).input_ids)

        plan = plan_system_prompt(
            source.schema if source.is_schema else None,
            lambda: emit_gbnf(source.grammar),
            system,
            rendering=schema_prompt,
            count=count,
            context=context_length(lm.model),
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
        fast_forward: bool = True,
        reasoning: Reasoning | None = None,
    ) -> Generation:
        """Generate for ``prompt`` under ``source``'s grammar (or without it, ``constrain=False``:
        the baseline). ``on_token`` sees every step and may raise to stop the run. ``system``
        replaces the system prompt made from the schema or grammar (the edit generator writes its
        own: the files and the format); ``use_cache=False`` keeps the engine off the disk
        cache (a grammar made for one file's current content is rarely met again).
        A schema's objects are closed for generation unless ``open_objects`` (or the schema's
        ``x-runtime``) says otherwise: see :meth:`CompiledSource.for_generation`.
        ``schema_prompt`` is how the schema is shown in the system prompt (``compact``, ``json``,
        ``none``); one that leaves no room for ``max_tokens`` in the model's context is left out,
        with ``metrics["prompt_note"]`` saying so. ``fast_forward``: feed the tokens of text the
        grammar forces in one forward pass (``decode/forced``; greedy decoding keeps what the
        model would have chosen, its output is step-by-step's); False decodes step by step.
        ``reasoning``: a bounded section
        (``<think>…</think>``, at most ``reasoning.max_tokens`` tokens, inside ``max_tokens``)
        before the constrained output; ``text`` is then the value and ``reasoning`` the section."""
        from gramwright.decode.generate import generate
        from gramwright.decode.sampling import SamplingParams

        sampling = sampling or SamplingOptions()
        source = source.for_generation(open_objects)
        if source.source_text is not None:
            use_cache = False  # a grammar built for one source text is rarely met again
        lm = self.load_model(progress)
        engine = self.engine_for(source, progress, use_cache=use_cache) if constrain else None
        text_prompt, plan = self.prompt_for(
            source, prompt, max_tokens=sampling.max_tokens, system=system, schema_prompt=schema_prompt
        )
        progress(f"generating on {lm.name} ({lm.device})")
        decode_engine = self.sectioned(engine, reasoning) if engine is not None and reasoning else engine
        result = generate(
            lm.model,
            lm.tokenizer,
            text_prompt,
            engine=decode_engine,
            max_tokens=sampling.max_tokens,
            params=SamplingParams(sampling.temperature, sampling.top_k, sampling.top_p),
            seed=sampling.seed,
            on_step=on_token,
            eos_ids=self._vocab.eos_ids,
            fast_forward=fast_forward,
        )
        return self._generation(
            result, source, plan, engine, lm, constrain=constrain, use_cache=use_cache, reasoning=reasoning
        )

    def run_batch(
        self,
        items: Sequence[BatchItem],
        *,
        batch_size: int = 4,
        schema_prompt: SchemaRendering = "compact",
        progress: Progress = _quiet,
    ) -> list[Generation | BudgetTooSmall]:
        """Generate for every item, ``batch_size`` of them per forward pass (continuous batching:
        ``decode.batch.generate_batch``); each item's :class:`Generation` is what :meth:`run`
        gives for it (greedy: the same tokens). An item whose ``max_tokens`` cannot hold its
        grammar's shortest output gets the ``BudgetTooSmall`` :meth:`run` would raise, in its
        place; the others still run. Engines are built before the batch starts (not an item's
        time); ``time_limit_s`` counts from the item joining the batch."""
        from gramwright.decode.batch import BatchRequest, generate_batch
        from gramwright.decode.generate import _room
        from gramwright.decode.sampling import SamplingParams
        from gramwright.errors import BudgetTooSmall

        lm = self.load_model(progress)
        engines: dict[int, tuple[GrammarEngine, float]] = {}  # this batch's, with their build ms
        plans: list[tuple[CompiledSource, GrammarEngine | None, float, PromptPlan] | BudgetTooSmall] = []
        requests: list[BatchRequest] = []
        for item in items:
            source = item.source.for_generation(None)
            engine, engine_ms = None, 0.0
            if item.constrain:
                key = hash(source.grammar)
                if key not in engines:
                    # a grounded source's grammar is one text's: kept off the disk cache
                    built = self.engine_for(source, progress, use_cache=source.source_text is None)
                    engines[key] = (built, self._engine_ms)
                else:
                    engines[key] = (engines[key][0], 0.0)
                engine, engine_ms = engines[key]
            sampling = item.sampling
            text_prompt, plan = self.prompt_for(
                source, item.prompt, max_tokens=sampling.max_tokens, schema_prompt=schema_prompt
            )
            if engine is not None:
                try:  # what ``generate`` refuses before its first forward pass
                    engine.check_budget(_room(lm.model, plan.prompt_tokens, sampling.max_tokens))
                except BudgetTooSmall as exc:
                    plans.append(exc)
                    continue
            plans.append((source, engine, engine_ms, plan))
            requests.append(
                BatchRequest(
                    text_prompt,
                    engine,
                    max_tokens=sampling.max_tokens,
                    params=SamplingParams(sampling.temperature, sampling.top_k, sampling.top_p),
                    seed=sampling.seed,
                    fast_forward=item.fast_forward,
                    time_limit_s=item.time_limit_s,
                )
            )
        progress(f"generating {len(requests)} request(s) on {lm.name} ({lm.device}), batch {batch_size}")
        run = generate_batch(
            lm.model, lm.tokenizer, requests, batch_size=batch_size, eos_ids=self._vocab.eos_ids
        )
        results = iter(run.results)
        out: list[Generation | BudgetTooSmall] = []
        for planned, item in zip(plans, items, strict=True):
            if isinstance(planned, BudgetTooSmall):
                out.append(planned)
                continue
            source, engine, engine_ms, plan = planned
            self._engine_ms = engine_ms
            out.append(
                self._generation(
                    next(results),
                    source,
                    plan,
                    engine,
                    lm,
                    constrain=item.constrain,
                    use_cache=source.source_text is None,
                )
            )
        return out

    def _generation(
        self,
        result: GenerationResult,
        source: CompiledSource,
        plan: PromptPlan,
        engine: GrammarEngine | None,
        lm: LoadedModel,
        *,
        constrain: bool,
        use_cache: bool,
        reasoning: Reasoning | None = None,
    ) -> Generation:
        """``result`` of the decode loop as a :class:`Generation`: metrics, validation, grounded
        values, the members a budget close cut."""
        from gramwright.engine.cache import save_engine

        result.metrics.update(plan.metrics())
        if source.closed_objects:
            result.metrics["closed_objects"] = len(source.closed_objects)
        if engine is not None:
            result.metrics["grammar_cache_hit"] = engine.from_cache
            result.metrics["engine_ms"] = round(self._engine_ms, 1)
            if use_cache:
                save_engine(engine)  # the next process starts with warm masks
        section = _split_section(result, reasoning) if reasoning is not None else None
        if section is not None:
            result.text, result.closing_offset = section.value, section.closing_offset
        validation = None
        if source.is_schema:
            validation = validate_output(
                result.text, source.schema, result.finish_reason, registry=source.registry
            )
        grounded: list[GroundedValue] = []
        if source.source_text is not None and validation is not None and validation.parsed:
            from gramwright.schema.grounding import grounded_values

            result.metrics["ground_ms"] = round(source.ground_ms, 2)
            grounded = grounded_values(validation.value, source.schema, source.source_text)
        cut: list[str] = []
        if result.closing_offset is not None and source.is_schema:
            from gramwright.decode.cut import open_json_values

            cut = open_json_values(result.text, result.closing_offset)
        return Generation(
            text=result.text,
            finish_reason=result.finish_reason,
            tokens=len(result.steps),
            metrics=dict(result.metrics),
            model=lm.name,
            validation=validation,
            constrained=constrain,
            device=str(lm.device),
            dtype=lm.dtype,
            token_ids=list(result.token_ids),
            closing_offset=result.closing_offset,
            cut=cut,
            reasoning=None if section is None else section.reasoning,
            reasoning_tokens=None if section is None else section.tokens,
            reasoning_closed_by_budget=False if section is None else section.closed_by_budget,
            grounded=grounded,
        )


@dataclass
class _Section:
    reasoning: str | None
    value: str
    tokens: int
    closed_by_budget: bool
    closing_offset: int | None  # where the budget began to close the value (a character of it)


def _split_section(result: GenerationResult, reasoning: Reasoning) -> _Section:
    """The reasoning section apart from the value, from the steps: the section's tokens are the
    steps up to its closing marker (no token spans the boundary)."""
    from gramwright.reasoning import split_reasoning

    thought, value = split_reasoning(result.text, reasoning)
    size = 0 if thought is None else len(f"{reasoning.open}{thought}{reasoning.close}".encode())
    at = tokens = 0
    section_closed = False
    closing: int | None = None
    for step in result.steps:
        if at < size:
            tokens += 1
            section_closed = section_closed or step.closing
        elif step.closing and closing is None:
            closing = at - size
        at += len(step.text)
    offset = None
    if closing is not None:
        offset = len(value.encode()[:closing].decode("utf-8", "replace"))
    return _Section(thought, value, tokens, section_closed, offset)


def generate_structured(
    source: str | CompiledSource,
    prompt: str,
    *,
    model: str | None = None,
    sampling: SamplingOptions | None = None,
    constrain: bool = True,
    open_objects: bool | None = None,
    on_token: Callable[[StepTrace], None] | None = None,
    progress: Progress = _quiet,
    reasoning: Reasoning | None = None,
    source_text: str | None = None,
    ground: bool = False,
) -> Generation:
    """Generate once: ``source`` is a schema/GBNF path, a bundled grammar name, or a compiled
    source; ``model`` a local HF model directory or ``.gguf`` file (default: the embedded
    SmolLM2-135M-Instruct). The source is compiled before any model is loaded, so a bad source
    fails fast. A schema's objects are closed (no undeclared members) unless ``open_objects`` or
    the schema's ``x-runtime`` ``open_objects: true`` keeps them open. ``source_text``: the
    text the schema's ``x-grounded`` members copy their values from (``ground``: every plain
    string of the schema is grounded); the result lists each grounded value's span in it.
    ``reasoning``: a bounded reasoning section before the value (see :meth:`Generator.run`)."""
    compiled = (
        source.for_generation(open_objects)
        if isinstance(source, CompiledSource)
        else load_for_generation(source, open_objects=open_objects, ground=ground)
    )
    if source_text is not None:
        compiled = compiled.with_source(source_text)
    generator = Generator(model)
    if constrain:  # a budget below the shortest output is refused before the model loads
        generator.check_budget(compiled, (sampling or SamplingOptions()).max_tokens, progress)
    return generator.run(
        compiled,
        prompt,
        sampling=sampling,
        constrain=constrain,
        on_token=on_token,
        progress=progress,
        reasoning=reasoning,
    )
