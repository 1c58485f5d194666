"""The prompt of an edit request: the format's instructions (system) and the files plus the task (user).

As aider's prompts do, the system message says what to write and shows one example in exactly the
form the grammar enforces, and the user message carries every file in full, in a fence, followed
by the instruction. The same prompt serves the constrained and the unconstrained run, so the two
differ only by the mask.
"""

from __future__ import annotations

from collections.abc import Sequence

from gramwright.editors.patch.model import EditFormat
from gramwright.editors.patch.snapshot import FileSnapshot

__all__ = ["edit_system_prompt", "edit_user_prompt"]

_SR = """\
You are an expert software developer. Change the files the user shows you as they ask.
Answer only with SEARCH/REPLACE blocks, nothing else. Each block is:

the/file/path.py
<<<<<<< SEARCH
lines copied exactly from the file, enough of them to occur only once
=======
the lines that replace them
>>>>>>> REPLACE

Example:

inventory.py
<<<<<<< SEARCH
def total(items):
    return 0
=======
def total(items):
    return sum(item["price"] for item in items)
>>>>>>> REPLACE

Copy the SEARCH lines character for character, indentation included. To change several places,
write several blocks, in the order the places have in the file."""

_UDIFF = """\
You are an expert software developer. Change the files the user shows you as they ask.
Answer only with a unified diff, nothing else, in this form:

--- a/the/file/path.py
+++ b/the/file/path.py
@@ ... @@
 an unchanged line of the file
-a line of the file to remove
+a line to add

Example:

--- a/inventory.py
+++ b/inventory.py
@@ ... @@
 def total(items):
-    return 0
+    return sum(item["price"] for item in items)
\x20
 def count(items):

Lines starting with a space or '-' are copied exactly from the file, in the file's order.
Start each change with a new @@ ... @@ line; write the changes in file order. End each change
with an unchanged line (a space, then the line), unless it reaches the end of the file."""


def edit_system_prompt(fmt: EditFormat) -> str:
    if fmt is EditFormat.UDIFF:
        return _UDIFF
    if fmt is EditFormat.SEARCH_REPLACE:
        return _SR
    raise ValueError(f"no edit prompt for {fmt}")


def edit_user_prompt(files: Sequence[FileSnapshot], instruction: str, new_files: Sequence[str] = ()) -> str:
    parts = []
    for snap in files:
        text = snap.text if snap.text.endswith("\n") or not snap.text else snap.text + "\n"
        parts.append(f"{snap.path}\n```\n{text}```")
    for path in new_files:
        parts.append(f"{path} (a new file: create it with an empty SEARCH)")
    return "\n\n".join(parts) + f"\n\n{instruction.strip()}\n"
