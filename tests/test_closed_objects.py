"""Closed objects when generating, the specification's open objects everywhere else.

Real compiles and the real recognizer: an undeclared member is rejected by the grammar a model
generates under (``load_for_generation``, ``CompiledSource.for_generation``, the pipeline) and
accepted by ``check``, ``compile`` and the exports; ``--open-objects`` and ``x-runtime``
``open_objects`` keep the open default; composed objects (``allOf``, ``$ref``, ``anyOf``) keep
every member some part declares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.errors import SourceError
from gramwright.grammar.gbnf import emit_gbnf
from gramwright.pipeline import Policy, ScriptedBackend, run
from gramwright.recognizer import Recognizer, compile_grammar
from gramwright.sources import CompiledSource, load_for_generation, load_source

runner = CliRunner()

ITEM = {"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}}}
ORDER = {
    "type": "object",
    "required": ["supplier"],
    "properties": {"supplier": {"type": "string"}, "items": {"type": "array", "items": ITEM}},
}
UNDECLARED_TOP = b'{"supplier":"x","note":"y"}'
UNDECLARED_NESTED = b'{"supplier":"x","items":[{"name":"a","qty":1,"maxItems":20}]}'
DECLARED = b'{"supplier":"x","items":[{"name":"a","qty":1}]}'


def _file(tmp_path: Path, schema: Any, name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def _accepts(source: CompiledSource, doc: bytes) -> bool:
    rec = Recognizer(compile_grammar(source.grammar))
    return rec.try_feed(doc) and rec.is_accepting()


def test_generation_closes_objects_check_keeps_them_open(tmp_path: Path) -> None:
    path = _file(tmp_path, ORDER)
    gen = load_for_generation(str(path))
    assert gen.generation_objects == "closed"
    assert gen.closed_objects == ["", "/properties/items/items"]
    assert _accepts(gen, DECLARED)
    assert not _accepts(gen, UNDECLARED_TOP)
    assert not _accepts(gen, UNDECLARED_NESTED)
    spec = load_source(str(path))
    assert spec.closed_objects == [] and spec.generation_objects is None
    assert _accepts(spec, UNDECLARED_TOP) and _accepts(spec, UNDECLARED_NESTED)
    doc = tmp_path / "doc.json"
    doc.write_bytes(UNDECLARED_NESTED)
    assert runner.invoke(app, ["check", str(path), str(doc)]).exit_code == 0


def test_for_generation_recompiles_once_and_keeps_a_decision(tmp_path: Path) -> None:
    spec = load_source(str(_file(tmp_path, ORDER)))
    closed = spec.for_generation()
    assert closed is not spec and closed.generation_objects == "closed"
    assert spec.for_generation() is closed  # memoised: a batch compiles it once
    assert closed.for_generation() is closed  # None keeps the decision made
    opened = closed.for_generation(open_objects=True)
    assert opened.generation_objects == "open" and _accepts(opened, UNDECLARED_TOP)
    same = spec.for_generation(open_objects=True)
    assert same.grammar == spec.grammar and same.generation_objects == "open"  # no recompile needed
    bundled = load_source("json")
    assert bundled.for_generation() is bundled
    already = load_source(str(_file(tmp_path, ORDER, "closed.json")), close_objects=True)
    marked = already.for_generation()
    assert marked.grammar is already.grammar and marked.generation_objects == "closed"


def test_open_objects_and_x_runtime_opt_out(tmp_path: Path) -> None:
    plain = _file(tmp_path, ORDER)
    assert _accepts(load_for_generation(str(plain), open_objects=True), UNDECLARED_NESTED)
    opted = _file(tmp_path, {**ORDER, "x-runtime": {"open_objects": True}}, "opted.json")
    source = load_for_generation(str(opted))
    assert source.generation_objects == "open" and source.closed_objects == []
    assert _accepts(source, UNDECLARED_NESTED)
    # the caller's explicit choice wins over the schema's
    assert not _accepts(load_for_generation(str(opted), open_objects=False), UNDECLARED_NESTED)
    assert Policy.from_schema(json.loads(opted.read_text())).open_objects is True
    assert Policy.from_schema(ORDER).open_objects is False
    bad = _file(tmp_path, {**ORDER, "x-runtime": {"open_objects": "yes"}}, "bad.json")
    with pytest.raises(SourceError, match="/x-runtime/open_objects: open_objects must be true or false"):
        load_for_generation(str(bad))


def test_x_runtime_open_objects_is_a_known_key_for_the_linter(tmp_path: Path) -> None:
    from gramwright.api import lint_schema

    report = lint_schema({**ORDER, "x-runtime": {"open_objects": True}})
    assert not [d for d in report.diagnostics if d.rule == "runtime/x-runtime"]
    report = lint_schema({**ORDER, "x-runtime": {"open_objects": 1}})
    assert [d for d in report.diagnostics if d.rule == "runtime/x-runtime"]


def test_lint_rule_says_what_generation_does() -> None:
    from gramwright.api import lint_schema

    found = [d for d in lint_schema(ORDER).diagnostics if d.rule == "object/additional-properties-missing"]
    assert found and all("generation closes it" in d.message for d in found)


def test_composed_objects_keep_every_declared_member(tmp_path: Path) -> None:
    """Closing acts on the whole conjunction (as ``unevaluatedProperties: false``), so members
    declared by different ``allOf`` parts, a ``$ref`` target or an ``anyOf`` branch all stay."""
    schema = {
        "$defs": {"base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        "allOf": [{"$ref": "#/$defs/base"}, {"properties": {"name": {"type": "string"}}}],
        "anyOf": [{"properties": {"kind": {"const": "a"}}}, {"properties": {"size": {"type": "integer"}}}],
    }
    gen = load_for_generation(str(_file(tmp_path, schema)))
    assert _accepts(gen, b'{"name":"n","id":1,"kind":"a"}')  # (members in the grammar's order)
    assert _accepts(gen, b'{"id":1,"size":3}')
    assert not _accepts(gen, b'{"id":1,"other":3}')
    assert _accepts(load_source(str(_file(tmp_path, schema))), b'{"id":1,"other":3}')
    assert "/$defs/base" in gen.closed_objects


def test_explicit_additional_properties_are_kept(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"meta": {"type": "object", "additionalProperties": {"type": "string"}}},
        "patternProperties": {"^x-": {"type": "integer"}},
    }
    gen = load_for_generation(str(_file(tmp_path, schema)))
    assert _accepts(gen, b'{"meta":{"any":"v"},"x-a":1}')  # a map and pattern keys stay allowed
    assert not _accepts(gen, b'{"meta":{},"y":1}')
    # an object without declared members stays a free object (closing it would allow only {})
    free = load_for_generation(str(_file(tmp_path, {"type": "object"}, "free.json")))
    assert _accepts(free, b'{"anything":1}') and free.closed_objects == []


def test_compile_keeps_the_open_default_and_shows_the_generation_grammar(tmp_path: Path) -> None:
    path = _file(tmp_path, ORDER)
    plain = runner.invoke(app, ["compile", str(path)])
    assert plain.exit_code == 0 and plain.stdout == emit_gbnf(load_source(str(path)).grammar)
    assert "closed:" not in plain.stderr
    gen = runner.invoke(app, ["compile", str(path), "--for-generation"])
    assert gen.exit_code == 0 and gen.stdout == emit_gbnf(load_for_generation(str(path)).grammar)
    assert gen.stdout != plain.stdout
    assert "closed: / takes no undeclared members" in gen.stderr
    assert "closed: /properties/items/items" in gen.stderr
    payload = json.loads(runner.invoke(app, ["compile", str(path), "-f", "json", "--for-generation"]).stdout)
    assert payload["closed_objects"] == ["", "/properties/items/items"]
    assert "closed_objects" not in json.loads(runner.invoke(app, ["compile", str(path), "-f", "json"]).stdout)


def test_exports_keep_the_open_default(tmp_path: Path) -> None:
    from gramwright.grammar.analysis import prepare
    from gramwright.grammar.gbnf import parse_gbnf

    def export_accepts(doc: bytes, *flags: str) -> bool:
        out = runner.invoke(app, ["compile", str(path), "--target", "gbnf", *flags])
        assert out.exit_code == 0, out.output
        rec = Recognizer(compile_grammar(prepare(parse_gbnf(out.stdout))))
        return rec.try_feed(doc) and rec.is_accepting()

    path = _file(tmp_path, ORDER)
    assert export_accepts(UNDECLARED_NESTED)
    assert not export_accepts(UNDECLARED_NESTED, "--for-generation")
    assert export_accepts(DECLARED, "--for-generation")


def test_generate_refuses_both_object_flags(tmp_path: Path) -> None:
    path = _file(tmp_path, ORDER)
    result = runner.invoke(
        app, ["generate", "--schema", str(path), "-p", "x", "--open-objects", "--close-objects"]
    )
    assert result.exit_code == 2 and "not both" in result.stderr


def test_pipeline_generates_under_closed_objects_unless_opted_out(tmp_path: Path) -> None:
    path = _file(tmp_path, ORDER)
    backend = ScriptedBackend.of('{"supplier":"x"}')
    assert run(str(path), "order", backend=backend).ok
    assert backend.requests[0].source.generation_objects == "closed"
    assert not _accepts(backend.requests[0].source, UNDECLARED_TOP)
    backend = ScriptedBackend.of('{"supplier":"x"}')
    run(str(path), "order", backend=backend, open_objects=True)
    assert backend.requests[0].source.generation_objects == "open"
    assert _accepts(backend.requests[0].source, UNDECLARED_TOP)
    # what the model wrote is still validated against the schema as written (open)
    backend = ScriptedBackend.of(UNDECLARED_TOP.decode())
    assert run(str(path), "order", backend=backend).ok
