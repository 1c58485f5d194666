"""Check a document against a loaded grammar: a verdict with where, what was allowed, and which
schema keyword. Pure: the CLI prints it, the TUI shows it."""

from __future__ import annotations

from gramwright.recognizer import InputRejected, Recognizer, describe_bytes
from gramwright.sources import LoadedGrammar


def line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in code points) of a byte offset."""
    before = data[:offset]
    line = before.count(b"\n") + 1
    last = before.rfind(b"\n")
    col = len(before[last + 1 :].decode("utf-8", "replace")) + 1
    return line, col


def check_document(loaded: LoadedGrammar, rec: Recognizer, data: bytes) -> dict[str, object]:
    """Feed ``data``; a verdict dict with the reason (pure: the CLI and the TUI render it).

    A grammar compiled from a schema writes object members in one order (the schema's). When a
    document is rejected, but the same JSON value is accepted with its members reordered, the
    verdict says so (``reordered_text``): the grammar still rejects these bytes — a model under
    its mask only ever writes the other order — but the document is not wrong in content."""
    verdict = _feed(loaded, rec, data)
    if not verdict["accepted"] and loaded.kind == "schema":
        canonical = _reordered(loaded, rec, data)
        if canonical is not None:
            verdict["reason"] = "member_order"
            verdict["reordered_text"] = canonical
            verdict["message"] = (
                f"{verdict['message']}\n"
                "note: the same JSON value with its members in the schema's order is accepted — "
                "the compiled grammar writes (and accepts) object members in that order only:\n"
                f"{canonical}"
            )
    return verdict


def _reordered(loaded: LoadedGrammar, rec: Recognizer, data: bytes) -> str | None:
    """The document's value in an order the grammar accepts, if it parses and one exists."""
    import json

    from gramwright.schema.canonical import KeyOrder, SearchBudgetExceeded, is_text_of, recorded_text

    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    rec.reset()
    try:
        found = recorded_text(rec, value, budget=20_000, key_order=KeyOrder(loaded.member_orders))
    except (SearchBudgetExceeded, ValueError, TypeError):
        return None
    if found is None:
        return None
    # the recording must be this very value, accepted from the start (guards the search's bookkeeping)
    rec.reset()
    return found.decode("utf-8") if is_text_of(rec, found, value) else None


def _schema_pointers(loaded: LoadedGrammar, rules: list[str]) -> tuple[list[str], str]:
    """The schema pointers of ``rules`` and the message's " (schema: …)" part (the root: '#')."""
    pointers = loaded.pointers_for(rules)
    return pointers, f" (schema: {', '.join(p or '#' for p in pointers)})" if pointers else ""


def _feed(loaded: LoadedGrammar, rec: Recognizer, data: bytes) -> dict[str, object]:
    try:
        rec.feed(data)
    except InputRejected as exc:
        line, col = line_col(data, exc.position)
        pointers, where = _schema_pointers(loaded, exc.active_rules)
        if exc.accepting and not exc.allowed:
            what = "unexpected content after a complete document"
        else:
            what = f"byte {exc.byte:#04x} ({chr(exc.byte)!r}) not allowed"
        return {
            "accepted": False,
            "reason": "rejected",
            "offset": exc.position,
            "line": line,
            "column": col,
            "allowed": describe_bytes(exc.allowed),
            "rules": exc.active_rules,
            "schema_pointers": pointers,
            "message": (
                f"rejected at byte {exc.position} (line {line}:{col}): {what}; "
                f"allowed: {describe_bytes(exc.allowed)}{where}"
            ),
        }
    if not rec.is_accepting():
        line, col = line_col(data, len(data))
        pointers, where = _schema_pointers(loaded, rec.active_rules())
        return {
            "accepted": False,
            "reason": "incomplete",
            "offset": len(data),
            "line": line,
            "column": col,
            "allowed": describe_bytes(rec.allowed_bytes()),
            "rules": rec.active_rules(),
            "schema_pointers": pointers,
            "message": (
                f"incomplete: more input expected at byte {len(data)} (line {line}:{col}); "
                f"allowed: {describe_bytes(rec.allowed_bytes())}{where}"
            ),
        }
    return {"accepted": True, "reason": "accepted", "offset": len(data), "message": "accepted"}
