"""A target file as the edit grammars see it: its lines as the patch writes them, and, for every
start line, the shortest run of lines from there that occurs exactly once in the file.

Uniqueness is judged by the relation the checker's exact level uses (``match.py``), so a run the
grammar calls unique is one ``check_patch`` locates in exactly one place:

* SEARCH/REPLACE text cannot spell line terminators apart from the lines, so a written line
  matches a file line with the same content and the same terminator, and the file's last line
  when it has none (``exact_eol`` off). That last line is written with the file's majority
  terminator.
* Unified diffs spell terminators out (``exact_eol`` on): content and terminator must be equal;
  a last line without one is written with ``\\ No newline at end of file``.

The shortest unique runs come from a suffix array over the lines (prefix doubling) and its LCP
array (Kasai): the run from ``i`` is unique once it is one line longer than its longest common
prefix with either neighbour in suffix order — O(n log² n) for n lines, no per-pair comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gramwright.editors.patch.model import line_content, line_ending
from gramwright.editors.patch.snapshot import FileSnapshot

__all__ = ["NO_NEWLINE", "FileLines", "file_lines", "shortest_unique_runs"]

NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True)
class FileLines:
    """One file's lines for a grammar: ``written[i]`` is line ``i`` as the patch spells it,
    ``unique[i]`` the length of the shortest unique run starting there (0: none is), and
    ``barrier[i]`` marks lines the format cannot carry in its old text; ``raw`` are the lines
    as the file has them."""

    path: str
    raw: tuple[str, ...]
    written: tuple[str, ...]
    unique: tuple[int, ...]
    barrier: tuple[bool, ...]
    final_newline: bool

    @property
    def count(self) -> int:
        return len(self.written)

    def run_ok(self, start: int) -> bool:
        """Whether a unique run starts at ``start`` and crosses no barrier line."""
        k = self.unique[start]
        return k > 0 and not any(self.barrier[start : start + k])


def _suffix_array(seq: Sequence[int]) -> list[int]:
    n = len(seq)
    rank = list(seq)
    sa = list(range(n))
    k = 1
    while n:
        keys = [(rank[i], rank[i + k] if i + k < n else -1) for i in range(n)]
        sa.sort(key=keys.__getitem__)
        new = [0] * n
        for a, b in itertools.pairwise(sa):
            new[b] = new[a] + (keys[a] != keys[b])
        rank = new
        if rank[sa[-1]] == n - 1:
            break
        k *= 2
    return sa


def _lcp(seq: Sequence[int], sa: Sequence[int]) -> list[int]:
    """``lcp[r]``: common prefix of the suffixes at ranks ``r-1`` and ``r`` (Kasai)."""
    n = len(seq)
    rank = [0] * n
    for r, i in enumerate(sa):
        rank[i] = r
    lcp = [0] * n
    h = 0
    for i in range(n):
        r = rank[i]
        if r == 0:
            h = 0
            continue
        j = sa[r - 1]
        while i + h < n and j + h < n and seq[i + h] == seq[j + h]:
            h += 1
        lcp[r] = h
        if h:
            h -= 1
    return lcp


def shortest_unique_runs(keys: Sequence[int]) -> list[int]:
    """For each start, the length of the shortest run of ``keys`` from there that occurs once
    (0 when even the whole suffix occurs again)."""
    n = len(keys)
    sa = _suffix_array(keys)
    lcp = _lcp(keys, sa)
    out = [0] * n
    for r, i in enumerate(sa):
        longest = max(lcp[r], lcp[r + 1] if r + 1 < n else 0)
        if i + longest + 1 <= n:
            out[i] = longest + 1
    return out


def file_lines(
    snapshot: FileSnapshot, *, exact_eol: bool, barrier: Callable[[str], bool] = lambda _line: False
) -> FileLines:
    """The lines of ``snapshot`` as a format writes them; ``barrier(content)`` marks lines its old
    text cannot hold (a SEARCH block cannot contain a ``=======`` line)."""
    lines = snapshot.lines
    last_ending = "" if exact_eol else snapshot.preferred_ending
    written: list[str] = []
    ids: dict[tuple[str, str], int] = {}
    keys: list[int] = []
    for index, line in enumerate(lines):
        content, ending = line_content(line), line_ending(line)
        if not ending and index == len(lines) - 1:
            ending = last_ending
            written.append(content + "\n" + NO_NEWLINE if exact_eol else content + ending)
        else:
            written.append(line)
        keys.append(ids.setdefault((content, ending), len(ids)))
    unique = shortest_unique_runs(keys)
    if not exact_eol and lines and not snapshot.final_newline:
        unique = _widen_for_last_line(lines, unique)
    return FileLines(
        path=snapshot.path,
        raw=lines,
        written=tuple(written),
        unique=tuple(unique),
        barrier=tuple(barrier(line_content(line)) for line in lines),
        final_newline=snapshot.final_newline,
    )


def _widen_for_last_line(lines: Sequence[str], unique: list[int]) -> list[int]:
    """Without ``exact_eol`` a last line lacking its terminator matches a written line of the
    same content whatever terminator that has (in a mixed file, more than the keys say): a run
    that would also match at the file's end is made longer until it does not."""
    n = len(lines)

    def matches_at_end(start: int, k: int) -> bool:
        at = n - k
        if at == start:
            return False
        for off in range(k):
            mine, theirs = lines[at + off], lines[start + off]
            if line_content(mine) != line_content(theirs):
                return False
            if line_ending(mine) and line_ending(mine) != line_ending(theirs):
                return False
        return True

    out = list(unique)
    for start, k in enumerate(out):
        if not k:
            continue
        while k <= n - start and matches_at_end(start, k):
            k += 1
        out[start] = k if k <= n - start else 0
    return out
