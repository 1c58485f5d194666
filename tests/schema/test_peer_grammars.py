"""The grammar engines' own test cases: llama.cpp's and outlines-core's (``../shared/data/peer-grammars``).

Cases the projects wrote for their own engines find what inputs this project generates cannot.
How each kind is judged (``../shared/data/README.md``):

* ``schema`` — jsonschema is the referee, not the peer (llama.cpp bounds integers to 16 digits,
  for one): a valid instance must be accepted in some member order (``conformance.run_group``),
  an invalid one rejected or its acceptance named in the compile report; text that is no JSON
  at all must be rejected by the compact and the flexible-whitespace grammar alike;
* ``schema-compile`` — compiles where the peer compiles it; where the schema is invalid under its
  draft's metaschema (``prefixItems: {...}``, which llama.cpp reads anyway) a one-line refusal is
  also right; never another exception;
* ``gbnf-parse`` / ``gbnf`` — parse (or refuse) and judge documents as llama.cpp does.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import FormatChecker
from jsonschema.exceptions import SchemaError as MetaschemaError
from jsonschema.exceptions import UnknownType

from gramwright.errors import GramwrightError
from gramwright.grammar.analysis import prepare
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.schema import compile_schema
from gramwright.schema.compiler.core import validator_classes
from gramwright.schema.compiler.options import CompileOptions
from gramwright.schema.conformance import SchemaGroup, run_group
from gramwright.schema.conformance import TestCase as Instance
from gramwright.schema.errors import SchemaError
from gramwright.schema.resolve import draft_of_dialect

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "peer-grammars"
SUITES = ("llamacpp", "outlines-core")

pytestmark = [
    pytest.mark.data,
    pytest.mark.skipif(not DATA.is_dir(), reason=f"peer grammar cases not found at {DATA}"),
]


def _rows(suite: str) -> list[dict[str, Any]]:
    path = DATA / f"{suite}.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _metaschema_takes(schema: Any, draft: int) -> bool:
    try:
        validator_classes()[draft].check_schema(schema)
    except (MetaschemaError, AttributeError):  # jsonschema itself trips on a tuple `items` in 2020-12
        return False
    return True


def _declared(schema: Any) -> int:
    return draft_of_dialect(schema.get("$schema"), 0) if isinstance(schema, dict) else 0


@cache
def _referee_draft(schema_text: str) -> int | None:
    """The draft jsonschema judges the schema by: its ``$schema``, else 2020-12, else draft-07
    when only that metaschema takes a tuple ``items`` (the form peers still read, and the
    compiler reads and reports); None when the schema is invalid (then no instance is valid)."""
    schema = json.loads(schema_text)
    declared = _declared(schema)
    if declared:
        return declared if _metaschema_takes(schema, declared) else None
    if _metaschema_takes(schema, 2020):
        return 2020
    tuple_items = isinstance(schema, dict) and isinstance(schema.get("items"), list)
    return 7 if tuple_items and _metaschema_takes(schema, 7) else None


def _valid(schema: Any, value: Any) -> bool | None:
    draft = _referee_draft(json.dumps(schema))
    if draft is None:
        return None
    try:
        validator = validator_classes()[draft](schema, format_checker=FormatChecker())
        return bool(validator.is_valid(value))
    except UnknownType:
        return None


def _judge_schema(row: dict[str, Any], out: Counter[str], bad: list[str]) -> None:
    schema = row["schema"]
    tests: list[Instance] = []
    not_json: list[str] = []
    for i, case in enumerate(row["cases"]):
        try:
            value = json.loads(case["text"])
        except ValueError:
            not_json.append(case["text"])
            continue
        valid = _valid(schema, value)
        if valid is None:  # an invalid schema: we must refuse it in one line (below)
            out["invalid schema"] += 1
            _must_refuse_or_compile(row, out, bad, invalid=True)
            return
        tests.append(Instance(f"{row['id']}/{i}", value, valid, case["text"]))
    # compiled under the referee's draft, so that both read the schema alike
    draft = _referee_draft(json.dumps(schema)) or 2020
    result = run_group(SchemaGroup(row["id"], schema, tests, draft, "assert"))
    for case in result.cases:
        out[case.category] += 1
        if case.category not in ("pass", "false_positive_reported"):
            bad.append(f"{case.id}: {case.category}: {case.detail}")
    if result.status != "compiled":
        return
    for whitespace in ("compact", "flexible"):
        options = CompileOptions(whitespace=whitespace, default_draft=draft)
        grammar = compile_grammar(compile_schema(schema, options=options).grammar)
        for text in not_json:
            rec = Recognizer(grammar)
            if rec.try_feed(text.encode("utf-8")) and rec.is_accepting():
                bad.append(f"{row['id']}: text that is no JSON accepted ({whitespace}): {text!r}")
            else:
                out["not JSON: rejected"] += 1


def _must_refuse_or_compile(row: dict[str, Any], out: Counter[str], bad: list[str], *, invalid: bool) -> None:
    try:
        compile_schema(row["schema"])
    except SchemaError as exc:
        line = exc.one_line()
        if "\n" in line or not line:
            bad.append(f"{row['id']}: refusal is not one line: {line!r}")
        elif not invalid and row.get("expected_compile", True):
            bad.append(f"{row['id']}: the peer compiles it, we refuse it: {line}")
        else:
            out["refused in one line"] += 1
        return
    if row.get("expected_compile") is False and not invalid:
        out["compiled where the peer refuses"] += 1  # a valid schema: compiling it is right
    out["compiled"] += 1


def _judge(row: dict[str, Any], out: Counter[str], bad: list[str]) -> None:
    kind = row["kind"]
    if kind == "schema":
        _judge_schema(row, out, bad)
    elif kind == "schema-compile":
        schema = row["schema"]
        invalid = not isinstance(schema, dict | bool) or _referee_draft(json.dumps(schema)) is None
        _must_refuse_or_compile(row, out, bad, invalid=invalid)
    elif kind == "gbnf-parse":
        try:
            prepare(parse_gbnf(row["grammar"]))
            parsed = True
        except GramwrightError:
            parsed = False
        out[f"parse {'agrees' if parsed == row['expected_parse'] else 'differs'}"] += 1
        if parsed != row["expected_parse"]:
            bad.append(
                f"{row['id']}: parse {parsed}, llama.cpp {row['expected_parse']} ({row.get('why', '')})"
            )
    elif kind == "gbnf":
        grammar = compile_grammar(prepare(parse_gbnf(row["grammar"])))
        for case in row["cases"]:
            rec = Recognizer(grammar)
            ok = rec.try_feed(case["text"].encode("utf-8")) and rec.is_accepting()
            out[f"document {'agrees' if ok == case['expected'] else 'differs'}"] += 1
            if ok != case["expected"]:
                bad.append(f"{row['id']}: {case['text']!r}: ours {ok}, llama.cpp {case['expected']}")
    else:
        bad.append(f"{row['id']}: unknown kind {kind!r}")


@pytest.mark.parametrize("suite", SUITES)
def test_peer_cases_no_crash_no_false_reject_no_silent_accept(suite: str) -> None:
    out: Counter[str] = Counter()
    bad: list[str] = []
    for row in _rows(suite):
        try:
            _judge(row, out, bad)
        except Exception as exc:  # noqa: BLE001 - a crash is what this test exists to find
            bad.append(f"{row['id']}: crashed: {type(exc).__name__}: {exc}")
    print(suite, dict(out))  # the counts, for the benchmark notes (pytest -s)
    assert not bad, "\n".join(bad)
    assert out["pass"] > 0
