"""Check a document against a compiled grammar source: a :class:`CheckResult` with where it stops,
what was allowed there, which schema keyword, and — for a schema's grammar — why a document that
is right in content is still rejected. Pure: the CLI prints it, the TUI shows it.

**Two forms.** ``document`` (the default for a schema's grammar) judges a JSON document as
written — its value, in any member order, number spelling and whitespace — with the same grammar
(:mod:`gramwright.check_value`, which also says who decides where the grammar approximates);
``bytes`` judges the bytes as the grammar generates them (a GBNF grammar is always judged so).

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
from typing import Literal

from gramwright.check_diagnosis import Diagnosis, diagnose, without_whitespace_mapped
from gramwright.check_value import (
    ValidatorVerdict,
    approximation_words,
    approximations,
    judge_value,
    parse_value,
    validator_verdict,
)
from gramwright.positions import line_col
from gramwright.recognizer import InputRejected, Recognizer, describe_bytes
from gramwright.sources import CompiledSource

__all__ = ["CheckForm", "CheckResult", "check_document", "incomplete", "line_col", "rejection"]

CheckForm = Literal["document", "bytes"]


@dataclass
class CheckResult:
    """The verdict on one document. ``to_dict()`` is the ``check --format json`` object."""

    accepted: bool
    # accepted | rejected | incomplete; bytes form: whitespace | member_order | formatting;
    # document form: approximation (the validator rejects what an approximated grammar accepts)
    # | validator (the grammar's search gave up: the validator's verdict)
    reason: str
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
    form: CheckForm = "bytes"
    approximated: list[dict[str, str]] = field(default_factory=list)  # document form
    validator: ValidatorVerdict | None = None  # document form, a JSON document

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
        if self.form == "document":
            out["form"] = self.form
            out["approximated"] = [dict(a) for a in self.approximated]
            out["validator"] = self.validator.to_dict() if self.validator is not None else None
        out["check_ms"] = self.check_ms
        return out


def check_document(
    loaded: CompiledSource,
    rec: Recognizer,
    data: bytes,
    *,
    exact: bool = False,
    flexible: Callable[[], CompiledSource] | None = None,
    form: CheckForm = "document",
) -> CheckResult:
    """Feed ``data`` to ``rec`` (a fresh recognizer of ``loaded``'s grammar) and say why.

    ``exact``: never ignore a final newline. ``flexible``: compiles the same schema with flexible
    whitespace, so that a rejection caused by whitespace can say whether that grammar accepts the
    document (called only then, in the bytes form). ``form``: see the module's docstring."""
    t0 = time.perf_counter()
    as_written = form == "document" and loaded.kind == "schema"
    if as_written:
        flexible = None  # whitespace does not decide a document's verdict: no second compile
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
    if as_written:
        _judge_as_written(loaded, rec, trimmed if result.final_newline_ignored else data, result)
    result.check_ms = round((time.perf_counter() - t0) * 1000, 3)
    return result


_WRITTEN = {
    "whitespace": "without whitespace between tokens",
    "member_order": "with its members in the schema's order",
    "formatting": "with numbers and strings written canonically",
}


def _judge_as_written(loaded: CompiledSource, rec: Recognizer, data: bytes, result: CheckResult) -> None:
    """Turn the bytes verdict in ``result`` into the verdict on the document's value."""
    result.form = "document"
    result.approximated = approximations(loaded)
    validator = result.validator = validator_verdict(loaded, data)
    newline = ""  # whitespace around a JSON value is no part of it: a final newline is not news here
    grammar: bool | None = True
    text = ""
    if not result.accepted:
        if result.diagnosis is not None:
            text = result.diagnosis.accepted_text
        else:
            parsed, value = parse_value(data)
            if not parsed:
                return  # not JSON: the bytes verdict says where it stops
            found = judge_value(loaded, rec, value)
            grammar, text = found.accepted, found.text
    checked = f"; validator (jsonschema): {_validator_words(validator)}" if validator is not None else ""
    if grammar is None:
        valid = validator is not None and validator.valid is True
        result.accepted, result.reason, result.offset = valid, "validator", len(data)
        result.message = (
            "undecided by the grammar (its member-order search ran out of budget); "
            f"the validator decides{checked}{newline}"
        )
        return
    if not grammar:
        _locate_in_compact(loaded, rec, data, result)
        if _has_members(parse_value(data)[1]):
            result.message += (
                "\nnote: no member order of this value is accepted (the place above is in the "
                "document's order)"
            )
        if validator is not None and validator.valid is False:
            result.message += f"\nnote: validator (jsonschema): {_validator_words(validator)}"
        if validator is not None and validator.valid:
            result.message += (
                "\nnote: the validator (jsonschema) finds the document valid: the grammar cannot "
                "write this value (a lone surrogate, or a number beyond a float's range)"
            )
        return
    written = ""
    if not result.accepted:  # the value is accepted in another form than the document's
        cause = result.diagnosis.cause if result.diagnosis is not None else "member_order"
        written = f"\nnote: as written; the grammar generates it {_WRITTEN[cause]}:\n{text}"
        result.accepted, result.reason, result.offset = True, "accepted", len(data)
        result.line = result.column = 0
    if result.approximated:
        rests = f"the verdict rests on approximated keywords ({approximation_words(result.approximated)})"
        if validator is not None and validator.valid is False:
            result.accepted, result.reason = False, "approximation"
            result.message = (
                f"rejected by the validator: the grammar accepts it, but {rests}{checked}{written}{newline}"
            )
            return
        result.message = f"accepted by the grammar; {rests}{checked}{written}{newline}"
        return
    disagrees = ""
    if validator is not None and validator.valid is False:
        disagrees = f"\nnote: the validator (jsonschema) disagrees: {_validator_words(validator)}"
    result.message = f"accepted{written}{newline}{disagrees}"


def _locate_in_compact(loaded: CompiledSource, rec: Recognizer, data: bytes, result: CheckResult) -> None:
    """A rejected value's place in the document: where a compact grammar stops reading it without
    its whitespace (not at the first blank), mapped back to the document's own offsets."""
    if loaded.whitespace != "compact" or result.reason not in ("rejected", "incomplete", "whitespace"):
        return
    compact, where = without_whitespace_mapped(data)
    if compact == data:
        return
    rec.reset()
    again = _verdict(loaded, rec, compact)
    if again.accepted:
        return
    offset = where[again.offset] if again.offset < len(where) else len(data)
    line, col = line_col(data, offset)
    head = again.message.split(" (line ", 1)[-1].split(")", 1)[-1]  # what, allowed and schema
    at = "rejected at" if again.reason == "rejected" else "incomplete: more input expected at"
    notes = result.message.split("\n", 1)[1:] if "\n" in result.message else []
    result.reason, result.offset, result.line, result.column = again.reason, offset, line, col
    result.allowed, result.rules, result.schema_pointers = again.allowed, again.rules, again.schema_pointers
    result.diagnosis = None
    kept = [n for n in notes[:1] if "final newline" in n]
    result.message = f"{at} byte {offset} (line {line}:{col}){head}" + "".join(f"\n{n}" for n in kept)


def _has_members(value: object) -> bool:
    """Some object in ``value`` has two members or more (so member order could matter)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if len(node) > 1:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _validator_words(validator: ValidatorVerdict) -> str:
    if validator.valid is None:
        return "; ".join(validator.errors)
    if validator.valid:
        return "valid"
    more = f" (+{len(validator.errors) - 2} more)" if len(validator.errors) > 2 else ""
    return "invalid: " + "; ".join(validator.errors[:2]) + more


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
