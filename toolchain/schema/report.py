"""CompileReport: what the compiler did with every keyword occurrence it visited.

Each keyword occurrence (JSON Pointer of the keyword, e.g. ``/properties/qty/minimum``) is compiled
``exact`` (the grammar enforces it for every canonical serialisation), ``approximated`` (the grammar
accepts a superset: validation must check it) or ``discarded`` (not enforced at all). Annotations
(title, description, default, examples, …), ``x-*`` extension keys and unknown keywords carry no
assertion and get no entry. The grammar is always a superset of the schema's language, never a
subset: whatever is not exact is listed here, so validation knows what to check.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from gramwright.regex.errors import INVALID_REGEX

Status = Literal["exact", "approximated", "discarded"]

_RANK: dict[str, int] = {"exact": 0, "approximated": 1, "discarded": 2}


@dataclass(frozen=True, slots=True)
class ReportEntry:
    pointer: str
    keyword: str
    status: Status
    reason: str = ""

    @property
    def invalid_regex(self) -> bool:
        """A ``pattern`` dropped because it is no regular expression at all: a schema error (the
        linter's ``meta/invalid-schema``), not a limit of the grammar."""
        return self.status == "discarded" and INVALID_REGEX in self.reason

    def to_dict(self) -> dict[str, str]:
        return {
            "pointer": self.pointer,
            "keyword": self.keyword,
            "status": self.status,
            "reason": self.reason,
        }


@dataclass
class CompileReport:
    """Entries keyed by pointer; when a keyword is compiled in several contexts the worst status wins."""

    _entries: dict[str, ReportEntry] = field(default_factory=dict)

    def add(self, pointer: str, keyword: str, status: Status, reason: str = "") -> None:
        old = self._entries.get(pointer)
        if old is None or _RANK[status] > _RANK[old.status]:
            self._entries[pointer] = ReportEntry(pointer, keyword, status, reason)

    @property
    def entries(self) -> list[ReportEntry]:
        return list(self._entries.values())

    def __iter__(self) -> Iterator[ReportEntry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def is_exact(self, pointer: str) -> bool:
        entry = self._entries.get(pointer)
        return entry is None or entry.status == "exact"

    def inexact(self) -> list[ReportEntry]:
        """Entries the grammar does not enforce exactly (what validation must still check)."""
        return [e for e in self._entries.values() if e.status != "exact"]

    @property
    def exact(self) -> bool:
        return not self.inexact()

    def to_list(self) -> list[dict[str, str]]:
        return [e.to_dict() for e in self._entries.values()]

    def summary(self) -> str:
        counts = {"exact": 0, "approximated": 0, "discarded": 0}
        for e in self._entries.values():
            counts[e.status] += 1
        return ", ".join(f"{n} {k}" for k, n in counts.items())
