"""The pytest plugin (entry point ``pytest11``): snapshot-test grammars from a project's own tests.

    def test_po(gramwright_snapshot):
        gramwright_snapshot("schemas/po.json")

The fixture compiles the source and compares it with its snapshot in the project's snapshot folder
(``[tool.gramwright.snapshot]`` ``dir`` in ``pyproject.toml``, else ``grammar-snapshots/``) — the
same files ``gramwright snapshot`` writes and checks, with the same ``targets``. A test that asks
for other targets (``targets=["lark"]``) keeps its snapshot in a file of its own,
``<source>@lark.snap``, which the CLI leaves alone: the two never fight over one file. A difference
fails the test with the reason (source / compiler changed), what it means for the model, and the
diff; ``pytest --gramwright-update`` writes new and changed snapshots (never where ``CI`` is set).

Every pytest run in a project with gramwright installed loads this module, so it imports only
pytest here; the compiler is imported when a test first asks for the fixture.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from gramwright.snapshot import SourceSnapshot

__all__ = ["gramwright_snapshot", "pytest_addoption"]

SnapshotCheck = Callable[..., "SourceSnapshot"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gramwright", "gramwright grammar snapshots")
    group.addoption(
        "--gramwright-update",
        action="store_true",
        default=False,
        help="gramwright_snapshot: write new and changed grammar snapshots (refused when CI is set).",
    )


def failure_message(result: SourceSnapshot) -> str:
    """What a failing ``gramwright_snapshot`` says: status and reason, the meaning, the diff."""
    if result.status == "new":
        return f"{result.source}: no snapshot yet ({result.snapshot}); run pytest --gramwright-update"
    reasons = {
        "source": "the source changed",
        "compiler": "the compiler changed (same source)",
        "both": "the source and the compiler changed",
        "targets": "the export targets changed",
    }
    why = reasons.get(result.reason, "")
    lines = [f"{result.source}: grammar snapshot {result.snapshot} differs — {why}"]
    if result.stored_version and result.stored_version != result.version:
        lines[0] += f" (snapshot by gramwright {result.stored_version}, now {result.version})"
    lines += [f"  {c.direction}: {c.pointer or '/'}: {c.what}" for c in result.changes]
    lines.append(result.diff.rstrip("\n"))
    lines.append("if the change is intended: pytest --gramwright-update (then review and commit it)")
    return "\n".join(lines)


@pytest.fixture
def gramwright_snapshot(request: pytest.FixtureRequest) -> SnapshotCheck:
    """``gramwright_snapshot(path, targets=None)``: check one schema/grammar against its snapshot
    (``path`` relative to the project root, the folder of ``pyproject.toml``); returns the
    :class:`~gramwright.snapshot.SourceSnapshot`."""
    update = bool(request.config.getoption("gramwright_update"))
    start = request.config.rootpath

    def check(path: str | os.PathLike[str], *, targets: Sequence[str] | None = None) -> SourceSnapshot:
        from gramwright.snapshot import check_source, in_ci, load_config

        config = load_config(start)
        if targets is not None:
            config = config.with_targets(targets)  # other targets: separate (variant) snapshot files
        source = config.root / Path(path)  # an absolute path stays itself
        if not source.is_file():
            pytest.fail(f"gramwright_snapshot: {source}: no such file", pytrace=False)
        if update and in_ci():
            pytest.fail("gramwright_snapshot: CI mode never writes snapshots (CI is set)", pytrace=False)
        result = check_source(source, config, update=update)
        if result.status == "error":
            pytest.fail(f"gramwright_snapshot: {result.error}", pytrace=False)
        if not update and result.status in ("new", "changed"):
            pytest.fail(failure_message(result), pytrace=False)
        return result

    return check
