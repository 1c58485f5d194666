"""The file-aware SEARCH/REPLACE grammar: every block it allows applies to the files as they are.

The patch it writes, one block after another (no fences, no prose)::

    path/to/file.py
    <<<<<<< SEARCH
    a run of the file's lines that occurs exactly once in it
    =======
    free lines (none that the parser would read as a marker)
    >>>>>>> REPLACE

* The path is one of the given files (a closed choice); files come in the given order, each at
  most once, so the blocks of one file are consecutive and can be kept in file order.
* SEARCH is the shortest unique run from some start line (forced line by line, see
  ``lines.py``), then as many following lines as the model likes: after each of them the
  ``=======`` line may come. The next block of the file starts after the last SEARCH line, so
  blocks never overlap. Lines that a SEARCH section cannot hold (``=======``, ``<<<<<<< SEARCH``
  as the parser reads them) end runs.
* New files (``new_files``): ``path``, ``<<<<<<< SEARCH``, ``=======`` — an empty SEARCH creates it.
* The output ends only after a complete block.

Rules per file of n lines: ``c{j}`` (the SEARCH may go on with line j or end), ``n{j}`` (after a
block ending before line j), ``p{j}`` (a later block's start at line j or after), ``l{t}`` (one
per distinct line text, called from the others) and the trie of first-block starts
(``grammar.py``): O(n) rules, and the file's text about twice (its distinct lines once, the
trie's edges once).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gramwright.editors.generate.grammar import Entry, Rules, file_chain, line_trie
from gramwright.editors.generate.lines import FileLines
from gramwright.editors.patch.parse_search_replace import HEAD
from gramwright.grammar.ir import CharClass, Expr, Grammar, Ref, alt, char_class, literal, repeat, seq
from gramwright.grammar.ir import Literal as Lit

__all__ = ["DIVIDER", "REPLACE", "SEARCH", "is_marker_line", "search_replace_grammar", "sr_head"]

SEARCH = "<<<<<<< SEARCH\n"
DIVIDER = "=======\n"
REPLACE = ">>>>>>> REPLACE\n"
# the parser's divider (``parse_search_replace._DIVIDER``): a SEARCH section ends at the first one
_DIVIDER_LINE = re.compile(r"^={5,9}\s*$")


def is_marker_line(content: str) -> bool:
    """Lines a SEARCH section cannot hold: the parser ends or refuses the section there."""
    return bool(HEAD.match(content) or _DIVIDER_LINE.match(content))


def sr_head(path: str) -> str:
    return f"{path}\n{SEARCH}"


def _not(*chars: str) -> CharClass:
    return char_class([(ord(c), ord(c)) for c in ("\n", *chars)], negated=True)


def _free_line_rules(rules: Rules, max_replace_lines: int | None) -> None:
    """``sr-free``: any line whose first five characters are not all ``<``, all ``=`` or all ``>``
    (stricter than the parser, which only reads whole marker lines: simple, and no REPLACE line
    of real code starts so). Two rules, the marker-prefix chains nested inside one: a rule that
    reaches few others has a content signature, so its token masks are shared by every engine of
    the process (each edit grammar is new; its free lines are not)."""
    rest = rules.add("sr-rest", seq(repeat(_not(), 0, None), Lit("\n")))
    firsts: list[Expr] = [Lit("\n"), seq(_not("<", "=", ">"), Ref(rest))]
    for ch in ("<", "=", ">"):
        chain: Expr | None = None
        for _ in range(4):
            branches: list[Expr] = [Lit("\n"), seq(_not(ch), Ref(rest))]
            if chain is not None:
                branches.append(seq(Lit(ch), chain))
            chain = alt(*branches)
        assert chain is not None
        firsts.append(seq(Lit(ch), chain))
    rules.add("sr-free", *firsts)
    body = repeat(Ref("sr-free"), 0, max_replace_lines)
    # a second divider also closes REPLACE (the parser reads it as aider does): small models write
    # ``=======`` where the block ends, and a grammar without it leaves them a marker-like line that
    # runs to the token limit
    rules.add("sr-tail", seq(Lit(DIVIDER), body, alt(Lit(REPLACE), Lit(DIVIDER))))


def _file_rules(rules: Rules, k: int, lines: FileLines, after: str) -> Entry:
    p = f"s{k}"
    n = lines.count
    head = sr_head(lines.path)
    written = lines.written
    ids: dict[str, int] = {}

    def line(j: int) -> Expr:
        """Line ``j`` as a call of its text's one rule: the file's text is in the grammar once
        per distinct line, not once per place a run can pass it (the NFA has a state per byte)."""
        name = f"{p}-l{ids.setdefault(written[j], len(ids))}"
        if not rules.has(name):
            rules.add(name, literal(written[j]))
        return Ref(name)

    starts = [i for i in range(n) if lines.run_ok(i)]
    valid = set(starts)
    again = rules.add(f"{p}-h", literal(head))  # the next block's head, once
    for j in range(n, -1, -1):
        # p{j}: a later block starts at line j or after (a chain down the file)
        branches: list[Expr] = []
        if j in valid:
            u = lines.unique[j]
            branches.append(seq(*[line(x) for x in range(j, j + u)], Ref(f"{p}-c{j + u}")))
        if rules.has(f"{p}-p{j + 1}"):
            branches.append(Ref(f"{p}-p{j + 1}"))
        if branches:
            rules.add(f"{p}-p{j}", *branches)
        nexts: list[Expr] = [Ref(after)]
        if branches:
            nexts.insert(0, seq(Ref(again), Ref(f"{p}-p{j}")))
        rules.add(f"{p}-n{j}", *nexts)
        cont: list[Expr] = [seq(Ref("sr-tail"), Ref(f"{p}-n{j}"))]
        if j < n and not lines.barrier[j]:
            cont.append(seq(line(j), Ref(f"{p}-c{j + 1}")))
        rules.add(f"{p}-c{j}", *cont)
    for node in line_trie(lines, starts):
        # the edge's own line inline (the root's alternatives share their bytes), the rest of a
        # leaf's run as calls
        alts: list[Expr] = []
        for text, child, start in node.children:
            if child is not None:
                alts.append(seq(literal(text), Ref(f"{p}-t{child}")))
            else:
                end = start + lines.unique[start]
                rest = [line(x) for x in range(start + node.depth + 1, end)]
                alts.append(seq(literal(text), *rest, Ref(f"{p}-c{end}")))
        rules.add(f"{p}-t{node.ident}", *alts)
    return Entry(head, f"{p}-t0")


def search_replace_grammar(
    files: Sequence[FileLines], new_files: Sequence[str] = (), max_replace_lines: int | None = None
) -> Grammar:
    """The grammar of SEARCH/REPLACE patches that apply to ``files`` (and create ``new_files``).
    Every file must have a unique run (``FileLines.run_ok`` somewhere): the caller leaves out
    those that have none (an empty file). ``max_replace_lines`` bounds each REPLACE section, as
    whitespace is bounded for JSON: a small model that repeats itself is closed off, not run to
    its token limit."""
    rules = Rules()
    _free_line_rules(rules, max_replace_lines)
    count = len(files) + len(new_files)

    def build(k: int, after: str) -> Entry:
        if k < len(files):
            return _file_rules(rules, k, files[k], after)
        path = new_files[k - len(files)]
        return Entry(sr_head(path), rules.add(f"new{k}", seq(Ref("sr-tail"), Ref(after))))

    return rules.finish(file_chain(rules, count, build))
