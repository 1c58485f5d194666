"""The sample panel: prompt in, tokens streamed out, each shaded by its clipped probability mass."""

from __future__ import annotations

import codecs
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, ProgressBar, Static

from gramwright.positions import LineIndex
from gramwright.tui.messages import SampleRequested
from gramwright.tui.sampler import SampleOutcome
from gramwright.tui.widgets.grounding import value_line

DEFAULT_PROMPT = "Order two ThinkPad laptops from Lenovo at 5000 each, urgent."
# Buckets of clipped mass → background: how much of the model's probability the mask removed.
SHADES: tuple[tuple[float, str], ...] = (
    (0.01, ""),
    (0.10, "on #3a2a1a"),
    (0.50, "on #6b3a10"),
    (0.90, "on #8f1f1f"),
    (1.01, "on #c01818"),
)


def shade(clipped_mass: float | None) -> str:
    if clipped_mass is None:
        return ""
    for limit, style in SHADES:
        if clipped_mass < limit:
            return style
    return SHADES[-1][1]


def _bound(value: float) -> str:
    return f"{min(value, 1.0):.2f}".rstrip("0").rstrip(".").removeprefix("0") or "0"


def legend() -> Text:
    """One swatch per shade: ``<.01 · .01–.1 · .1–.5 · .5–.9 · ≥.9`` of clipped probability mass."""
    text = Text("shade = clipped mass ", style="dim")
    lows = (0.0, *(limit for limit, _ in SHADES[:-1]))
    for low, (high, style) in zip(lows, SHADES, strict=True):
        label = (
            f"<{_bound(high)}"
            if low == 0
            else f"≥{_bound(low)}"
            if high > 1
            else f"{_bound(low)}–{_bound(high)}"
        )
        text.append(f" {label} ", style=style or "reverse dim")
        text.append(" ")
    return text


def outcome_text(outcome: SampleOutcome, source: str | None = None) -> Text:
    """The run's numbers, what generation changed, each grounded value's place in ``source`` (the
    prompt, for a schema with ``x-grounded`` members) and the schema's verdict."""
    m = outcome.metrics
    finish_style = "bold green" if outcome.finish_reason == "stop" else "bold yellow"
    text = Text.assemble(
        ("finish: ", "bold"),
        (outcome.finish_reason, finish_style),
        f" · {outcome.tokens} tokens · {m.get('tokens_per_s')} tok/s · {m.get('ms_per_token')} ms/token",
    )
    if "mask_us_p50" in m:
        text.append(
            f"\nmask p50 {m['mask_us_p50']} µs · p99 {m['mask_us_p99']} µs · "
            f"clipped mass avg {m.get('clipped_mass_avg')} max {m.get('clipped_mass_max')} · "
            f"cache hit {m.get('mask_cache_hit_rate')}"
        )
    if m.get("closed_objects"):
        text.append(f"\nobjects closed while generating: {m['closed_objects']} (no undeclared members)")
    if m.get("prompt_note"):
        text.append(f"\nnote: {m['prompt_note']}", style="yellow")
    if outcome.grounded:
        lines = LineIndex(source or "")
        for value in outcome.grounded:
            text.append("\ngrounded ", style="bold")
            text.append_text(value_line(value, lines))
    v = outcome.validation
    if v is not None:
        if v.valid:
            text.append("\nschema validation: ✓ parsed and valid", style="green")
        else:
            errors = "; ".join(v.errors[:3])
            text.append(f"\nschema validation: ✗ {errors}", style="red")
        text.append("  (masks guarantee the form, not the content)", style="dim")
    return text


class SamplePanel(Vertical):
    HELP_TOPIC: ClassVar[str] = "sample"

    def __init__(self, *, id: str, max_tokens: int = 256) -> None:
        super().__init__(id=id)
        self._max_tokens = max_tokens
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._output = Text()
        self.tokens = 0
        self.running = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="sample-bar"):
            yield Input(DEFAULT_PROMPT, placeholder="what to generate; enter runs", id="prompt")
            yield Input(str(self._max_tokens), type="integer", id="max-tokens", tooltip="max tokens")
        with Horizontal(id="sample-progress-bar"):
            yield Static(Text("enter or f8 samples; escape cancels", style="dim"), id="sample-status")
            yield ProgressBar(total=self._max_tokens, show_eta=False, id="sample-progress")
        with VerticalScroll(id="sample-scroll"):
            yield Static("", id="sample-output")
        yield Static("", id="sample-result")
        yield Static(legend(), id="sample-legend")

    @property
    def request(self) -> SampleRequested:
        prompt = self.query_one("#prompt", Input).value.strip() or DEFAULT_PROMPT
        raw = self.query_one("#max-tokens", Input).value.strip()
        max_tokens = int(raw) if raw.isdigit() and int(raw) > 0 else self._max_tokens
        return SampleRequested(prompt, max_tokens)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.request)

    def start(self, max_tokens: int) -> None:
        self.running = True
        self.tokens = 0
        self._decoder.reset()
        self._output = Text()
        self.query_one("#sample-output", Static).update("")
        self.query_one("#sample-result", Static).update("")
        bar = self.query_one("#sample-progress", ProgressBar)
        bar.update(total=max_tokens, progress=0)
        self.show_status("starting…")

    def show_status(self, message: str) -> None:
        self.query_one("#sample-status", Static).update(Text(message, style="italic"))

    def add_token(self, data: bytes, clipped_mass: float | None) -> None:
        self.tokens += 1
        piece = self._decoder.decode(data)
        self._output.append(piece, style=shade(clipped_mass))
        self.query_one("#sample-output", Static).update(self._output)
        self.query_one("#sample-progress", ProgressBar).advance(1)
        self.query_one("#sample-scroll", VerticalScroll).scroll_end(animate=False)

    def finish(self, outcome: SampleOutcome, source: str | None = None) -> None:
        self.running = False
        self.show_status(f"done on {outcome.model}")
        self.query_one("#sample-result", Static).update(outcome_text(outcome, source))

    def stop(self, message: str) -> None:
        self.running = False
        self.show_status(message)

    @property
    def output(self) -> Text:
        """The streamed text; each token's span is styled by its clipped probability mass."""
        return self._output

    @property
    def output_text(self) -> str:
        return self._output.plain
