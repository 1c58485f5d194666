"""The "did you mean lines 41–47?" report: the file lines closest to old text not in the file.

A model whose SEARCH text does not match usually misremembered a line or two; showing it the real
lines, numbered, with the differing ones marked, is what lets it fix the edit on the next try
(aider's "Did you mean to match some of these actual lines"). Found in two steps that stay cheap
on long files: windows of the old text's length ranked by how many of its (stripped) lines they
contain, one pass with a running count; then the best few re-ranked by difflib similarity.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

from gramwright.editors.patch.model import line_content

__all__ = ["Nearest", "NearestLine", "nearest_lines"]

_SHORTLIST = 4
_MIN_SIMILARITY = 0.25  # below this the "closest" lines are noise (usually the wrong file)
_MAX_SCAN = 2000  # windows compared by difflib when no window shares a single line


@dataclass(frozen=True)
class NearestLine:
    number: int  # 1-based line of the file
    text: str  # without its terminator
    differs: bool  # not one of the old text's lines (in order)


@dataclass(frozen=True)
class Nearest:
    start_line: int
    end_line: int
    similarity: float  # difflib ratio of the window against the old text, 0..1
    lines: tuple[NearestLine, ...]
    unmatched: tuple[str, ...]  # the old text's lines that these file lines do not have

    @property
    def span(self) -> str:
        """``"line 7"`` or ``"lines 4–7"``."""
        if self.start_line == self.end_line:
            return f"line {self.start_line}"
        return f"lines {self.start_line}–{self.end_line}"

    def render(self) -> str:
        """The window as text for a human or a model: ``!`` marks a line that differs."""
        width = len(str(self.end_line))
        body = [f"{'!' if ln.differs else ' '} {ln.number:>{width}} | {ln.text}" for ln in self.lines]
        if self.unmatched:
            body.append("  the old text has instead:")
            body.extend(f"  - {text}" for text in self.unmatched)
        return "\n".join(body)


def _ratio(a: list[str], b: list[str]) -> float:
    return difflib.SequenceMatcher(None, "\n".join(a), "\n".join(b), autojunk=False).ratio()


def _shortlist(keys: list[str], wanted: Counter[str], size: int) -> list[int]:
    window: Counter[str] = Counter()
    shared = 0
    scores: list[tuple[int, int]] = []
    for index, key in enumerate(keys):
        if window[key] < wanted[key]:
            shared += 1
        window[key] += 1
        if index >= size:
            gone = keys[index - size]
            window[gone] -= 1
            if window[gone] < wanted[gone]:
                shared -= 1
        if index >= size - 1:
            scores.append((shared, index - size + 1))
    if not scores or max(scores)[0] == 0:
        step = max(1, len(scores) // _MAX_SCAN, size // 2)
        return list(range(0, max(1, len(keys) - size + 1), step))
    scores.sort(key=lambda item: (-item[0], item[1]))
    return [start for _, start in scores[:_SHORTLIST]]


def nearest_lines(lines: tuple[str, ...], old: tuple[str, ...]) -> Nearest | None:
    """The run of file lines most like ``old``, or None when nothing resembles it."""
    if not lines or not old:
        return None
    size = min(len(old), len(lines))
    file_text = [line_content(line).rstrip() for line in lines]
    old_text = [line_content(line).rstrip() for line in old]
    keys = [text.strip() for text in file_text]
    starts = _shortlist(keys, Counter(text.strip() for text in old_text), size)
    best = max(starts, key=lambda start: (_ratio(old_text, file_text[start : start + size]), -start))
    window = file_text[best : best + size]
    similarity = _ratio(old_text, window)
    if similarity < _MIN_SIMILARITY:
        return None
    differs = [True] * len(window)
    unmatched: list[str] = []
    matcher = difflib.SequenceMatcher(None, old_text, window, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for j in range(j1, j2):
                differs[j] = False
        else:
            unmatched.extend(old_text[i1:i2])
    return Nearest(
        start_line=best + 1,
        end_line=best + len(window),
        similarity=round(similarity, 3),
        lines=tuple(NearestLine(best + 1 + j, window[j], differs[j]) for j in range(len(window))),
        unmatched=tuple(unmatched),
    )
