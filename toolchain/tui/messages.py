"""Messages between the panels and the app (dataclasses, as Textual allows)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class GotoPointer(Message):
    """Move the schema editor's cursor to a JSON Pointer of the schema."""

    pointer: str


@dataclass
class GotoPosition(Message):
    """Move the schema editor's cursor to a 1-based line and column."""

    line: int
    column: int


@dataclass
class ProfileChosen(Message):
    profile: str


@dataclass
class SampleRequested(Message):
    prompt: str
    max_tokens: int


@dataclass
class TokenSampled(Message):
    """One generated token, posted from the generation thread (``post_message`` is thread-safe)."""

    run: int
    text: bytes
    clipped_mass: float | None


@dataclass
class SampleProgress(Message):
    run: int
    message: str
