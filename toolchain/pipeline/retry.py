"""The pipeline: layer 1 (the backend's constrained attempt), layer 2 (verdict, budgeted retry with
feedback), layer 3 (salvage, in :mod:`gramwright.pipeline.outcome`).

Budgets are enforced before every attempt and inside it: an attempt's token limit is clipped to
what the token budget has left, and the backend stops at the wall-time deadline — so no budget is
ever exceeded. ``finish_reason=length`` is decided before any parsing: the token limit is raised
once (doubled, within the budget, same prompt — a truncation is not a format error), and a second
truncation goes to layer 3 with the cause recorded.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gramwright.errors import BudgetTooSmall, PipelineError
from gramwright.pipeline.backend import AttemptOutput, AttemptRequest, Backend, GeneratorBackend
from gramwright.pipeline.judge import Judged, judge_text
from gramwright.pipeline.outcome import conclude, succeed
from gramwright.pipeline.policy import Policy
from gramwright.pipeline.prompting import exit_note, feedback_note, user_turn
from gramwright.pipeline.result import Attempt, ResultError, StructuredResult
from gramwright.pipeline.rules import RuleSet, load_rules
from gramwright.sources import CompiledSource, load_source

if TYPE_CHECKING:
    from gramwright.generation import Generator, SamplingOptions

__all__ = ["Attempts", "RulesArg", "attempts", "check_budget", "drive", "prepare", "resolve_rules", "run"]

RulesArg = RuleSet | str | Path | Iterable[Callable[[Any], Any]] | None
# a run's attempts: yields each request, is sent its output (or the BudgetTooSmall it raised)
Attempts = collections.abc.Generator[AttemptRequest, AttemptOutput | BudgetTooSmall, StructuredResult]


def budget_note(cut: list[str], max_tokens: int) -> str:
    """What a retry after a budget close is told: the answer ran out of room, and where."""
    where = ", ".join(p or "/" for p in cut[:8]) or "its last values"
    return (
        f"Your previous answer ran out of room ({max_tokens} tokens) and was closed early; "
        f"these values were cut short: {where}. Keep every value brief."
    )


def resolve_rules(rules: RulesArg, schema: Any) -> RuleSet:
    """The schema's ``x-rules`` plus ``rules``: a RuleSet, a rules-file path, or Python callables."""
    found = load_rules(schema=schema)
    if rules is None:
        return found
    if isinstance(rules, RuleSet):
        return found.merged(rules)
    if isinstance(rules, str | Path):
        return found.merged(load_rules(rules))
    return found.merged(RuleSet.from_callables(rules))


def run(
    source: str | CompiledSource,
    prompt: str,
    *,
    model: str | Generator | None = None,
    policy: Policy | None = None,
    rules: RulesArg = None,
    backend: Backend | None = None,
    sampling: SamplingOptions | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
    source_text: str | None = None,
    server: str | None = None,
    **overrides: Any,
) -> StructuredResult:
    """Run the three layers for ``prompt`` under ``source`` (a JSON Schema path or compiled source).

    ``policy`` defaults to the schema's ``x-runtime`` block; ``overrides`` replace policy fields
    (``max_attempts=1``, ``partial_ok=False``, …). ``backend`` replaces the model (tests, or a
    :class:`gramwright.serving.ServerBackend` kept between calls); ``server`` is a serving
    engine's URL (vLLM, SGLang, llama.cpp: the dialect is asked from the server).
    ``on_attempt`` sees each attempt as soon as it is judged (its errors, and the feedback its
    prompt carried); an exception it raises stops the run there and propagates (a cancel).
    ``source_text``: the text the schema's ``x-grounded`` members copy their values from (built
    once per text and cached: retries rebuild nothing); the result lists each grounded value's
    span in it."""
    compiled, policy = prepare(source, policy, source_text, **overrides)
    compiled = ground_in_prompt(compiled, prompt)
    if backend is None and server is not None:
        from gramwright.serving.backend import ServerBackend

        backend = ServerBackend(server)
    if backend is None:
        backend = (
            GeneratorBackend(model=model)
            if model is None or isinstance(model, str)
            else GeneratorBackend(model)
        )
    check_budget(backend, compiled, policy)
    ruleset = resolve_rules(rules, compiled.schema)
    steps = attempts(compiled, prompt, policy=policy, rules=ruleset, sampling=sampling, on_attempt=on_attempt)
    return drive(steps, backend.generate)


def prepare(
    source: str | CompiledSource, policy: Policy | None, source_text: str | None = None, **overrides: Any
) -> tuple[CompiledSource, Policy]:
    """The source a run generates under (compiled, objects closed or not as the policy says,
    grounded in ``source_text``) and the run's policy (``x-runtime`` ← ``overrides``)."""
    compiled = source if isinstance(source, CompiledSource) else load_source(source)
    if not compiled.is_schema:
        raise PipelineError(
            "the pipeline validates against a JSON Schema",
            where=compiled.name,
            hint="give a schema .json; a GBNF grammar has no schema to validate with",
        )
    policy = (policy or Policy.from_schema(compiled.schema)).with_overrides(**overrides)
    # closed objects while generating, unless the policy (x-runtime, the caller) keeps them open
    compiled = compiled.for_generation(policy.open_objects)
    if source_text is not None:
        compiled = compiled.with_source(source_text)
    return compiled, policy


def ground_in_prompt(compiled: CompiledSource, prompt: str) -> CompiledSource:
    """A schema with ``x-grounded`` members and no source text of its own copies their values from
    the prompt: in extraction the prompt is the text the values come from. Without this, grounded
    members would fall back to any value at all, and the result would look grounded when it was not."""
    if compiled.grounded and compiled.source_text is None:
        return compiled.with_source(prompt)
    return compiled


def check_budget(backend: Any, source: CompiledSource, policy: Policy) -> None:
    """A first-attempt limit below the shortest output: refused before the model loads."""
    check = getattr(backend, "check_budget", None)
    if check is not None and policy.decode_mode == "constrained":
        check(source, min(policy.max_tokens, policy.token_budget))


def attempts(
    source: CompiledSource,
    prompt: str,
    *,
    policy: Policy,
    rules: RuleSet,
    sampling: SamplingOptions | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> Attempts:
    """The run's attempts as a generator: it yields each :class:`AttemptRequest`, is sent that
    attempt's :class:`AttemptOutput` (or the ``BudgetTooSmall`` the backend raised for it) and
    returns the :class:`StructuredResult`. :func:`run` drives it one attempt at a time;
    :mod:`gramwright.pipeline.rounds` drives many rows' generators together, each round's
    attempts in one batch — the same decisions either way. ``source`` is :func:`prepare`'s."""
    return _Loop(source, policy, rules, sampling, on_attempt).steps(prompt)


def drive(steps: Attempts, generate: Callable[[AttemptRequest], AttemptOutput]) -> StructuredResult:
    """Run ``steps`` to its result, each attempt by ``generate``."""
    got = _advance(steps, None)
    while isinstance(got, AttemptRequest):
        try:
            out: AttemptOutput | BudgetTooSmall = generate(got)
        except BudgetTooSmall as exc:  # what the token budget left cannot hold any output
            out = exc
        got = _advance(steps, out)
    return got


def _advance(
    steps: Attempts, sent: AttemptOutput | BudgetTooSmall | None
) -> AttemptRequest | StructuredResult:
    """The next request of ``steps``, or its result once it has none."""
    try:
        return next(steps) if sent is None else steps.send(sent)
    except StopIteration as stop:
        result: StructuredResult = stop.value
        return result


class _Loop:
    def __init__(
        self,
        source: CompiledSource,
        policy: Policy,
        rules: RuleSet,
        sampling: SamplingOptions | None,
        on_attempt: Callable[[Attempt], None] | None = None,
    ) -> None:
        self.source = source
        self.on_attempt = on_attempt
        self.policy = policy
        self.rules = rules
        self.sampling = sampling
        self.attempts: list[Attempt] = []
        self.tokens = 0
        self.seconds = 0.0
        # how the prompt showed the schema (and why it left it out), objects closed: the metrics say
        self.prompt_facts: dict[str, Any] = {}

    def steps(self, prompt: str) -> Attempts:
        result = yield from self._attempts(prompt)
        result.metrics.update(self.prompt_facts)
        source = self.source
        if source.source_text is not None:
            from gramwright.schema.grounding import grounded_values

            result.metrics["ground_ms"] = round(source.ground_ms, 2)
            if result.value is not None:
                result.grounded = grounded_values(result.value, source.schema, source.source_text)
        return result

    def _attempts(self, prompt: str) -> Attempts:
        policy, constrain = self.policy, self.policy.decode_mode == "constrained"
        exits, feedback, limit, raised = exit_note(self.source.schema), "", policy.max_tokens, False
        best: Judged | None = None
        cause, cause_error = "attempts", None
        for index in range(policy.max_attempts):
            tokens_left = policy.token_budget - self.tokens
            seconds_left = policy.time_budget_s - self.seconds
            if tokens_left <= 0 or seconds_left <= 0:
                cause, cause_error = self._spent(tokens_left <= 0)
                break
            max_tokens = min(limit, tokens_left)
            request = AttemptRequest(
                self.source,
                user_turn(prompt, exits=exits, feedback=feedback),
                prompt,
                index,
                max_tokens,
                seconds_left,
                constrain,
                self.sampling,
            )
            got = yield request
            if isinstance(got, BudgetTooSmall):  # what the token budget left cannot hold any output
                cause, cause_error = "token budget", ResultError("", "budget", got.one_line())
                break
            out = self._checked(got, request)
            judged = judge_text(
                out.text,
                out.finish_reason,
                index=index,
                schema=self.source.schema,
                registry=self.source.registry,
                rules=self.rules,
                made_with_mask=constrain,
                source_text=self.source.source_text,
            )
            if out.grammar_error:  # a server that did not enforce the grammar: never ok
                judged.errors.insert(0, ResultError("", "grammar", out.grammar_error))
            self._record(index, out, request, judged, feedback)
            if self.on_attempt is not None:
                self.on_attempt(self.attempts[-1])
            if judged.ok:
                return succeed(judged, self.attempts, self.rules, layer=1 if index == 0 else 2, policy=policy)
            if best is None or judged.rank() > best.rank():
                best = judged
            if out.finish_reason == "timeout":
                cause, cause_error = self._spent(False)
                break
            if out.closed_by_budget and not raised and index + 1 < policy.max_attempts:
                # complete but closed early: more room, and the members that were cut named
                raised_limit = min(2 * limit, policy.token_budget - self.tokens)
                if max_tokens == limit and raised_limit > limit:
                    limit, raised = raised_limit, True
            if out.finish_reason == "length":
                raised_limit = min(2 * limit, policy.token_budget - self.tokens)
                if (
                    not raised
                    and max_tokens == limit
                    and raised_limit > limit
                    and index + 1 < policy.max_attempts
                ):
                    limit, raised = raised_limit, True
                    continue  # the same prompt with more room: a truncation is not a format error
                clipped = max_tokens < limit  # the budget, not the limit, ended this attempt
                cause = "token budget" if clipped else "truncated"
                why = (
                    f"; the token budget ({policy.token_budget}) left no more room"
                    if clipped
                    else (" after raising max_tokens once" if raised else "")
                )
                cause_error = ResultError(
                    "",
                    "finish_reason",
                    f"cut at {max_tokens} tokens (finish_reason=length){why}; not parsed as complete",
                )
                break
            if not policy.feedback_on_fail and (self.sampling is None or self.sampling.temperature == 0):
                cause = "no retry"
                cause_error = ResultError(
                    "", "budget", "greedy decoding without feedback would repeat the output"
                )
                break
            feedback = feedback_note(judged.errors) if policy.feedback_on_fail else ""
            if out.closed_by_budget and policy.feedback_on_fail:
                feedback = "\n\n".join(part for part in (feedback, budget_note(out.cut, max_tokens)) if part)
        else:
            cause_error = ResultError("", "budget", f"no valid output in {policy.max_attempts} attempt(s)")
        return conclude(
            best,
            self.attempts,
            policy=policy,
            schema=self.source.schema,
            registry=self.source.registry,
            rules=self.rules,
            cause=cause,
            cause_error=cause_error,
            source_text=self.source.source_text,
        )

    def _spent(self, tokens: bool) -> tuple[str, ResultError]:
        if tokens:
            return "token budget", ResultError(
                "", "budget", f"token budget spent: {self.tokens} of {self.policy.token_budget} output tokens"
            )
        return "time budget", ResultError(
            "", "budget", f"time budget spent: {self.seconds:.1f} of {self.policy.time_budget_s:g} s"
        )

    def _checked(self, out: AttemptOutput, request: AttemptRequest) -> AttemptOutput:
        # a backend that overspends would make the budgets a lie: refuse it loudly
        if out.output_tokens > request.max_tokens:
            raise PipelineError(
                f"the backend produced {out.output_tokens} tokens; the limit was {request.max_tokens}"
            )
        return out

    def _record(
        self, index: int, out: AttemptOutput, request: AttemptRequest, judged: Judged, feedback: str
    ) -> None:
        self.tokens += out.output_tokens
        self.seconds += out.seconds
        for key in ("schema_in_prompt", "prompt_note", "closed_objects", "server"):
            if key in out.metrics:
                self.prompt_facts[key] = out.metrics[key]
        if "server_grammar_check" in out.metrics:  # one verdict per attempt, in order
            self.prompt_facts.setdefault("server_grammar_checks", []).append(
                out.metrics["server_grammar_check"]
            )
            for key in ("server_retries", "server_wait_s"):
                self.prompt_facts[key] = self.prompt_facts.get(key, 0) + out.metrics.get(key, 0)
        mass = out.metrics.get("clipped_mass_avg")
        self.attempts.append(
            Attempt(
                index,
                out.prompt_tokens,
                out.output_tokens,
                out.seconds,
                out.finish_reason,
                out.text,
                request.max_tokens,
                list(judged.errors),
                judged.parsed,
                judged.ok,
                float(mass) if mass is not None else None,
                feedback,
                out.closed_by_budget,
                list(out.cut),
            )
        )
