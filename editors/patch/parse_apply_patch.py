"""The ``*** Begin Patch`` envelope OpenAI's models are trained to emit (Codex ``apply_patch``).

::

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py          (optional)
    @@ def handler(event):            (optional anchor lines, searched in order)
         context
    -    old
    +    new
    *** End of File                   (optional: the chunk ends at the file's end)
    *** Add File: NEW.md
    +every line of the new file
    *** Delete File: OLD.md
    *** End Patch

Lenient where Codex's parser is: whitespace around markers (a marker line is one whose stripped
text is a marker, also inside a chunk), a ``<<'EOF'`` heredoc wrapper, blank lines between
sections, a blank line inside a chunk read as an empty context line. Strict where a cut-off
reply would otherwise pass: an envelope without its ``*** End Patch`` line is refused (a model
stopped by its token limit writes exactly that, and the chunk it was writing is incomplete). Each chunk
becomes one :class:`Edit` (context and ``-`` lines old, context and ``+`` lines new) that must
match after the chunk before it (chunks are in file order) and after its anchor lines.
"""

from __future__ import annotations

import re

from gramwright.editors.patch.model import (
    Edit,
    EditFormat,
    FileCreate,
    FileDelete,
    FileRename,
    Patch,
    line_content,
    split_lines,
)
from gramwright.errors import PatchError

__all__ = ["BEGIN", "parse_apply_patch"]

BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_ADD, _DELETE, _UPDATE, _MOVE = "*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:"
_EOF = "*** End of File"
_SECTIONS = f"'{_ADD} PATH', '{_DELETE} PATH', '{_UPDATE} PATH' or '{_END}'"
_MARKERS = (_ADD, _DELETE, _UPDATE, _MOVE)
# a quoted shell heredoc opener (<<'EOF', <<"EOF"): group 3 must close it as group 1 opened it
_HEREDOC = re.compile(r"<<-?\s*(['\"])(\w+)(['\"]?)")


def _error(message: str, line: int, hint: str) -> PatchError:
    return PatchError(message, where=f"patch line {line}", hint=hint)


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)
        self.index = 0
        self.edits: list[Edit] = []
        self.creates: list[FileCreate] = []
        self.deletes: list[FileDelete] = []
        self.renames: list[FileRename] = []
        self.notes: list[str] = []

    def marker(self, offset: int = 0) -> str:
        at = self.index + offset
        return line_content(self.lines[at]).strip() if at < len(self.lines) else ""

    def path_after(self, prefix: str) -> str:
        path = self.marker()[len(prefix) :].strip()
        if not path:
            raise _error(f"{prefix!r} without a path", self.index + 1, f"write '{prefix} path/to/file'")
        return path

    def run(self) -> None:
        while self.index < len(self.lines) and self.marker() != BEGIN:
            self.index += 1  # prose, a fence, a heredoc line: before the envelope
        if self.index == len(self.lines):
            raise _error(f"no '{BEGIN}' line", 1, f"an apply_patch envelope starts with '{BEGIN}'")
        self.check_heredoc()
        self.index += 1
        while self.index < len(self.lines):
            line, number = self.marker(), self.index + 1
            if line == _END:
                return
            if not line:
                self.index += 1
            elif line.startswith(_ADD):
                self.add(self.path_after(_ADD), number)
            elif line.startswith(_DELETE):
                self.deletes.append(FileDelete(path=self.path_after(_DELETE), patch_line=number))
                self.index += 1
            elif line.startswith(_UPDATE):
                self.update(self.path_after(_UPDATE), number)
            else:
                raise _error(f"unexpected line {line[:60]!r}", number, f"expected {_SECTIONS}")
        filled = [i for i, raw in enumerate(self.lines) if line_content(raw).strip()]
        last = filled[-1] if filled else 0
        raise _error(
            f"the envelope has no '{_END}' line: it stops at"
            f" {line_content(self.lines[last]).strip()[:60]!r} (truncated?); nothing applied",
            last + 1,
            f"send the whole patch, ending with '{_END}'",
        )

    def check_heredoc(self) -> None:
        """A quoted heredoc opener just before the envelope must close its quote as it opened it:
        with the quotes mismatched (``<<"EOF'``) a shell would not end the text at ``EOF``, and
        Codex refuses the patch."""
        before = [i for i in range(self.index) if line_content(self.lines[i]).strip()]
        if not before:
            return
        line = line_content(self.lines[before[-1]]).strip()
        opener = _HEREDOC.search(line)
        if opener is not None and opener.group(1) != opener.group(3):
            raise _error(
                f"a heredoc opener whose quotes do not match: {line[:60]!r}",
                before[-1] + 1,
                "write <<'EOF' (or <<EOF, <<\"EOF\") before the envelope, or drop the wrapper",
            )

    def add(self, path: str, number: int) -> None:
        self.index += 1
        content: list[str] = []
        while self.index < len(self.lines) and self.lines[self.index].startswith("+"):
            content.append(_terminated(self.lines[self.index][1:]))
            self.index += 1
        # Codex's Add File replaces an existing file (reported, kept in the backup)
        self.creates.append(FileCreate(path, "".join(content), number, overwrite=True))

    def update(self, path: str, number: int) -> None:
        self.index += 1
        if self.marker().startswith(_MOVE):
            self.renames.append(FileRename(path, self.path_after(_MOVE), self.index + 1, overwrite=True))
            self.index += 1
        chunks = 0
        anchors: list[str] = []
        old: list[str] = []
        new: list[str] = []
        ops: list[str] = []  # each line's kind, so the kept one of two equal lines is known
        start = self.index + 1

        bare = 0  # blank lines at a chunk's end separate sections; they are not context

        def close(at_end: bool = False) -> None:
            nonlocal chunks, old, new, ops, anchors, bare
            if bare:
                old, new, ops, bare = old[:-bare], new[:-bare], ops[:-bare], 0
            if old or new:
                if not old and not anchors and not at_end:
                    # nothing says where: Codex appends such a chunk at the end of the file
                    at_end = True
                    self.notes.append(
                        f"patch line {start}: a chunk of only added lines, without context or an @@"
                        f" line; appended at the end of {path}, as Codex does"
                    )
                edit = Edit(
                    path,
                    tuple(old),
                    tuple(new),
                    start,
                    at_end=at_end,
                    anchor=tuple(anchors),
                    in_order=True,
                    codex_seek=True,
                    ops="".join(ops),
                )
                self.edits.append(edit)
                chunks += 1
                anchors = []
            old, new, ops = [], [], []

        while self.index < len(self.lines):
            raw, line = self.lines[self.index], self.marker()
            # a marker, also indented (' *** End Patch' would otherwise be a context line);
            # a change line starts with ' ', '-' or '+'
            if raw.startswith("*") or line in (_END, _EOF) or line.startswith(_MARKERS):
                if line != _EOF:
                    break
                close(at_end=True)
                self.index += 1
                start = self.index + 1
                continue
            if line_content(raw).startswith("@@"):
                close()
                start = self.index + 1
                context = line_content(raw)[2:].strip()
                if context:
                    anchors.append(context)
            elif line_content(raw) == "":
                old.append(raw)  # an empty context line whose ' ' the model dropped
                new.append(raw)
                ops.append(" ")
                bare += 1
                self.index += 1
                continue
            elif raw[0] in " -+":
                body = _terminated(raw[1:])
                if raw[0] in " -":
                    old.append(body)
                if raw[0] in " +":
                    new.append(body)
                ops.append(raw[0])
            else:
                raise _error(
                    f"unexpected line {line[:60]!r} in the update of {path}",
                    self.index + 1,
                    "a change line starts with ' ' (context), '-' (removed) or '+' (added);"
                    " '@@' starts a chunk",
                )
            bare = 0
            self.index += 1
        close()
        if not chunks and not any(r.path == path for r in self.renames):
            raise _error(f"'{_UPDATE} {path}' changes nothing", number, "add chunks of ' ', '-', '+' lines")


def parse_apply_patch(text: str) -> Patch:
    """Parse an apply_patch envelope; :class:`PatchError` names the patch line."""
    parser = _Parser(text)
    parser.run()
    return Patch(
        format=EditFormat.APPLY_PATCH,
        edits=tuple(parser.edits),
        creates=tuple(parser.creates),
        deletes=tuple(parser.deletes),
        renames=tuple(parser.renames),
        text=text,
        notes=tuple(parser.notes),
    )
