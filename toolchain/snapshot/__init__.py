"""Snapshot tests for a project's grammars: every schema and grammar compiled to one reviewable
file (canonical GBNF, compile report, language facts, exports), checked in CI with the reason and
meaning of each drift. The ``gramwright snapshot`` command, the pytest plugin and the syrupy
extension are adapters over :func:`run_snapshots` and :func:`check_source`."""

from gramwright.snapshot.config import SnapshotConfig, discover, load_config
from gramwright.snapshot.document import (
    Fact,
    StoredSnapshot,
    language_facts,
    parse_snapshot,
    render_body,
    render_snapshot,
)
from gramwright.snapshot.meaning import LanguageChange, language_changes
from gramwright.snapshot.run import (
    SnapshotRun,
    SnapshotWriteRefused,
    SourceSnapshot,
    check_source,
    in_ci,
    run_snapshots,
    tool_version,
)

__all__ = [
    "Fact",
    "LanguageChange",
    "SnapshotConfig",
    "SnapshotRun",
    "SnapshotWriteRefused",
    "SourceSnapshot",
    "StoredSnapshot",
    "check_source",
    "discover",
    "in_ci",
    "language_changes",
    "language_facts",
    "load_config",
    "parse_snapshot",
    "render_body",
    "render_snapshot",
    "run_snapshots",
    "tool_version",
]
