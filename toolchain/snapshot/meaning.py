"""What a snapshot change means for the model: is the language it may write wider or narrower?

Computed from data, never from diff lines: the language facts of the old and the new schema
(enum members, declared and required members, closed objects, types, consts) and the old and new
compile reports (a keyword that moved from exact to approximated lets the grammar accept more;
validation must then catch what it no longer enforces). Where a change cannot be judged in one
direction (a const replaced, a member declared on an open object), it is reported as ``changed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from gramwright.schema.report import ReportEntry
from gramwright.snapshot.document import Fact, dump_json_value

__all__ = ["Direction", "LanguageChange", "language_changes"]

Direction = Literal["wider", "narrower", "changed"]
_RANK = {"exact": 0, "approximated": 1, "discarded": 2}


@dataclass(frozen=True, slots=True)
class LanguageChange:
    """One change in what the model may write: ``wider`` (more outputs allowed), ``narrower``
    (fewer) or ``changed`` (some of each, or not decidable from the facts)."""

    direction: Direction
    pointer: str
    what: str

    def to_dict(self) -> dict[str, str]:
        return {"direction": self.direction, "pointer": self.pointer, "what": self.what}


def _index(facts: Iterable[Fact]) -> dict[tuple[str, str], Any]:
    return {(f.kind, f.pointer): f.value for f in facts}


def _where(pointer: str) -> str:
    return pointer or "/"


def _set_change(
    old: list[str], new: list[str], pointer: str, noun: str, grows: Direction
) -> list[LanguageChange]:
    """Members added to / removed from a set whose growth makes the language ``grows``."""
    shrinks: Direction = "narrower" if grows == "wider" else "wider"
    out: list[LanguageChange] = []
    added = [v for v in new if v not in old]
    removed = [v for v in old if v not in new]
    if added:
        out.append(LanguageChange(grows, pointer, f"{noun} added: {', '.join(added)}"))
    if removed:
        out.append(LanguageChange(shrinks, pointer, f"{noun} removed: {', '.join(removed)}"))
    return out


def _fact_changes(old: dict[tuple[str, str], Any], new: dict[tuple[str, str], Any]) -> list[LanguageChange]:
    out: list[LanguageChange] = []
    for key in sorted(set(old) | set(new), key=lambda k: (k[1], k[0])):
        kind, pointer = key
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        where = _where(pointer)
        if kind == "enum":
            if before is None or after is None:
                what = "enum added: only its members may be written" if before is None else "enum removed"
                out.append(LanguageChange("narrower" if before is None else "wider", pointer, what))
            else:
                # members as JSON text, so 1 and "1" stay different members
                old_members = [dump_json_value(v) for v in before]
                new_members = [dump_json_value(v) for v in after]
                out += _set_change(old_members, new_members, pointer, "enum member", "wider")
        elif kind == "type":
            if before is None or after is None:
                direction: Direction = "narrower" if before is None else "wider"
                out.append(
                    LanguageChange(direction, pointer, f"type {'added' if before is None else 'removed'}")
                )
            else:
                out += _set_change(before, after, pointer, "type", "wider")
        elif kind == "required":
            declared = set(new.get(("properties", pointer)) or ())
            for name in [n for n in before or [] if n not in (after or [])]:
                what = (
                    f"member {name!r} became optional" if name in declared else f"{name!r} no longer required"
                )
                out.append(LanguageChange("wider", pointer, what))
            for name in [n for n in after or [] if n not in (before or [])]:
                out.append(LanguageChange("narrower", pointer, f"member {name!r} became required"))
        elif kind == "properties":
            closed = bool(new.get(("closed", pointer), old.get(("closed", pointer), False)))
            # On a closed object a declared member is one more the model may write; on an open
            # one any member was already allowed and declaring it constrains its value.
            grows: Direction = "wider" if closed else "narrower"
            out += _set_change(list(before or []), list(after or []), pointer, "member", grows)
        elif kind == "closed" and before is not None and after is not None:
            what = f"object at {where} {'closed' if after else 'opened'} to undeclared members"
            out.append(LanguageChange("narrower" if after else "wider", pointer, what))
        elif kind == "const":
            text = f"const {dump_json_value(before)} → {dump_json_value(after)}"
            out.append(LanguageChange("changed", pointer, text))
    return out


def _report_changes(old: list[ReportEntry], new: list[ReportEntry]) -> list[LanguageChange]:
    before = {e.pointer: e for e in old}
    after = {e.pointer: e for e in new}
    out: list[LanguageChange] = []
    for pointer in sorted(set(before) | set(after)):
        a, b = before.get(pointer), after.get(pointer)
        if a is not None and b is not None:
            if a.status == b.status:
                continue
            looser = _RANK[b.status] > _RANK[a.status]
            what = f"{b.keyword} moved from {a.status} to {b.status}"
            if looser:
                what += " (the grammar no longer enforces it; validation must)"
            out.append(LanguageChange("wider" if looser else "narrower", pointer, what))
        elif b is not None:
            if b.status == "exact":
                out.append(LanguageChange("narrower", pointer, f"{b.keyword} added, enforced by the grammar"))
            else:
                what = f"{b.keyword} added, {b.status} (the grammar does not enforce it; validation must)"
                out.append(LanguageChange("changed", pointer, what))
        elif a is not None and a.status == "exact":
            out.append(LanguageChange("wider", pointer, f"{a.keyword} removed, was enforced by the grammar"))
    return out


def language_changes(
    old_facts: Iterable[Fact],
    new_facts: Iterable[Fact],
    old_report: list[ReportEntry],
    new_report: list[ReportEntry],
) -> list[LanguageChange]:
    """The changes between two snapshots' data, facts first, then the compile report."""
    return _fact_changes(_index(old_facts), _index(new_facts)) + _report_changes(old_report, new_report)


def summary(changes: Iterable[LanguageChange]) -> Direction | None:
    """One word for all changes: ``wider``/``narrower`` when they agree, else ``changed``."""
    directions = {c.direction for c in changes}
    if not directions:
        return None
    return directions.pop() if len(directions) == 1 else "changed"
