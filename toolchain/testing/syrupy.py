"""syrupy extensions that keep grammars as readable single files, for projects already on syrupy.

    from gramwright.testing.syrupy import GbnfSnapshotExtension

    @pytest.fixture
    def gbnf_snapshot(snapshot):
        return snapshot.use_extension(GbnfSnapshotExtension)

    def test_po(gbnf_snapshot):
        assert gbnf_snapshot(name="po") == Path("schemas/po.json")   # a source: report + facts + GBNF
        assert gbnf_snapshot(name="po-gbnf") == emit_gbnf(grammar)   # or any GBNF text

One ``.gbnf`` file per assertion: ``name="json"`` writes ``json.gbnf``, ``name="schemas/person"``
adds a subfolder, no name uses the test's name. The files live in ``__snapshots__/<test module>/``
beside the test (syrupy's default), or under :attr:`GbnfSnapshotExtension.snapshot_root` in a
subclass. A path (``pathlib.Path``) or a :class:`~gramwright.sources.CompiledSource` is stored as
the body of a ``gramwright snapshot`` file (compile report, language facts, GBNF), so a drift shows
which keyword or enum member moved. Files with no test behind them fail the run as "unused", like
any syrupy snapshot; ``pytest --snapshot-update`` rewrites and prunes.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import ClassVar

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import SerializableData, SnapshotIndex

__all__ = ["GbnfSnapshotExtension", "LarkSnapshotExtension"]

# First line of every file, a comment naming the test that owns it. syrupy decides which snapshots
# a partial run (-m, -k, node ids) has made unused by matching names against the tests that ran; a
# bare file name like "json" would never match, so the name carries the test id.
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
    """GBNF text (or a grammar source, rendered) as one ``.gbnf`` file per snapshot."""

    file_extension = "gbnf"
    _write_mode = WriteMode.TEXT
    # None: `__snapshots__/<test module>/` beside each test file; a folder: `<folder>/<test module>/`
    # (a subclass also sets snapshot_dirname to the folder's name, so syrupy prunes emptied folders).
    snapshot_root: ClassVar[Path | None] = None

    @classmethod
    def _root(cls, test_location: PyTestLocation) -> Path:
        if cls.snapshot_root is not None:
            return cls.snapshot_root
        return Path(test_location.filepath).parent / cls.snapshot_dirname

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls._root(test_location) / test_location.basename)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        # Scan the whole tree so files left by deleted tests or renamed modules count as unused.
        return str(cls._root(test_location))

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
        from gramwright.sources import CompiledSource

        if isinstance(data, os.PathLike):
            from gramwright.sources import load_source

            data = load_source(os.fspath(data))
        if isinstance(data, CompiledSource):
            from gramwright.grammar.gbnf import emit_gbnf
            from gramwright.snapshot.document import render_body

            return render_body(data, emit_gbnf(data.grammar))
        if not isinstance(data, str):
            raise TypeError(
                f"{type(self).__name__} compares grammar text, a source path or a CompiledSource, "
                f"got {type(data).__name__}"
            )
        return data

    def owns_snapshot_collection(self, *, filepath: str, test_location: PyTestLocation) -> bool:
        return self.is_snapshot_location(location=filepath) and Path(filepath).is_relative_to(
            self._root(test_location)
        )

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).is_relative_to(cls._root(test_location) / test_location.basename)

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
            raise TypeError(f"grammar snapshots hold text, not {type(snapshot.data).__name__}")
        with open(snapshot_collection.location, "w", encoding="utf-8", newline="\n") as f:
            f.write(f"{_HEADER}{snapshot.name}\n{snapshot.data}")


class LarkSnapshotExtension(GbnfSnapshotExtension):
    """The same single-file snapshots for Lark exports (``.lark``; llguidance reads ``#`` comments)."""

    file_extension = "lark"
