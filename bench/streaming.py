"""Streaming soundness on JSONSchemaBench: value events never retract and come exactly when the
rule says; ``check --stream`` names the same first infeasible byte as the whole-document check.

For every valid test instance whose schema compiles, the text our grammar accepts (compact,
schema member order) is fed to :class:`gramwright.streaming.ValueStream` byte by byte and token by
token (the real SmolLM2 tokenizer). An independent reader (a recursive-descent parser here, not
the stream's own) lists every member with its span; checked:

* every member gets exactly one value event, and its value equals the member in the complete
  document (an event is never taken back);
* each event comes in the very piece (byte or token) that reads the byte the rule names: a
  string, object or array at its last byte; a number or literal at its last byte when the
  recognizer allows no byte there that would continue it, else at the next byte or, at the end
  of the document, when the input is finished.

Then ``--mutations`` documents, each an instance's text with one byte changed, inserted or
deleted, go through :class:`gramwright.streaming.check.StreamCheck` byte by byte and in random
pieces: the first rejection reported while streaming must name the offset (and line:col,
allowed bytes, schema pointers) of the whole-document ``check``, or none be reported when that
check says incomplete or accepted.

    python -m bench.streaming --json [--instances 600] [--mutations 1200]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.masks import DATA, SPLITS, accepted_text

_WS = b" \t\n\r"
_NUMBER_FOLLOW = frozenset(b"0123456789.eE+-")
_LITERAL_FOLLOW = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# -- an independent reader of a complete document: every member's pointer, kind and span ------


def members(doc: bytes) -> list[tuple[str, str, int, int]]:
    """(pointer, kind, start, end) of every value in ``doc``, depth first, post-order."""
    out: list[tuple[str, str, int, int]] = []
    end = _value(doc, _skip(doc, 0), "", out)
    assert _skip(doc, end) == len(doc), "trailing content"
    return out


def _skip(doc: bytes, i: int) -> int:
    while i < len(doc) and doc[i] in _WS:
        i += 1
    return i


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _string_end(doc: bytes, i: int) -> int:
    i += 1
    while doc[i] != 0x22:
        i += 2 if doc[i] == 0x5C else 1
    return i + 1


def _value(doc: bytes, i: int, pointer: str, out: list[tuple[str, str, int, int]]) -> int:
    c = doc[i]
    if c == 0x7B or c == 0x5B:
        kind, close = ("object", 0x7D) if c == 0x7B else ("array", 0x5D)
        j, index = _skip(doc, i + 1), 0
        while doc[j] != close:
            if kind == "object":
                k_end = _string_end(doc, j)
                child = f"{pointer}/{_escape(json.loads(doc[j:k_end]))}"
                j = _skip(doc, _skip(doc, k_end) + 1)  # past the colon
            else:
                child = f"{pointer}/{index}"
            j = _skip(doc, _value(doc, j, child, out))
            index += 1
            if doc[j] == 0x2C:
                j = _skip(doc, j + 1)
        out.append((pointer, kind, i, j + 1))
        return j + 1
    if c == 0x22:
        end = _string_end(doc, i)
        out.append((pointer, "string", i, end))
        return end
    j = i
    while j < len(doc) and doc[j] not in b",]} \t\n\r":
        j += 1
    kind = "number" if c == 0x2D or 0x30 <= c <= 0x39 else ("null" if c == 0x6E else "boolean")
    out.append((pointer, kind, i, j))
    return j


def rule_final_at(compiled: Any, doc: bytes, kind: str, end: int) -> int | None:
    """Bytes read when the rule makes a value final; None: only when the input is finished."""
    from gramwright.recognizer import Recognizer

    if kind in ("string", "object", "array"):
        return end
    rec = Recognizer(compiled)
    rec.feed(doc[:end])
    follow = _NUMBER_FOLLOW if kind == "number" else _LITERAL_FOLLOW
    if not rec.allowed_bytes() & follow:
        return end
    return end + 1 if end < len(doc) else None


def stream_problems(compiled: Any, doc: bytes, pieces: list[bytes]) -> list[str]:
    """What is wrong with the value events of ``doc`` fed in ``pieces`` (empty: nothing)."""
    from gramwright.streaming import ValueStream

    assert b"".join(pieces) == doc
    stream = ValueStream(compiled)
    seen: dict[str, tuple[Any, int | None]] = {}  # pointer -> (value, piece index; None: finish)
    problems: list[str] = []
    ends: list[int] = []
    read = 0
    for n, piece in enumerate(pieces):
        read += len(piece)
        ends.append(read)
        for v in stream.feed(piece):
            if v.pointer in seen:
                problems.append(f"{v.pointer!r} reported twice")
            seen[v.pointer] = (v.value, n)
    for v in stream.finish():
        seen[v.pointer] = (v.value, None)
    expected = members(doc)
    if set(seen) != {p for p, *_ in expected}:
        problems.append(f"reported {sorted(seen)[:5]} ≠ members {sorted(p for p, *_ in expected)[:5]}")
    whole = json.loads(doc)
    for pointer, kind, _start, end in expected:
        if pointer not in seen:
            continue
        value, when = seen[pointer]
        member = _at(whole, pointer)
        if value != member or type(value) is not type(member):
            problems.append(f"{pointer!r}: reported {value!r}, the document has {member!r}")
        final_at = rule_final_at(compiled, doc, kind, end)
        due = None if final_at is None else next(i for i, e in enumerate(ends) if e >= final_at)
        if when != due:
            problems.append(f"{pointer!r} ({kind}): reported in piece {when}, the rule says {due}")
    return problems


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


# -- the instances ----------------------------------------------------------------------------


def instances(limit: int, every: int = 1, per_schema: int = 3) -> Iterator[tuple[str, Any, Any, bytes]]:
    """(name, compiled source, compiled grammar, accepted text) for up to ``limit`` valid
    instances, taken round-robin over the splits (every ``every``-th schema of each)."""
    from gramwright.recognizer import compile_grammar
    from gramwright.sources import load_source

    per_split: list[tuple[str, Iterator[Path]]] = []
    for split in SPLITS:
        per_split.append((split, iter(sorted((DATA / split).glob("*.json"))[::every])))
    taken = 0
    while per_split and taken < limit:
        for split, files in list(per_split):
            path = next(files, None)
            if path is None:
                per_split.remove((split, files))
                continue
            doc = json.loads(path.read_text("utf-8"))
            valid = [t["data"] for t in doc.get("tests", []) if t.get("valid")][:per_schema]
            if not valid:
                continue
            try:
                source = load_source(str(path.with_suffix(".schema.json")), text=json.dumps(doc["schema"]))
                compiled = compile_grammar(source.grammar)
            except Exception:  # noqa: BLE001 - a schema the compiler refuses has no accepted texts
                continue
            holder = SimpleNamespace(compiled=compiled)
            for k, instance in enumerate(valid):
                text = accepted_text(holder, instance, source.member_orders)
                if text is None:
                    continue
                yield f"{split}/{path.stem}#{k}", source, compiled, text.encode("utf-8")
                taken += 1
                if taken >= limit:
                    return


def token_pieces(tokenizer: Any, vocab: Any, doc: bytes) -> list[bytes] | None:
    """``doc`` cut where the tokenizer cuts it (None: a byte the vocabulary cannot spell)."""
    ids = tokenizer.encode(doc.decode("utf-8"), add_special_tokens=False)
    pieces = [vocab.token_bytes[i] for i in ids]
    return pieces if b"".join(pieces) == doc else None


def mutate(doc: bytes, rng: random.Random) -> bytes:
    """``doc`` with one byte changed, inserted or deleted (a final newline now and then: the
    case ``check`` treats apart)."""
    alphabet = b'{}[]",:0123456789.-eE tfnaxyz\\\n\xc3\xa9'
    op = rng.choice(("change", "insert", "delete", "newline"))
    i = rng.randrange(len(doc) + (op == "insert"))
    if op == "newline":
        return doc[: i + 1] + rng.choice((b"\n", b"\r\n", b"\r"))
    if op == "delete":
        return doc[:i] + doc[i + 1 :]
    b = bytes([rng.choice(alphabet)])
    return doc[:i] + b + doc[i + (op == "change") :]


def check_problems(source: Any, data: bytes, pieces: list[bytes]) -> tuple[list[str], bool]:
    """Compare the streamed check of ``data`` (fed in ``pieces``) with the whole-document check;
    the flag: the whole check rejected ``data`` at a byte."""
    from gramwright.api import check_document
    from gramwright.streaming.check import StreamCheck

    whole = check_document(source, data, form="bytes")  # the stream judges bytes as they come
    rejected = whole.message.startswith("rejected")  # the verdict before any diagnosis note
    stream = StreamCheck(source)
    early = None
    for piece in pieces:
        found = stream.feed(piece)
        if found is not None:
            assert early is None, "a rejection reported twice"
            early = found
    final = stream.end()
    early = early or stream.rejected  # a lone final "\r" is known to be no newline only at the end
    problems = []
    if rejected:
        if early is None:
            problems.append(f"whole check rejects at {whole.offset}, the stream reported nothing")
        elif (early.offset, early.line, early.column, early.allowed, early.schema_pointers) != (
            whole.offset,
            whole.line,
            whole.column,
            whole.allowed,
            whole.schema_pointers,
        ):
            problems.append(f"stream rejects at {early.offset} ({early.message}), whole at {whole.offset}")
    elif early is not None:
        problems.append(f"stream rejects at {early.offset}, the whole check says {whole.reason}")
    if (final.accepted, final.offset) != (whole.accepted, whole.offset):
        problems.append(f"end verdict {final.reason}@{final.offset} ≠ whole {whole.reason}@{whole.offset}")
    return problems, rejected


def random_pieces(data: bytes, rng: random.Random) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rng.randint(1, 16)
        out.append(data[i : i + n])
        i += n
    return out


def run(instances_wanted: int, mutations: int, every: int = 1, seed: int = 0) -> dict[str, Any]:
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    tokenizer = load_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    rng = random.Random(seed)
    counts: dict[str, Any] = {"instances": 0, "splits": {}, "values": 0, "tokens": 0, "unspellable": 0}
    failures: list[str] = []
    texts: list[tuple[str, Any, bytes]] = []
    t0 = time.perf_counter()
    for name, source, compiled, doc in instances(instances_wanted, every):
        counts["instances"] += 1
        split = name.split("/")[0]
        counts["splits"][split] = counts["splits"].get(split, 0) + 1
        counts["values"] += len(members(doc))
        texts.append((name, source, doc))
        cuts = {"bytes": [doc[i : i + 1] for i in range(len(doc))]}
        tokens = token_pieces(tokenizer, vocab, doc)
        if tokens is None:
            counts["unspellable"] += 1
        else:
            cuts["tokens"] = tokens
            counts["tokens"] += len(tokens)
        for how, pieces in cuts.items():
            failures.extend(f"{name} ({how}): {p}" for p in stream_problems(compiled, doc, pieces))
    counts["stream_seconds"] = round(time.perf_counter() - t0, 1)
    t1 = time.perf_counter()
    checked: dict[str, Any] = {"mutated": 0, "rejected_by_check": 0, "byte_by_byte": 0, "random_pieces": 0}
    for n in range(mutations):
        name, source, doc = texts[n % len(texts)]
        data = mutate(doc, rng)
        pieces = [data[i : i + 1] for i in range(len(data))] if n % 2 == 0 else random_pieces(data, rng)
        checked["byte_by_byte" if n % 2 == 0 else "random_pieces"] += 1
        problems, rejected = check_problems(source, data, pieces)
        checked["mutated"] += 1
        checked["rejected_by_check"] += rejected
        failures.extend(f"{name} mutated {data[:60]!r}: {p}" for p in problems)
    checked["check_seconds"] = round(time.perf_counter() - t1, 1)
    return {**counts, **checked, "failures": len(failures), "first_failures": failures[:10]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--instances", type=int, default=600)
    parser.add_argument("--mutations", type=int, default=1200)
    parser.add_argument("--every", type=int, default=1, help="every N-th schema of each split")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"{DATA} not present: nothing to run", file=sys.stderr)
        sys.exit(2)
    result = run(args.instances, args.mutations, args.every, args.seed)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else result)
    sys.exit(1 if result["failures"] else 0)


if __name__ == "__main__":
    main()
