"""The request-body targets: JSON bodies that carry the gbnf export in each server's field."""

from __future__ import annotations

import json
from pathlib import Path

from gramwright.grammar.export import REQUEST_TARGETS, export_grammar
from gramwright.grammar.export.gbnf import emit_gbnf_export
from gramwright.serving.dialect import vllm_dialect
from gramwright.sources import load_source

FIXTURE = Path(__file__).parents[2] / "fixtures" / "schemas" / "string_lengths.json"


def test_every_body_is_json_and_names_its_engine_version() -> None:
    loaded = load_source("json")
    gbnf = emit_gbnf_export(loaded.grammar)
    for target in REQUEST_TARGETS:
        exported = export_grammar(loaded.grammar, target)
        body = json.loads(exported.text)
        assert body == exported.body
        assert body["target"] == target and body["engine_version"]
        assert body["checked_readers"] == {"xgrammar": "0.2.9", "llguidance": "1.9.1"}
    assert export_grammar(loaded.grammar, "vllm-request").body["extra_body"] == {
        "structured_outputs": {"grammar": gbnf}
    }
    assert export_grammar(loaded.grammar, "sglang-request").body["extra_body"] == {"ebnf": gbnf}
    assert export_grammar(loaded.grammar, "llamacpp-request").body["body"]["grammar"] == gbnf
    assert vllm_dialect(gbnf) == "gbnf"


def test_vllm_body_for_a_schema_lists_the_approximations() -> None:
    loaded = load_source(str(FIXTURE))
    inexact = [item.to_dict() for item in loaded.report if item.status != "exact"]
    body = export_grammar(loaded.grammar, "vllm-request", schema=loaded.schema, approximations=inexact).body
    assert body is not None
    assert body["response_format"]["json_schema"]["schema"] == loaded.schema
    assert body["approximations"] == inexact
    assert any("validation" in note for note in body["notes"])
