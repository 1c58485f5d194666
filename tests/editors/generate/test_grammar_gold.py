"""Completeness: the gold patch of every edit case, in both formats and in the form the grammars
write, is accepted token by token (real SmolLM2 tokenizer) by the grammar built from its file —
the grammar does not forbid a valid patch — and EOS is allowed right after it.

The form the grammars write: SEARCH/REPLACE blocks in file order without fences; unified diffs
with ``@@ ... @@`` headers (numbered after generation). Every gold SEARCH text and hunk of the 34
cases is a unique run of its file, so none needs an exception here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gramwright.editors.generate.edit import build_edit_grammar
from gramwright.editors.patch.model import EditFormat
from gramwright.editors.patch.snapshot import decode_file
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary

CASES = Path(__file__).resolve().parents[4] / "shared" / "data" / "edits" / "cases.jsonl"
pytestmark = [
    pytest.mark.data,
    pytest.mark.skipif(not CASES.exists(), reason="../shared/data/edits/cases.jsonl is absent"),
]


def rows() -> list[dict[str, Any]]:
    if not CASES.exists():
        return []
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]


@cache
def tokenizer_and_vocab() -> tuple[Any, TokenVocabulary]:
    from gramwright.models.loader import load_tokenizer

    tok = load_tokenizer()
    return tok, TokenVocabulary.from_tokenizer(tok)


def gold_search_replace(row: dict[str, Any]) -> str:
    original: str = row["original"]
    blocks = sorted(row["gold_search_replace"], key=lambda b: original.find(b["search"]))
    out = []
    for b in blocks:
        search, replace = b["search"], b["replace"]
        search += "" if search.endswith("\n") else "\n"
        replace += "" if not replace or replace.endswith("\n") else "\n"
        out.append(f"{row['file_path']}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
    return "".join(out)


def gold_udiff(row: dict[str, Any]) -> str:
    out = []
    for line in str(row["gold_unified_diff"]).splitlines(keepends=True):
        if line.startswith("@@"):
            out.append("@@ ... @@\n")
        elif not line.startswith(("diff --git ", "index ")):
            out.append(line)
    return "".join(out)


@pytest.mark.parametrize("fmt", [EditFormat.SEARCH_REPLACE, EditFormat.UDIFF], ids=["sr", "udiff"])
@pytest.mark.parametrize("row", rows(), ids=lambda r: str(r["exercise"]))
def test_gold_patch_is_accepted_token_by_token(row: dict[str, Any], fmt: EditFormat) -> None:
    tok, vocab = tokenizer_and_vocab()
    snap = decode_file(row["file_path"], row["original"].encode())
    original: str = row["original"]
    for b in row["gold_search_replace"]:
        # the gold SEARCH texts are unique runs (else the grammar would rightly refuse them)
        assert original.count(b["search"]) == 1, b["search"]
    text = gold_search_replace(row) if fmt is EditFormat.SEARCH_REPLACE else gold_udiff(row)
    matcher = GrammarEngine(build_edit_grammar([snap], fmt).grammar, vocab).matcher()
    for token in tok.encode(text, add_special_tokens=False):
        assert matcher.try_consume(token), f"rejected {tok.decode([token])!r} after {matcher.output[-80:]!r}"
    assert matcher.output == text.encode()
    assert matcher.is_accepting() and matcher.try_consume(next(iter(vocab.eos_ids)))
