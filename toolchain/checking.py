"""Check a document against a compiled grammar source: a :class:`CheckResult` with where it stops,
what was allowed there, which schema keyword, and — for a schema's grammar — why a document that
is right in content is still rejected. Pure: the CLI prints it, the TUI shows it.

Two conveniences, each said in the verdict when used:

* **The final newline.** Files end with one; some grammars accept it (llama.cpp's ``list.gbnf``
  ends every item with ``"\\n"``), most schema grammars do not. The bytes are tried as they are
  first; one final ``\\n`` / ``\\r\\n`` is ignored only when the grammar does not accept it there
  (``exact`` turns this off).
* **The diagnosis** of a rejected JSON document under a schema's grammar
  (:mod:`gramwright.check_diagnosis`): whitespace (the grammar is compact), member order (it writes
  members in schema order only) or the canonical form of a number or string.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gramwright.check_diagnosis import Diagnosis, diagnose
from gramwright.positions import line_col
from gramwright.recognizer import InputRejected, Recognizer, describe_bytes
from gramwright.sources import CompiledSource

__all__ = ["CheckResult", "check_document", "incomplete", "line_col", "rejection"]


@dataclass
class CheckResult:
    """The verdict on one document. ``to_dict()`` is the ``check --format json`` object."""

    accepted: bool
    reason: str  # accepted | rejected | incomplete | whitespace | member_order | formatting
    offset: int  # where the recognizer stopped (the end when accepted or incomplete)
    message: str  # the whole verdict in words: what the CLI prints
    line: int = 0  # 1-based, of ``offset``; 0 when accepted
    column: int = 0
    allowed: str = ""
    rules: list[str] = field(default_factory=list)
    schema_pointers: list[str] = field(default_factory=list)
    final_newline_ignored: bool = False
    diagnosis: Diagnosis | None = None
    check_ms: float = 0.0

    @property
    def note(self) -> str:
        """The diagnosis in words ("" when there is none)."""
        return self.diagnosis.note if self.diagnosis else ""

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"accepted": self.accepted, "reason": self.reason, "offset": self.offset}
        if not self.accepted:
            out.update(
                line=self.line,
                column=self.column,
                allowed=self.allowed,
                rules=list(self.rules),
                schema_pointers=list(self.schema_pointers),
            )
        out["message"] = self.message
        out["final_newline_ignored"] = self.final_newline_ignored
        if self.diagnosis is not None:
            out.update(self.diagnosis.to_dict())
        out["check_ms"] = self.check_ms
        return out


def check_document(
    loaded: CompiledSource,
    rec: Recognizer,
    data: bytes,
    *,
    exact: bool = False,
    flexible: Callable[[], CompiledSource] | None = None,
) -> CheckResult:
    """Feed ``data`` to ``rec`` (a fresh recognizer of ``loaded``'s grammar) and say why.

    ``exact``: never ignore a final newline. ``flexible``: compiles the same schema with flexible
    whitespace, so that a rejection caused by whitespace can say whether that grammar accepts the
    document (called only then)."""
    t0 = time.perf_counter()
    result = _verdict(loaded, rec, data)
    trimmed = data.removesuffix(b"\r\n") if data.endswith(b"\r\n") else data.removesuffix(b"\n")
    if not result.accepted and not exact and len(trimmed) < len(data):
        rec.reset()
        again = _verdict(loaded, rec, trimmed)
        # the trimmed verdict when it passes, or when the bytes as they are stopped at the newline
        if again.accepted or (result.reason == "rejected" and result.offset >= len(trimmed)):
            result = again
            result.final_newline_ignored = True
            what = "accepted" if again.accepted else "checked"
            result.message += (
                f"\nnote: {what} without the final newline, which the grammar does not accept "
                "there (--exact keeps it)"
            )
    if not result.accepted and loaded.kind == "schema":
        fed = trimmed if result.final_newline_ignored else data
        diagnosis = diagnose(loaded, rec, fed, flexible)
        if diagnosis is not None:
            result.reason = diagnosis.cause
            result.diagnosis = diagnosis
            result.message += f"\nnote: {diagnosis.note}"
    result.check_ms = round((time.perf_counter() - t0) * 1000, 3)
    return result


def _schema_pointers(loaded: CompiledSource, rules: list[str]) -> tuple[list[str], str]:
    """The schema pointers of ``rules`` and the message's " (schema: …)" part (the root: '#')."""
    pointers = loaded.pointers_for(rules)
    return pointers, f" (schema: {', '.join(p or '#' for p in pointers)})" if pointers else ""


def _verdict(loaded: CompiledSource, rec: Recognizer, data: bytes) -> CheckResult:
    try:
        rec.feed(data)
    except InputRejected as exc:
        return rejection(loaded, data, exc)
    if not rec.is_accepting():
        return incomplete(loaded, data, rec)
    return CheckResult(accepted=True, reason="accepted", offset=len(data), message="accepted")


def rejection(loaded: CompiledSource, data: bytes, exc: InputRejected) -> CheckResult:
    """The verdict on ``data`` (the input up to at least the rejected byte) when ``exc`` says
    where the recognizer stopped: also what ``check --stream`` reports the moment it happens."""
    if exc.accepting and not exc.allowed:
        what = "unexpected content after a complete document"
    else:
        what = f"byte {exc.byte:#04x} ({chr(exc.byte)!r}) not allowed"
    return _stopped(loaded, data, "rejected", exc.position, exc.allowed, exc.active_rules, what)


def incomplete(loaded: CompiledSource, data: bytes, rec: Recognizer) -> CheckResult:
    """The verdict on ``data``, all of it read by ``rec`` without reaching an accepting state."""
    return _stopped(loaded, data, "incomplete", len(data), rec.allowed_bytes(), rec.active_rules(), "")


def _stopped(
    loaded: CompiledSource,
    data: bytes,
    reason: str,
    offset: int,
    allowed: frozenset[int],
    rules: list[str],
    what: str,
) -> CheckResult:
    line, col = line_col(data, offset)
    pointers, where = _schema_pointers(loaded, rules)
    shown = describe_bytes(allowed)
    if reason == "rejected":
        head = f"rejected at byte {offset} (line {line}:{col}): {what}"
    else:
        head = f"incomplete: more input expected at byte {offset} (line {line}:{col})"
    return CheckResult(
        accepted=False,
        reason=reason,
        offset=offset,
        message=f"{head}; allowed: {shown}{where}",
        line=line,
        column=col,
        allowed=shown,
        rules=list(rules),
        schema_pointers=pointers,
    )
