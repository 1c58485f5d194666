"""Constrained generation for the sample panel: an adapter over :class:`gramwright.generation.Generator`.

The core keeps the model and the engine between runs; this adds what the panel needs: a cancel
(the per-token callback raises :class:`SampleCancelled`) and the outcome type the widgets render.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gramwright.generation import Generation, Generator, SamplingOptions
from gramwright.sources import CompiledSource

Progress = Callable[[str], None]

# What the panel renders is the core's result type itself.
SampleOutcome = Generation


class SampleCancelled(Exception):
    """Raised from the per-token callback when the user cancelled the run."""


class Sampler:
    """One generator (one loaded model) per TUI session."""

    def __init__(self, model: str | None = None) -> None:
        self.generator = Generator(model)

    @property
    def model_loaded(self) -> bool:
        return self.generator.model_loaded

    def run(
        self,
        loaded_grammar: CompiledSource,
        prompt: str,
        *,
        max_tokens: int,
        progress: Progress,
        on_token: Callable[[Any], None],
    ) -> SampleOutcome:
        """Generate under ``loaded_grammar``; ``on_token`` gets each ``StepTrace`` and may raise
        :class:`SampleCancelled` to stop."""
        progress("loading model")
        return self.generator.run(
            loaded_grammar,
            prompt,
            sampling=SamplingOptions(max_tokens=max_tokens),
            on_token=on_token,
            progress=progress,
        )
