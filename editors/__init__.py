"""Patches from any model: parse, locate, apply all-or-nothing, back up and undo.

The three formats models emit — SEARCH/REPLACE blocks (aider), unified diffs (git, GNU, aider's
udiff) and the ``*** Begin Patch`` envelope (Codex ``apply_patch``) — parse into one data model
(:mod:`.patch.model`). Then, against real files::

    patch = parse_patch(text)                 # fmt="auto" detects the format (patch.detected says how)
    report = check_patch(patch, root)         # every edit located, exact or tolerant, or why not
    result = apply_patch(patch, root)         # all-or-nothing, originals in .gramwright/journal/
    undo(root, result.entry_id)               # byte for byte, refused if a file changed since

Matches are exact and unique by default (several matches list every candidate); tolerant matches
(trailing whitespace, CRLF/LF, an indentation shift, Unicode look-alikes) need ``fuzzy=True``.
Nothing here prints; ``report.as_dict()`` is the ``--format json`` report and ``report.feedback()``
the failures as text for the model that wrote the patch.

Two subpackages: :mod:`.patch`, the library above (pure file work), and :mod:`.generate`, where a
model writes a patch under a grammar built from the files it edits (``generate_edit``).
"""

from gramwright.editors.patch.apply import ApplyResult, apply_patch
from gramwright.editors.patch.check import check_patch
from gramwright.editors.patch.detect import detect_format, parse_patch
from gramwright.editors.patch.journal import JournalEntry
from gramwright.editors.patch.locate import Location, locate
from gramwright.editors.patch.match import LEVELS
from gramwright.editors.patch.model import Edit, EditFormat, FileCreate, FileDelete, FileRename, Patch
from gramwright.editors.patch.nearest import Nearest
from gramwright.editors.patch.paths import find_root
from gramwright.editors.patch.preview import preview_diff
from gramwright.editors.patch.report import CheckReport, EditCheck, FileChange, Problem
from gramwright.editors.patch.snapshot import FileSnapshot
from gramwright.editors.patch.undo import UndoResult, history, undo

__all__ = [
    "LEVELS",
    "ApplyResult",
    "CheckReport",
    "Edit",
    "EditCheck",
    "EditFormat",
    "FileChange",
    "FileCreate",
    "FileDelete",
    "FileRename",
    "FileSnapshot",
    "JournalEntry",
    "Location",
    "Nearest",
    "Patch",
    "Problem",
    "UndoResult",
    "apply_patch",
    "check_patch",
    "detect_format",
    "find_root",
    "history",
    "locate",
    "parse_patch",
    "preview_diff",
    "undo",
]
