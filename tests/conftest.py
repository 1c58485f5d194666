"""Shared fixtures: GBNF/Lark snapshots, the real tokenizers (``smol``, ``sentencepiece``) and the
embedded model (``embedded_model``).

``gbnf_snapshot``: syrupy snapshots of GBNF text through the public extension
(:mod:`gramwright.testing.syrupy`), one readable ``.gbnf`` file each, under the top-level
``snapshots/`` folder (the CI drift gate). ``assert gbnf_snapshot(name="json") == text``
writes ``snapshots/<test module>/json.gbnf``; ``name="schemas/person"`` adds a subfolder; without
``name`` the file is named after the test (``test_x[param].gbnf``). Files with no test behind them
fail the run as "unused", like any syrupy snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from syrupy.assertion import SnapshotAssertion

from gramwright.engine.vocab import TokenVocabulary
from gramwright.testing.syrupy import GbnfSnapshotExtension as PublicGbnfSnapshotExtension
from tests.support.tokens import load_sentencepiece, load_smol

# CI runs hypothesis deterministically (same examples every run, no per-example deadline on the
# shared 2-core machine), so a red CI always means a change broke something, never a lucky draw;
# local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"


class GbnfSnapshotExtension(PublicGbnfSnapshotExtension):
    """The public extension, rooted at the project's top-level ``snapshots/`` folder."""

    snapshot_root = SNAPSHOT_ROOT
    # syrupy prunes an emptied `<snapshot_dirname>/<module>/` folder after deleting unused files.
    snapshot_dirname = SNAPSHOT_ROOT.name


@pytest.fixture
def gbnf_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(GbnfSnapshotExtension)


class LarkSnapshotExtension(GbnfSnapshotExtension):
    """The same single-file snapshots for Lark exports (``.lark``; llguidance reads ``#`` comments)."""

    file_extension = "lark"


@pytest.fixture
def lark_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(LarkSnapshotExtension)


# The real tokenizers, loaded once per run. Engines built on a vocabulary share its tables (masks
# by content): a test that clears or detaches them puts them back as it found them.
@pytest.fixture(scope="session")
def smol() -> tuple[Any, TokenVocabulary]:
    """The embedded SmolLM2 tokenizer and our ``TokenVocabulary`` of it."""
    return load_smol()


@pytest.fixture(scope="session")
def sentencepiece() -> tuple[Any, TokenVocabulary]:
    """A SentencePiece-style tokenizer and our ``TokenVocabulary`` of it."""
    return load_sentencepiece()


@pytest.fixture(scope="session")
def embedded_model() -> tuple[Any, TokenVocabulary]:
    """The embedded SmolLM2 model on the CPU (a ``LoadedModel``) and our vocabulary of its
    tokenizer: for ``model``-marked tests only."""
    from gramwright.models.loader import load_model
    from gramwright.models.vocabulary import vocabulary_of_loaded

    lm = load_model(None, device="cpu")
    return lm, vocabulary_of_loaded(lm)
