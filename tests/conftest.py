"""Shared fixtures.

``gbnf_snapshot``: syrupy snapshots of GBNF text, one readable ``.gbnf`` file each, under the
top-level ``snapshots/`` folder (the CI drift gate). ``assert gbnf_snapshot(name="json") == text``
writes ``snapshots/<test module>/json.gbnf``; ``name="schemas/person"`` adds a subfolder; without
``name`` the file is named after the test (``test_x[param].gbnf``). Files with no test behind them
fail the run as "unused", like any syrupy snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import settings
from syrupy.assertion import SnapshotAssertion
from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import SerializableData, SnapshotIndex

# CI runs hypothesis deterministically (same examples every run, no per-example deadline on the
# shared 2-core machine), so a red CI always means a change broke something, never a lucky draw;
# local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"
# First line of every file, a GBNF comment naming the test that owns it. syrupy decides which
# snapshots a partial run (-m, -k, node ids) has made unused by matching names against the tests
# that ran; a bare file name like "json" would never match, so the name carries the test id.
_HEADER = "# snapshot: "


def _snapshot_path(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(part in ("", ".", "..") for part in path.parts):
        raise ValueError(f"snapshot name {name!r} must be a relative path like 'json' or 'schemas/person'")
    return path


def _split_header(text: str) -> tuple[str | None, str]:
    first, newline, rest = text.partition("\n")
    return (first[len(_HEADER) :], rest) if newline and first.startswith(_HEADER) else (None, text)


class GbnfSnapshotExtension(SingleFileSnapshotExtension):
    file_extension = "gbnf"
    _write_mode = WriteMode.TEXT
    # syrupy prunes an emptied `<snapshot_dirname>/<module>/` folder after deleting unused files.
    snapshot_dirname = SNAPSHOT_ROOT.name

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        # Scan the whole tree so files left by deleted tests or renamed modules count as unused.
        return str(SNAPSHOT_ROOT)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        if isinstance(index, str):
            test = super().get_snapshot_name(test_location=test_location)
            return f"{test}/{_snapshot_path(index)}"
        return super().get_snapshot_name(test_location=test_location, index=index)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        if isinstance(index, str):
            return str(_snapshot_path(index))
        return super().get_file_basename(test_location=test_location, index=index)

    def serialize(self, data: SerializableData, **kwargs: object) -> str:
        if not isinstance(data, str):
            raise TypeError(f"gbnf_snapshot compares GBNF text (emit_gbnf(...)), got {type(data).__name__}")
        return data

    def owns_snapshot_collection(self, *, filepath: str, test_location: PyTestLocation) -> bool:
        return self.is_snapshot_location(location=filepath) and Path(filepath).is_relative_to(SNAPSHOT_ROOT)

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).is_relative_to(SNAPSHOT_ROOT / test_location.basename)

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        name, _ = _split_header(Path(snapshot_location).read_text(encoding="utf-8"))
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=name or Path(snapshot_location).stem))
        return collection

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> SerializableData | None:
        try:
            with open(snapshot_location, encoding="utf-8", newline="") as f:
                return _split_header(f.read())[1]
        except FileNotFoundError:
            return None

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        snapshot = next(iter(snapshot_collection))
        if not isinstance(snapshot.data, str):
            raise TypeError(f"gbnf snapshots hold text, not {type(snapshot.data).__name__}")
        with open(snapshot_collection.location, "w", encoding="utf-8", newline="\n") as f:
            f.write(f"{_HEADER}{snapshot.name}\n{snapshot.data}")


@pytest.fixture
def gbnf_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(GbnfSnapshotExtension)


class LarkSnapshotExtension(GbnfSnapshotExtension):
    """The same single-file snapshots for Lark exports (``.lark``; llguidance reads ``#`` comments)."""

    file_extension = "lark"


@pytest.fixture
def lark_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(LarkSnapshotExtension)
