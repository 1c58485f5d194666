"""Worker errors, in one place: the last one as one line; every one in full on demand (f2)."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

MAX_KEPT = 50


@dataclass(frozen=True)
class ErrorRecord:
    source: str  # which work failed: lint, compile, check, sample, save, …
    message: str  # one line
    detail: str  # the traceback, or the message again for expected errors
    when: float

    @property
    def line(self) -> str:
        return f"{self.source}: {self.message}"


def one_line(exc: BaseException) -> str:
    """The toolchain's errors say themselves in one line (``one_line()``); others get their type."""
    method = getattr(exc, "one_line", None)
    if callable(method):
        return str(method())
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def record(source: str, exc: BaseException) -> ErrorRecord:
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return ErrorRecord(source, one_line(exc), detail, time.time())


class ErrorBar(Static):
    """One line above the footer: the latest error, or nothing."""

    def __init__(self, *, id: str) -> None:
        super().__init__("", id=id)
        self.records: list[ErrorRecord] = []

    def add(self, rec: ErrorRecord) -> None:
        self.records = [*self.records[-(MAX_KEPT - 1) :], rec]
        more = f" (+{len(self.records) - 1} earlier)" if len(self.records) > 1 else ""
        self.update(Text.assemble(("✗ ", "bold red"), rec.line, (f"{more} — f2 for detail", "dim")))
        self.add_class("-error")

    def clear_source(self, source: str) -> None:
        """The work that failed has since succeeded: stop showing its error (the log keeps it)."""
        if self.records and self.records[-1].source == source:
            self.update("")
            self.remove_class("-error")
