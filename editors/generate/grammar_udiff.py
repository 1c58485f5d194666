"""The file-aware unified-diff grammar: every hunk it allows applies to the files as they are.

The patch it writes::

    --- a/path/to/file.py
    +++ b/path/to/file.py
    @@ ... @@
     context line      ← ' ' and '-' lines: consecutive lines of the file, a unique run
    -removed line
    +added line        ← free
    @@ ... @@
    …

**Headers are written as ``@@ ... @@`` and numbered after generation** (:func:`number_hunks`)
from where the hunk's old lines are, which the grammar made unique. A grammar that generated the
numbers would have to know a hunk's length before its body (``-12,5``): one rule per (start,
length) pair, quadratic in the file. Numbered afterwards, the diff is a git diff: ``unidiff``
reads it and ``git apply`` accepts it.

What the grammar enforces beyond the lines themselves:

* the old lines (``' '`` and ``'-'``) of a hunk are a run that occurs once in the file (its
  shortest unique run from the start is forced, as in SEARCH/REPLACE), so the hunk has one place;
* each hunk changes something, and one that does not end in a context line ends at the file's
  end — git's rule for numbered hunks without trailing context;
* hunks of a file come in file order without overlap, files in the given order, each once;
* a last line without a terminator carries ``\\ No newline at end of file``, and after a context
  line so marked nothing may be added (the new file would join them).

Flags per position: ``a`` nothing changed yet, ``b`` changed and the last line was not context,
``c`` changed and the last line was context, ``z`` after the marked last context line.

Rules per line ``j``: ``p{j}`` (a hunk starts here or later), ``a{j}``/``b{j}``/``c{j}`` (the
line written from that flag; where a hunk may end, the end — next hunk or next file — is
written into the rule, not called) and one tail per distinct line text. A start's forced run
has rules of its own only for its lines before the last: from the last on it is the
continuation at that line, so a line unique by itself starts a hunk in its own ``a{j}``
(~6 rules per line, from ~10.5 before; each is built by the recognizer only when entered).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from gramwright.editors.generate.grammar import (
    Entry,
    Rules,
    distinguishing_prefixes,
    file_chain,
    line_trie,
)
from gramwright.editors.generate.lines import FileLines
from gramwright.editors.patch.model import line_content, split_lines
from gramwright.errors import PatchError
from gramwright.grammar.ir import Expr, Grammar, Ref, char_class, literal, repeat, seq

__all__ = ["HUNK", "number_hunks", "udiff_grammar", "udiff_head"]

HUNK = "@@ ... @@\n"


def udiff_head(path: str, new: bool = False) -> str:
    source = "/dev/null" if new else f"a/{path}"
    return f"--- {source}\n+++ b/{path}\n{HUNK}"


class _File:
    def __init__(self, rules: Rules, k: int, lines: FileLines, after: str, capped: bool = False) -> None:
        self.rules = rules
        # with a cap on added lines in a row (``u-plus-run``), a run of ``+`` lines leads to the
        # state's ``B`` twin: the same lines as its ``b`` state, without another run of ``+``
        self.capped = capped
        self.p = f"u{k}"
        self.lines = lines
        self.after = after
        self.n = lines.count
        # a line's text is spelled whole once (its tail rule, called); each place it is written
        # spells only the line's first ``split[text]`` characters, as far as the start trie needs
        # to tell it from its siblings (the NFA has a state per byte of every literal: the text
        # inline at all six places was 1.6M states for 5,000 lines)
        self.split: dict[str, int] = {}
        self.tails: dict[str, str] = {}
        self.pieces: dict[tuple[str, str], Expr] = {}

    def piece(self, mark: str, text: str) -> Expr:
        """``mark`` and the line ``text``: its first characters inline, the rest a call (one
        expression per mark and text, shared by every place that writes it)."""
        got = self.pieces.get((mark, text))
        if got is not None:
            return got
        k = self.split.get(text, 0)
        if k >= len(text):
            got = literal(mark + text)
        else:
            tail = self.tails.get(text)
            if tail is None:
                tail = self.rules.add(f"{self.p}-s{len(self.tails)}", literal(text[k:]))
                self.tails[text] = tail
            got = seq(literal(mark + text[:k]), Ref(tail))
        self.pieces[(mark, text)] = got
        return got

    def plus(self, b_rule: str, twin: str, b_branches: list[Expr]) -> list[Expr]:
        """The ``+`` branch of a state whose ``b`` state is ``b_rule`` (with ``b_branches``, its
        branches other than ``+``): a loop back to it, or — capped — one bounded run of ``+``
        lines to ``twin``, its ``B`` twin (none when that twin could go nowhere)."""
        if not self.capped:
            return [seq(Ref("u-plus"), Ref(b_rule))]
        if not b_branches or not self.rules.has("u-plus-run"):
            return []
        if not self.rules.has(twin):
            self.rules.add(twin, *b_branches)
        return [seq(Ref("u-plus-run"), Ref(twin))]

    def u(self, j: int, flag: str) -> str | None:
        name = f"{self.p}-{flag}{j}"
        return name if self.rules.has(name) else None

    def after_context(self, j: int, flag: str) -> str:
        """The flag after line ``j`` was written as context."""
        if j == self.n - 1 and not self.lines.final_newline:
            return "z" if flag != "a" else ""  # unchanged up to a marked last line: dead
        return "a" if flag == "a" else "c"

    def steps(self, j: int, ctx: str | None, dele: str | None) -> list[Expr]:
        """Line ``j`` as context (to rule ``ctx``) or removed (to ``dele``)."""
        out: list[Expr] = []
        text = self.lines.written[j]
        if ctx is not None:
            out.append(seq(self.piece(" ", text), Ref(ctx)))
        if dele is not None:
            out.append(seq(self.piece("-", text), Ref(dele)))
        return out

    def lines_of(self, j: int, flag: str) -> list[Expr]:
        """Line ``j`` written from a state of ``flag`` (none at the end, or after ``z``)."""
        if j >= self.n or flag == "z":
            return []
        ctx_flag = self.after_context(j, flag)
        ctx = self.u(j + 1, ctx_flag) if ctx_flag else None
        return self.steps(j, ctx, self.u(j + 1, "b"))

    def continuation(self, j: int, flags: str, end: list[Expr]) -> None:
        """``{flag}{j}`` for ``flags``: the hunk's old lines have reached line ``j`` (already
        unique). ``end``: the hunk ends there (a next hunk from line ``j`` on, or the next file),
        written into each state that may end, not called: one rule less per line."""
        p, n, rules = self.p, self.n, self.rules
        b_lines = self.lines_of(j, "b") + (end if j == n else [])
        for flag in flags:
            if flag == "z" and not (j == n and n and not self.lines.final_newline):
                continue
            branches = self.lines_of(j, flag)
            if flag in ("c", "z") or (flag == "b" and j == n):
                branches += end
            if flag != "z":
                branches += self.plus(f"{p}-b{j}", f"{p}-B{j}", b_lines)
            if branches:
                rules.add(f"{p}-{flag}{j}", *branches)

    def forced(self, i: int, depth: int) -> dict[str, str | None]:
        """Rules for the forced lines of the run from ``i`` after ``depth`` of them, by flag.
        Once its last line is reached the run is unique: from there it is the continuation at
        that line (``a``/``b`` of line ``i + k - 1``), not rules of its own — for a line that is
        unique by itself, the run's rules are the line's own."""
        k = self.lines.unique[i]
        last = i + k - 1
        out: dict[str, str | None] = {f"{k - 1}a": self.u(last, "a"), f"{k - 1}b": self.u(last, "b")}
        b_steps: list[Expr] = []
        for m in range(k - 2, depth - 1, -1):
            j = i + m
            for flag in ("b", "a"):
                name = f"{self.p}-f{i}-{m}{flag}"
                if self.rules.has(name):
                    out[f"{m}{flag}"] = name
                    continue
                branches = self.steps(j, out.get(f"{m + 1}{flag}"), out.get(f"{m + 1}b"))
                if flag == "b":
                    b_steps = list(branches)  # what the b state's B twin may do (capped)
                branches += self.plus(f"{self.p}-f{i}-{m}b", f"{self.p}-f{i}-{m}B", b_steps)
                out[f"{m}{flag}"] = self.rules.add(name, *branches)
        return {flag: out.get(f"{depth}{flag}") for flag in ("a", "b")}

    def build(self) -> Entry:
        p, n, rules, lines = self.p, self.n, self.rules, self.lines
        starts = [i for i in range(n) if lines.run_ok(i)]
        valid = set(starts)
        trie = line_trie(lines, starts)
        for node in trie:
            for text, k in distinguishing_prefixes(t for t, _c, _s in node.children).items():
                self.split[text] = max(k, self.split.get(text, 0))
        after: list[Expr] = [Ref(self.after)]
        # per line, each rule after the rules it calls: ``b``/``a`` (the line written), ``p``
        # (a hunk may start here or later: its first run's rules end in this line's ``a``), then
        # ``c``/``z``, which may end the hunk and so start the next one from ``p``
        self.continuation(n, "bacz", after)
        for j in range(n - 1, -1, -1):
            self.continuation(j, "ba", [])
            branches: list[Expr] = []
            if j in valid:
                first = self.forced(j, 0)["a"]
                if first:
                    branches.append(Ref(first))
            if rules.has(f"{p}-p{j + 1}"):
                branches.append(Ref(f"{p}-p{j + 1}"))
            if branches:
                rules.add(f"{p}-p{j}", *branches)
            end: list[Expr] = [seq(Ref("u-hunk"), Ref(f"{p}-p{j}"))] if rules.has(f"{p}-p{j}") else []
            self.continuation(j, "cz", end + after)
        for node in trie:
            b_alts: list[Expr] = []
            for flag in ("b", "a"):
                alts: list[Expr] = []
                for _text, child, start in node.children:
                    ctx: str | None
                    dele: str | None
                    if child is not None:
                        ctx, dele = f"{p}-t{child}{flag}", f"{p}-t{child}b"
                    else:
                        ctx, dele = self._leaf_targets(start, node.depth + 1, flag)
                    alts += self.steps(start + node.depth, ctx, dele)
                if flag == "b":
                    b_alts = list(alts)
                alts += self.plus(f"{p}-t{node.ident}b", f"{p}-t{node.ident}B", b_alts)
                rules.add(f"{p}-t{node.ident}{flag}", *alts)
        return Entry(udiff_head(lines.path), f"{p}-t0a")

    def _leaf_targets(self, start: int, consumed: int, flag: str) -> tuple[str | None, str | None]:
        k = self.lines.unique[start]
        if consumed < k:
            after = self.forced(start, consumed)
            return after[flag], after["b"]
        last = start + k - 1
        ctx_flag = self.after_context(last, flag)
        return (self.u(last + 1, ctx_flag) if ctx_flag else None), self.u(last + 1, "b")


def _plus_rule(rules: Rules) -> None:
    not_nl = char_class([(10, 10)], negated=True)
    rules.add("u-plus", seq(literal("+"), repeat(not_nl, 0, None), literal("\n")))
    rules.add("u-hunk", literal(HUNK))


def udiff_grammar(
    files: Sequence[FileLines], new_files: Sequence[str] = (), max_added_lines: int | None = None
) -> Grammar:
    """The grammar of unified diffs that apply to ``files`` (and create ``new_files``); every
    file must have a unique run (see ``search_replace_grammar``). ``max_added_lines`` bounds each
    run of ``+`` lines in a hunk (a new file's lines are not bounded): a small model that repeats
    an added line is made to go on with the file's lines or end the hunk."""
    rules = Rules()
    _plus_rule(rules)
    capped = max_added_lines is not None
    if max_added_lines is not None:
        if max_added_lines < 0:
            raise ValueError("max_added_lines must be at least 0")
        if max_added_lines:  # 0: hunks only remove lines
            rules.add("u-plus-run", repeat(Ref("u-plus"), 1, max_added_lines))

    def build(k: int, after: str) -> Entry:
        if k < len(files):
            return _File(rules, k, files[k], after, capped).build()
        path = new_files[k - len(files)]
        body = seq(Ref("u-plus"), repeat(Ref("u-plus"), 0, None), Ref(after))
        return Entry(udiff_head(path, new=True), rules.add(f"new{k}", body))

    return rules.finish(file_chain(rules, len(files) + len(new_files), build))


def _header(old_start: int, old_count: int, new_start: int, new_count: int) -> str:
    return f"@@ -{old_start},{old_count} +{new_start},{new_count} @@\n"


def number_hunks(text: str, files: Mapping[str, FileLines]) -> str:
    """Replace each ``@@ ... @@`` of a diff this grammar wrote by its real numbers: the old lines
    are found where they are in the file (exactly, once: the grammar made them unique); the new
    start follows from the hunks before it. Other text is returned as it is."""
    lines = list(split_lines(text))
    heads = {udiff_head(p)[: -len(HUNK)] for p in files}
    heads |= {line + nxt for line, nxt in itertools.pairwise(lines) if line == "--- /dev/null\n"}
    out: list[str] = []
    index = 0
    path: str | None = None
    delta = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("+++ "):
            target = line_content(line)[4:]
            path = target[2:] if target.startswith("b/") else target
            new_file = bool(out) and out[-1].startswith("--- /dev/null")
            if new_file:
                path = None
            delta = 0
            out.append(line)
            index += 1
            continue
        if line != HUNK:
            out.append(line)
            index += 1
            continue
        body_end = index + 1
        while body_end < len(lines) and lines[body_end][:1] in (" ", "-", "+", "\\"):
            if "".join(lines[body_end : body_end + 2]) in heads:
                break  # the next file's header (a removed "-- a/x" line would read alike)
            body_end += 1
        body = lines[index + 1 : body_end]
        new_count = sum(1 for b in body if b[:1] in (" ", "+"))
        old = _old_lines(body)
        if path is None:  # a new file
            out.append(_header(0, 0, 1, new_count))
        else:
            fl = files.get(path)
            if fl is None:
                raise PatchError(
                    f"hunk for a file the grammar does not know: {path}", where=f"patch line {index + 1}"
                )
            start = _find(fl.raw, old)
            new_start = start + 1 + delta if new_count else start + delta
            out.append(_header(start + 1, len(old), new_start, new_count))
            delta += new_count - len(old)
        out.extend(body)
        index = body_end
    return "".join(out)


def _old_lines(body: Sequence[str]) -> list[str]:
    old: list[str] = []
    last_kind = ""
    for line in body:
        kind = line[:1]
        if kind == "\\":
            if last_kind in (" ", "-") and old:
                old[-1] = line_content(old[-1])
            continue
        if kind in (" ", "-"):
            old.append(line[1:])
        last_kind = kind
    return old


def _find(raw: Sequence[str], old: Sequence[str]) -> int:
    """The one place where ``old`` is in ``raw`` (0-based); a PatchError if it is not once."""
    width = len(old)
    found = [s for s in range(len(raw) - width + 1) if list(raw[s : s + width]) == list(old)]
    if len(found) != 1:
        raise PatchError(
            f"a hunk's old lines occur {len(found)} times in the file, not once",
            hint="this is a bug in the udiff grammar: please report the files and the output",
        )
    return found[0]
