"""`gramwright cache info|clear` and the warm walk (engine/warm.py) on a small real vocabulary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.engine import cache
from gramwright.engine.vocab import TokenVocabulary
from gramwright.engine.warm import warm
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, alt, literal

runner = CliRunner()
PIECES = [b"{", b"}", b'"', b"a", b"b", b"ab", b":", b"1", b"12", b",", b"[", b"]", b"true", b"null", b'"}']
PIECES.append(b"")  # EOS


@pytest.fixture
def vocab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TokenVocabulary]:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    vocab = TokenVocabulary(PIECES, eos_ids=[len(PIECES) - 1])
    yield vocab
    vocab.tables.attach(None)
    vocab.tables.clear()


def test_info_then_clear(vocab: TokenVocabulary, tmp_path: Path) -> None:
    empty = runner.invoke(app, ["cache", "info", "--format", "json"])
    assert empty.exit_code == 0 and json.loads(empty.stdout)["stores"] == []
    # two literals sharing a first byte: a keyed walk, stored (one literal's mask never is)
    ab = Grammar({"root": alt(literal("ab"), literal("a1"))})
    report = warm([("json", load_bundled("json")), ("ab", ab)], vocab, walks=4)
    assert report.grammars == 2 and report.masks > 0 and report.written == 2
    before = json.loads(runner.invoke(app, ["cache", "info", "--json"]).stdout)["stores"][0]
    # a second process's lookups: everything it asks for is on disk
    vocab.tables.attach(None)
    vocab.tables.clear()
    again = warm([("json", load_bundled("json"))], vocab, walks=4)
    assert again.written == 0  # nothing new to write, but its hits are counted
    info = json.loads(runner.invoke(app, ["cache", "info", "--json"]).stdout)
    (only,) = info["stores"]
    # warm flushes per grammar, then merges its segments into one
    assert only["current"] and only["segments"] == 1 and only["entries"] > 0
    assert info["bytes"] == only["bytes"] > 0 and only["misses"] == before["misses"] > 0
    assert only["hits"] > before["hits"]
    human = runner.invoke(app, ["cache", "info"])
    assert human.exit_code == 0 and f"{only['entries']} masks in 1 segment(s)" in human.stdout
    cleared = runner.invoke(app, ["cache", "clear", "--format", "json"])
    assert cleared.exit_code == 0 and json.loads(cleared.stdout)["removed_bytes"] == info["bytes"]
    assert not (tmp_path / "masks").exists()
    assert json.loads(runner.invoke(app, ["cache", "info", "--json"]).stdout)["stores"] == []


def test_bad_format_is_a_usage_error(vocab: TokenVocabulary) -> None:
    got = runner.invoke(app, ["cache", "info", "--format", "xml"])
    assert got.exit_code == 2 and "unknown --format" in got.stderr
