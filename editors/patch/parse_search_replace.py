"""SEARCH/REPLACE blocks as aider writes them (``diff`` and ``diff-fenced``) → :class:`Patch`.

::

    path/to/file.py            ← the path: on its own line before the fence (diff) …
    ```python
    path/to/file.py            ← … or inside it (diff-fenced)
    <<<<<<< SEARCH
    old lines
    =======
    new lines
    >>>>>>> REPLACE
    ```

The fence is any of aider's: ```` ``` ````, four backticks, ``~~~``, or ``<source>`` / ``<code>`` /
``<pre>`` / ``<codeblock>`` / ``<sourcecode>`` (aider switches to these when a file holds triple
backticks). Markers as aider accepts them: 5–9 ``<``/``=``/``>``, ``SEARCH>`` tolerated (Claude 4 writes it),
trailing whitespace allowed; as in aider, a second divider also ends the REPLACE text (models
close a block with ``=======`` instead of ``>>>>>>> REPLACE``; noted), and a ``>>>>>>> REPLACE``
that follows such a block (blank lines between allowed) is passed over (noted); any other
``>>>>>>> REPLACE`` outside a block is refused. gramwright's own edit grammar writes only the
canonical close. A block without a path
line reuses the previous block's path (noted). An empty SEARCH creates a file. Text outside
blocks (prose, fences) is ignored.
"""

from __future__ import annotations

import re

from gramwright.editors.patch.model import Edit, EditFormat, FileCreate, Patch, line_content, split_lines
from gramwright.errors import PatchError

__all__ = ["HEAD", "parse_search_replace"]

HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_TAIL = re.compile(r"^>{5,9} REPLACE\s*$")
# aider's fences: three or four backticks, or (for files that hold backticks themselves) an
# HTML-like tag pair, opened with a language after the tag (``<source>python``)
_FENCE = re.compile(r"^\s*(```|~~~|</?(source|code|pre|codeblock|sourcecode)>)")
# how far above a SEARCH marker aider looks for the path (fence lines in between are skipped)
_PATH_LOOKBACK = 3


def _path_before(lines: tuple[str, ...], head: int) -> str | None:
    """The path written on the nearest non-fence line among the few above line index ``head``."""
    for index in range(head - 1, max(-1, head - 1 - _PATH_LOOKBACK), -1):
        text = line_content(lines[index]).strip()
        if _FENCE.match(text):
            continue
        candidate = text.rstrip(":").strip().strip("`*#").strip()
        if candidate and not any(ch.isspace() for ch in candidate) and not HEAD.match(candidate):
            if _TAIL.match(candidate) or _DIVIDER.match(candidate):
                return None
            return candidate
        return None
    return None


def _body(
    lines: tuple[str, ...], start: int, end_markers: tuple[re.Pattern[str], ...], what: str, head_line: int
) -> int:
    """Index of the line that closes the section starting at ``start`` (raises when it is missing)."""
    for index in range(start, len(lines)):
        text = line_content(lines[index])
        if any(marker.match(text) for marker in end_markers):
            return index
        if HEAD.match(text):
            raise PatchError(
                f"unexpected {text.strip()!r} inside the block opened at patch line {head_line}",
                where=f"patch line {index + 1}",
                hint=f"each block is <<<<<<< SEARCH, old lines, =======, new lines, >>>>>>> REPLACE;"
                f" expected {what} first",
            )
    raise PatchError(
        f"the block opened at patch line {head_line} has no {what}",
        where=f"patch line {len(lines)}",
        hint=f"close the block with a {what}",
    )


def parse_search_replace(text: str) -> Patch:
    """Parse every SEARCH/REPLACE block in ``text``; :class:`PatchError` names the patch line."""
    lines = split_lines(text)
    edits: list[Edit] = []
    creates: list[FileCreate] = []
    notes: list[str] = []
    previous: str | None = None
    divider_closed: int | None = None  # the line index of the divider that closed the last block
    index = 0
    while index < len(lines):
        content = line_content(lines[index])
        if _TAIL.match(content):
            if divider_closed is not None and all(
                not line_content(lines[k]).strip() for k in range(divider_closed + 1, index)
            ):
                # the model closed the block with a second divider and then wrote the canonical
                # close too: aider reads the block as ended and passes over the marker, as here
                notes.append(
                    f"stray >>>>>>> REPLACE at patch line {index + 1} (after the block closed by the"
                    f" ======= at patch line {divider_closed + 1}): skipped, as aider does"
                )
                divider_closed = None
                index += 1
                continue
            # (a stray ======= is left alone: prose may underline a heading with it)
            raise PatchError(
                f"{content.strip()!r} without a <<<<<<< SEARCH line before it",
                where=f"patch line {index + 1}",
                hint="a block starts with a line <<<<<<< SEARCH",
            )
        if not HEAD.match(content.strip()):
            index += 1
            continue
        head_line = index + 1
        path = _path_before(lines, index)
        if path is None:
            if previous is None:
                raise PatchError(
                    "no file path before this SEARCH block",
                    where=f"patch line {head_line}",
                    hint="write the file's path on its own line just before the ``` fence (or inside it)",
                )
            path = previous
            notes.append(
                f"block at patch line {head_line} names no path: it edits {path}, as the block before"
            )
        divider = _body(lines, index + 1, (_DIVIDER,), "======= line", head_line)
        tail = _body(lines, divider + 1, (_TAIL, _DIVIDER), ">>>>>>> REPLACE line", head_line)
        divider_closed = None
        if _DIVIDER.match(line_content(lines[tail])):
            divider_closed = tail
            notes.append(
                f"block at patch line {head_line} ends with a second ======= line (patch line {tail + 1}):"
                " read as its >>>>>>> REPLACE, as aider does"
            )
        old, new = lines[index + 1 : divider], lines[divider + 1 : tail]
        if not old:
            creates.append(FileCreate(path=path, content="".join(new), patch_line=head_line))
        else:
            edits.append(Edit(path=path, old=old, new=new, patch_line=head_line))
        previous = path
        index = tail + 1
    if not edits and not creates:
        raise PatchError(
            "no SEARCH/REPLACE blocks found",
            where="patch line 1",
            hint="a block is: path line, <<<<<<< SEARCH, old lines, =======, new lines, >>>>>>> REPLACE",
        )
    return Patch(
        format=EditFormat.SEARCH_REPLACE,
        edits=tuple(edits),
        creates=tuple(creates),
        text=text,
        notes=tuple(notes),
    )
