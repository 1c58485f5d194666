"""The mask adapters every peer benchmark goes through (serving/engines.py): on the real SmolLM2
tokenizer, ours, llguidance and XGrammar each allow every token of a valid document in turn,
consume it, end there, hand out independent matchers, and (the peers) apply their mask to logits."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gramwright.engine.vocab import TokenVocabulary
from gramwright.serving.engines import LLGuidanceMasks, MaskEngine, OursMasks, XGrammarMasks, mask_engine

pytest.importorskip("xgrammar")
pytest.importorskip("llguidance")
pytestmark = pytest.mark.bench

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}},
    "required": ["name", "qty"],
    "additionalProperties": False,
}
DOCUMENT = '{"name":"desk lamp","qty":12}'


def _allows(bitmask: Any, tid: int) -> bool:
    words = np.asarray(bitmask)[0]
    return bool((int(words[tid // 32]) >> (tid % 32)) & 1)


@pytest.fixture(scope="module")
def engines(smol: tuple[Any, TokenVocabulary]) -> dict[str, MaskEngine]:
    tok, vocab = smol
    return {name: mask_engine(name, tok, vocab) for name in ("ours", "llguidance", "xgrammar")}


@pytest.mark.parametrize("name", ["ours", "llguidance", "xgrammar"])
def test_each_engine_allows_and_consumes_a_valid_document(
    engines: dict[str, MaskEngine], smol: tuple[Any, TokenVocabulary], name: str
) -> None:
    engine = engines[name]
    ids = smol[0].encode(DOCUMENT, add_special_tokens=False)
    compiled = engine.compile(SCHEMA)
    first, second = engine.matcher(compiled), engine.matcher(compiled)
    for tid in ids:
        engine.mask(first)
        assert _allows(engine.bitmask, tid), (name, tid)
        assert not engine.finished(first)
        assert engine.consume(first, tid), (name, tid)
    engine.mask(first)
    # the document is complete: the only way on is the end of the output
    eos = smol[1].eos_ids
    assert any(_allows(engine.bitmask, e) for e in eos) or engine.finished(first)
    # the second matcher did not move with the first
    engine.mask(second)
    assert _allows(engine.bitmask, ids[0]) and not _allows(engine.bitmask, ids[1])


@pytest.mark.parametrize("name", ["llguidance", "xgrammar"])
def test_a_peer_applies_its_mask_to_logits(engines: dict[str, MaskEngine], name: str) -> None:
    import torch

    engine = engines[name]
    assert isinstance(engine, LLGuidanceMasks | XGrammarMasks)
    matcher = engine.matcher(engine.compile(SCHEMA))
    engine.mask(matcher)
    size = np.asarray(engine.bitmask).shape[1] * 32
    logits = torch.zeros((1, size))
    engine.apply(logits)
    allowed = {i for i in range(size) if _allows(engine.bitmask, i)}
    kept = set(torch.nonzero(logits[0] == 0).flatten().tolist())
    assert allowed and kept == allowed


def test_ours_is_our_token_engine(engines: dict[str, MaskEngine]) -> None:
    assert isinstance(engines["ours"], OursMasks)
