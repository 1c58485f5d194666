"""Help for each panel, as Markdown data (shown by f1 for the focused panel).

Kept apart from the widgets so the text can be read, reviewed and tested without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HelpTopic:
    title: str
    markdown: str
    keys: str = ""  # the screen's own key table (empty: the schema workbench's)


GLOBAL_KEYS = """\
| Key | What it does |
| --- | --- |
| `ctrl+s` | save the schema (atomic: temp file + rename); asks first when it is not valid JSON |
| `ctrl+p` | command palette (profile, compile, check, sample, save, export GBNF, …) |
| `f1` | this help, for the focused panel |
| `f2` | worker errors: the full detail of the last ones |
| `f3` | next lint profile |
| `f4` | compile the schema now |
| `f5` | check the document in the Check tab |
| `f8` | sample: generate from the prompt in the Sample tab |
| `escape` | cancel the running generation |
| `ctrl+o` | load a document file into the Check tab |
| `ctrl+e` | export the canonical GBNF next to the schema |
| `tab` / `shift+tab` | move between panels |
| `f9` | next screen: schema workbench → patch review (the palette names each screen) |
| `ctrl+q` | quit (asks first when the schema has unsaved edits) |
"""

REVIEW_KEYS = """\
| Key | What it does |
| --- | --- |
| `↑` / `↓` | move between files and edits (the selected edit's diff shows on the right) |
| `a` / `x` | accept / reject the selected edit (failed edits start rejected) |
| `e` | edit the selected edit's new text; `escape` ends the edit and re-checks it at once |
| `w` | apply the accepted edits, all-or-nothing, after a confirmation naming every file |
| `u` | undo this screen's last apply (byte for byte; asks first) |
| `s` | export the accepted edits as a unified diff (`git apply` / `gramwright apply` take it) |
| `r` | re-read the files and re-check every edit |
| `g` | regenerate the selected edit (a generated patch): the same instruction, that file alone |
| `o` | open another patch file |
| `ctrl+p` | command palette · `f1` this help · `f2` errors · `f9` next screen · `ctrl+q` quit |
"""

EDIT_KEYS = """\
| Key | What it does |
| --- | --- |
| `enter` (in the tree) | pick or unpick a file; on a folder, fold or unfold it |
| `enter` (in the instruction) / `f8` | generate: the model writes a patch for the picked files |
| `escape` | cancel the running generation |
| `tab` / `shift+tab` | move between the tree, the instruction, format, model, budget and max new lines |
| `ctrl+l` | unpick every file |
| `ctrl+p` | command palette · `f1` this help · `f2` errors · `f9` next screen · `ctrl+q` quit |
"""

PIPELINE_KEYS = """\
| Key | What it does |
| --- | --- |
| `enter` (in the prompt) / `f8` | run the pipeline: the workbench's schema, this prompt |
| `escape` | cancel (the run stops after the attempt in progress) |
| `↑` / `↓` (in the list) | the attempt, its output, its errors, the feedback sent to the next one |
| `enter` (on an error) | show the schema workbench with the cursor on that error's subschema |
| `↑` / `↓` (in grounded values) | that value's span, in reverse, scrolled into view in the source |
| `ctrl+p` | command palette · `f1` this help · `f2` errors · `f9` next screen · `ctrl+q` quit |
"""

BATCH_KEYS = """\
| Key | What it does |
| --- | --- |
| `enter` (in a path) / `f8` | run, or resume: every input row whose id is not in the output yet |
| `escape` | cancel after the row in progress (every finished row stays in the output) |
| `tab` / `shift+tab` | input path, output path |
| `ctrl+p` | command palette · `f1` this help · `f2` errors · `f9` next screen · `ctrl+q` quit |
"""

TOPICS: dict[str, HelpTopic] = {
    "editor": HelpTopic(
        "Schema editor",
        """\
The JSON Schema you are writing. Every edit is linted (about 300 ms after you stop typing) and
compiled to the grammar shown in the **Grammar** tab.

While the text is not valid JSON the diagnostics panel shows where the parser stopped
(line:column) and keeps the last good results, greyed, until the JSON parses again.

Undo `ctrl+z`, redo `ctrl+y`, select line `f6`, select all `f7`.
""",
    ),
    "diagnostics": HelpTopic(
        "Diagnostics",
        """\
What the linter found, for the selected **profile** (the target engine or provider: what it
accepts, silently drops or rejects). `f3` or the selector switches profile.

Each line: severity, rule id, the JSON Pointer of the schema location, and the message; the line
under the list shows the hint for the highlighted diagnostic. `enter` moves the editor cursor to
that pointer.

Greyed entries are the last good results while the schema text is not valid JSON.
""",
    ),
    "grammar": HelpTopic(
        "Grammar",
        """\
The schema compiled to the grammar the token masks enforce, in its canonical text form (GBNF,
llama.cpp dialect), with the number of rules and the compile time.

**Report**: every keyword the grammar does *not* enforce exactly — *approximated* (the grammar
accepts a superset) or *discarded* (not enforced at all) — with its JSON Pointer. Validation after
generation still checks those: masks guarantee the form of an output, never its content.

`f4` recompiles, `ctrl+e` writes the GBNF next to the schema.
""",
    ),
    "check": HelpTopic(
        "Check a document",
        """\
Paste a JSON document (or load one with `ctrl+o`) and press `f5`: the byte-level recognizer
says whether the grammar accepts it, or where it stops (line:column), which bytes were expected
there, and which schema location (and keywords) is responsible.

The grammar is compact by default (no whitespace between tokens), as generation produces it; one
trailing newline is ignored.
""",
    ),
    "sample": HelpTopic(
        "Sample",
        """\
Generate with the local model (the embedded SmolLM2, or `--model`) under this schema's token
masks. Type a prompt and press `enter` (or `f8`); `escape` cancels.

Tokens stream in as they are sampled. A token's **shade** is its *clipped probability mass*: the
share of the model's probability that the mask removed at that step. Unshaded tokens are ones the
model wanted anyway; dark red ones were forced by the grammar.

At the end: the finish reason (`stop`, or `length` when the token budget ran out: the JSON is then
truncated and not parsed), the metrics, and the schema validation of the result.

A schema with `x-grounded` members copies their values from the prompt (as `gramwright generate`
without `--source`); each grounded value is listed with its line:column in the prompt.
""",
    ),
    "review": HelpTopic(
        "Patch review",
        """\
A patch from any model (SEARCH/REPLACE blocks, a unified diff or a Codex `*** Begin Patch`
envelope), checked against the files as `gramwright apply --check` checks it. On the left every
file and its edits, each with its status: **exact**, **tolerant** (and at which level: trailing
whitespace, CRLF, indentation, Unicode look-alikes; applied only with `--fuzzy`) or **failed**
(and why). On the right the selected edit: as a diff with three lines of context and the file's
line numbers; for a failed edit, the file's **nearest lines** (numbered, `!` marks those that
differ) and the lines the edit's old text has instead.

Accept or reject each edit; only the accepted ones are applied, exported or counted. Editing an
edit's new text re-checks it at once (a Python or JSON file that would no longer parse is
refused, as on the command line).

**Before anything is written** every file is hashed again: a file that changed on disk since the
review read it is never overwritten. The apply is refused naming each such file, the patch is
re-checked against the files as they are now, and you decide again. Every apply goes to the
backup journal (`.gramwright/journal/`); `u` here or `gramwright undo` restores the files.
""",
        REVIEW_KEYS,
    ),
    "pipeline": HelpTopic(
        "Pipeline view",
        """\
The schema in the workbench and a prompt through the three-layer pipeline (`gramwright run`):
**layer 1** a constrained attempt; **layer 2** validation (the schema, then the `x-rules` business
rules) and, on failure, a retry whose prompt carries the errors as feedback; **layer 3** salvage
(a flagged partial value) when the budget runs out. The policy is the schema's `x-runtime` block.

Each attempt appears as soon as it is judged: layer, finish reason, tokens against its limit,
whether the budget closed it, and its errors, each with the JSON Pointer of the value it is about.
On the right: the attempt's output, its errors, the feedback its prompt carried and the feedback
sent to the next attempt. `enter` on an error moves the schema editor's cursor to the subschema
that describes that value. At the bottom: the result — status (ok, partial, degraded, failed),
the layer that made it, the confidence and the value.

For a schema with `x-grounded` members the prompt is also their source (as `gramwright generate`
without `--source`): the grounded values and the source with their spans show above the result.
""",
        PIPELINE_KEYS,
    ),
    "grounding": HelpTopic(
        "Grounded values",
        """The result's `x-grounded` values (docs/grounding.md): each one's JSON Pointer, its value, and where
it sits in the source, as line:column (the first occurrence when the text has it more than once).
Every span is underlined in the source on the right; the highlighted value's span is in reverse
and scrolled into view. `null` says the text has no value for that member; `NOT in the source`
would mean the value was not copied from the text (a server without substring constraints).
""",
        PIPELINE_KEYS,
    ),
    "batch": HelpTopic(
        "Batch view",
        """\
`gramwright extract` over a JSONL file, with the schema in the workbench: one input row per line,
`{"id": …, "prompt": …}` or `{"id": …, "text": …}`; one output row per input (the pipeline's
result: status, layer, confidence, value, attempts) appended — and flushed to disk — as soon as it
is done, to the output file (default: the input's name with `.out.jsonl`).

The bar counts rows against the input; the summary below grows with each row: status counts,
format first-pass, schema and rules pass rates, repairs, budget closes, the attempts histogram,
tokens per success. It is the summary `gramwright report` prints.

`escape` stops after the row in progress; `f8` again resumes: rows whose id is already in the
output are skipped, so no row is run or written twice.
""",
        BATCH_KEYS,
    ),
    "edit": HelpTopic(
        "Edit: a local model writes a patch",
        """\
Pick the files to change in the project tree (it lists what git tracks or would track, so
`.gitignore`d folders are left out), write what to change, and press `enter`. The model (the
embedded SmolLM2, or the path in the model field) writes a patch in the chosen format —
SEARCH/REPLACE blocks or a unified diff — under a grammar **built from those files**: every line it
says is in a file is one of that file's lines, so the patch applies by construction (it is still
checked, as `gramwright edit` checks it).

Tokens stream in as they are sampled, shaded by clipped mass as in the Sample tab: the share of the
model's probability the mask removed (dark red: forced by the grammar). The budget (max tokens)
always holds: near its end the grammar closes the patch. `closed_by_budget: yes` says that happened
and which block's new text may be cut short. **Max new lines** bounds each block's new text (a small
model tends to repeat a line until the budget ends).

When the patch parses, it opens in the **Patch review**: accept or reject each edit there, and `g`
regenerates one edit with the same instruction, for its file alone.
""",
        EDIT_KEYS,
    ),
}


def topic(name: str) -> HelpTopic:
    return TOPICS.get(name, HelpTopic("gramwright", "Keyboard-first schema authoring."))
