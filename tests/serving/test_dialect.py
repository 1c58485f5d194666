"""How vLLM, SGLang, llguidance and llama.cpp will read each export's dialect."""

from __future__ import annotations

import pytest

from gramwright.grammar.analysis import prepare
from gramwright.grammar.bundled import bundled_names, load_bundled
from gramwright.grammar.export import DIALECTS, TEXT_TARGETS, export_grammar
from gramwright.serving.dialect import detect_dialects


@pytest.mark.parametrize("name", bundled_names())
@pytest.mark.parametrize("target", TEXT_TARGETS)
def test_every_text_target_is_read_in_its_dialect(name: str, target: str) -> None:
    text = export_grammar(prepare(load_bundled(name)), target).text
    seen = detect_dialects(text)
    assert seen["vllm/xgrammar"] == DIALECTS[target]
    assert seen["vllm/guidance"] == DIALECTS[target]
    assert seen["sglang/xgrammar"].startswith("gbnf")  # SGLang's ebnf field: GBNF, always
    assert (seen["sglang/xgrammar"] == "gbnf") == (target == "gbnf")
    assert seen["llama.cpp"] == ("lark" if target == "llamacpp-lark" else "gbnf")


def test_llguidance_detector_matches_the_library() -> None:
    llg = pytest.importorskip("llguidance.gbnf_to_lark")
    for name in bundled_names():
        for target in TEXT_TARGETS:
            text = export_grammar(prepare(load_bundled(name)), target).text
            assert llg.is_lark_syntax(text) == (detect_dialects(text)["vllm/guidance"] == "lark")
