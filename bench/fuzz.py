"""Fuzz the four front doors — lint, compile, check and the patch checker — with generated input.

    python -m bench.fuzz --json                     # the campaign: 20,000+ inputs
    python -m bench.fuzz --per-kind 100 --json      # a quick slice
    python -m bench.fuzz --kinds patch --per-kind 500 --seed 7

Hypothesis strategies build JSON Schemas (every keyword the compiler knows, ``$ref``/``$defs``
with cycles, combinators, deep nesting, odd regexes), GBNF texts and patches (SEARCH/REPLACE,
unified diff, Codex ``*** Begin Patch``; well-formed, near-miss and malformed on purpose). Each
input is written to a temporary folder and run, as a user would type it, through the commands
that take it: a schema through ``lint``, ``compile`` and ``check`` (with a generated document),
a GBNF text through ``compile`` and ``check``, a patch through ``apply --check`` (and
``--dry-run --fuzzy``) against generated files.

The commands run in a long-lived worker process (``--worker``; one interpreter for the whole
campaign, not one per input) with a wall-clock limit per run: past it the worker is killed and
restarted, and the run counts as a hang. Every run must end in a result (exit 0/1) or a one-line
error (exit 2, one ``error:`` line; a GBNF syntax error may add its caret lines), with no
traceback, and the temporary folder must hash the same before and after. The report counts,
per front door: runs, results, one-line errors, hangs, tracebacks, other errors (exit 2 but not
one line, or another exit code) and files changed, with the first failures as examples.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOORS = ("lint", "compile", "check", "patch")
KINDS = ("schema", "gbnf", "patch")
LIMIT_S = 15.0
MAX_EXAMPLES = 25


# -- the worker: the CLI in one long-lived process ------------------------------------------------


def worker() -> None:
    """Read one JSON request per line ({"args": [...]}) and answer one JSON line per request."""
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # whatever writes to fd 1 directly must not corrupt the replies
    from typer.testing import CliRunner

    from gramwright.cli.main import app

    runner = CliRunner()
    reply.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        result = runner.invoke(app, request["args"], input=request.get("stdin"))
        exc = result.exception
        crashed = exc is not None and not isinstance(exc, SystemExit)
        answer = {
            "code": result.exit_code,
            "stderr": result.stderr[-4000:],
            "stdout_has_traceback": "Traceback (most recent call last)" in result.stdout,
            "exception": f"{type(exc).__name__}: {str(exc)[:300]}" if crashed else None,
        }
        reply.write(json.dumps(answer) + "\n")


class Worker:
    """The parent's handle on the worker: a request with a deadline; killed and restarted on a hang."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.restarts = 0

    def start(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "120"}
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        ready = self._read(120.0)
        if ready is None or not ready.get("ready"):
            raise RuntimeError("the fuzz worker did not start")

    def _read(self, timeout: float) -> dict[str, Any] | None:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def run(self, args: list[str], limit: float, stdin: str | None = None) -> dict[str, Any] | None:
        """The answer, or None when the run went past ``limit`` (or the worker died)."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"args": args, "stdin": stdin}) + "\n")
        self.proc.stdin.flush()
        answer = self._read(limit)
        if answer is None:
            self.kill()
        return answer

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.restarts += 1

    def close(self) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


# -- judging a run -------------------------------------------------------------------------------


@dataclass
class DoorCounts:
    runs: int = 0
    results: int = 0
    one_line_errors: int = 0
    hangs: int = 0
    tracebacks: int = 0
    other_errors: int = 0
    files_changed: int = 0
    max_s: float = 0.0
    # what the one-line errors say, paths and numbers left out: shows what the inputs reached
    error_kinds: Counter[str] = field(default_factory=Counter)


@dataclass
class Campaign:
    limit_s: float
    doors: dict[str, DoorCounts] = field(default_factory=lambda: {d: DoorCounts() for d in DOORS})
    inputs: Counter[str] = field(default_factory=Counter)
    distinct: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in KINDS})
    examples: list[dict[str, Any]] = field(default_factory=list)

    def failures(self) -> int:
        return sum(c.hangs + c.tracebacks + c.other_errors + c.files_changed for c in self.doors.values())

    def to_dict(self, seconds: float, restarts: int) -> dict[str, Any]:
        return {
            "inputs": dict(self.inputs),
            "total_inputs": sum(self.inputs.values()),
            "distinct_inputs": {k: len(v) for k, v in self.distinct.items()},
            "doors": {
                d: vars(c) | {"max_s": round(c.max_s, 3), "error_kinds": dict(c.error_kinds.most_common(12))}
                for d, c in self.doors.items()
            },
            "total_runs": sum(c.runs for c in self.doors.values()),
            "hangs": sum(c.hangs for c in self.doors.values()),
            "tracebacks": sum(c.tracebacks for c in self.doors.values()),
            "other_errors": sum(c.other_errors for c in self.doors.values()),
            "files_changed": sum(c.files_changed for c in self.doors.values()),
            "limit_s": self.limit_s,
            "worker_restarts": restarts,
            "seconds": round(seconds, 1),
            "examples": self.examples,
        }


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file():
            st = p.stat()
            h.update(p.read_bytes())
            h.update(str(st.st_mtime_ns).encode())
    return h.hexdigest()


def verdict(answer: dict[str, Any] | None, context_allowed: bool) -> str:
    """hang | traceback | result | one-line | other."""
    if answer is None:
        return "hang"
    stderr = answer["stderr"]
    if answer["exception"] or answer["stdout_has_traceback"] or "Traceback (most recent call last)" in stderr:
        return "traceback"
    code = answer["code"]
    lines = stderr.splitlines()
    errors = [n for n, line in enumerate(lines) if line.startswith("error:")]
    if code in (0, 1):
        return "result" if not errors else "other"
    if code == 2 and errors == [0] and (len(lines) == 1 or context_allowed):
        return "one-line"
    return "other"


def _error_kind(stderr: str, folder: Path) -> str:
    line = stderr.splitlines()[0].replace(str(folder) + "/", "").removeprefix("error: ")
    words = re.sub(r"[0-9]+", "N", re.sub(r"'[^']*'|\"[^\"]*\"", "Q", line)).split()
    return " ".join(words[:7])


def run_door(
    campaign: Campaign,
    w: Worker,
    door: str,
    folder: Path,
    args: list[str],
    sample: str,
    *,
    context_allowed: bool = False,
) -> None:
    before = tree_digest(folder)
    t0 = time.perf_counter()
    answer = w.run(args, campaign.limit_s)
    took = time.perf_counter() - t0
    changed = tree_digest(folder) != before
    what = verdict(answer, context_allowed)
    c = campaign.doors[door]
    c.runs += 1
    c.max_s = max(c.max_s, took)
    if what == "hang":
        c.hangs += 1
    elif what == "traceback":
        c.tracebacks += 1
    elif what == "result":
        c.results += 1
    elif what == "one-line":
        c.one_line_errors += 1
        assert answer is not None
        c.error_kinds[_error_kind(answer["stderr"], folder)] += 1
    else:
        c.other_errors += 1
    if changed:
        c.files_changed += 1
    if (what in ("hang", "traceback", "other") or changed) and len(campaign.examples) < MAX_EXAMPLES:
        campaign.examples.append(
            {
                "door": door,
                "what": what + (" +files changed" if changed else ""),
                "args": [a.replace(str(folder), ".") for a in args],
                "input": sample[:600],
                "stderr": (answer or {}).get("stderr", "")[-600:],
                "exception": (answer or {}).get("exception"),
            }
        )


# -- strategies ------------------------------------------------------------------------------------


def strategies() -> dict[str, Any]:
    """The three input strategies (imported lazily: the worker does not need hypothesis)."""
    from hypothesis import strategies as st

    names = st.sampled_from(["a", "b", "c", "x", "id", "name", "items", "$ref", "", "é", "a/b", "~0"])
    odd_regexes = st.sampled_from(
        [
            "^[a-z]+$", "(a", "a{2,1}", "[z-a]", "(?=a)b", "(?<!x)y", "\\1(a)", "a**", "^(a|b)*c$",
            "\\p{L}+", "\\u{1F600}", "[\\d-z]", "(?<n>a)\\k<n>", "a{0,1000}", "(a*)*b", "[^]", "\\",
            "x{99999}", "^$", ".*", "[\\s\\S]{3}", "(?i)abc", "\\bword\\b", "[[:alpha:]]", "a|", "()",
            "\\cJ", "[\\u0000-\\uFFFF]", "(a{200}){200}", "^(\\d{3}-){100}\\d{256}$",
            "(?:(?:(?:a)))", "\\Z", "a{,3}", "(", ")", "[", "{1}",
        ]
    )  # fmt: skip
    regexes = st.one_of(odd_regexes, st.text(alphabet="ab()[]{}|*+?.^$\\-,0123dws:=!<>", max_size=12))
    refs = st.sampled_from(
        [
            "#", "#/$defs/a", "#/$defs/b", "#/$defs/c", "#/definitions/a", "#/properties/x", "#a",
            "#/$defs/missing", "#/allOf/0", "#/anyOf/1", "other.json", "https://example.com/s.json",
            "#/$defs/a/properties/x", "#/items", "#%25", "#/not", "", "#meta",
        ]
    )  # fmt: skip
    json_scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    )
    json_values = st.recursive(
        json_scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(names, inner, max_size=4)),
        max_leaves=10,
    )
    types = st.sampled_from(["string", "integer", "number", "object", "array", "boolean", "null", "any", 7])
    formats = st.sampled_from(
        ["date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname", "regex", "duration",
         "nope", "byte", "int32"]
    )  # fmt: skip
    numbers = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False), st.just(0.1))
    counts = st.one_of(st.integers(0, 6), st.integers(-2, 10**6), st.just(1.5), st.just("3"))

    def kv(keyword: str | list[str], values: Any) -> Any:
        return st.tuples(st.just(keyword) if isinstance(keyword, str) else st.sampled_from(keyword), values)

    def keyword_values(sub: Any) -> Any:
        listed = st.lists(sub, min_size=0, max_size=3)
        return st.one_of(
            kv("type", st.one_of(types, st.lists(types, max_size=3))),
            kv("properties", st.dictionaries(names, sub, max_size=3)),
            kv("patternProperties", st.dictionaries(regexes, sub, max_size=2)),
            kv("additionalProperties", sub),
            kv("unevaluatedProperties", sub),
            kv("unevaluatedItems", sub),
            kv("propertyNames", sub),
            kv("required", st.lists(names, max_size=3)),
            kv("dependentRequired", st.dictionaries(names, st.lists(names, max_size=2), max_size=2)),
            kv("dependentSchemas", st.dictionaries(names, sub, max_size=2)),
            kv("dependencies", st.dictionaries(names, st.one_of(sub, st.lists(names)), max_size=2)),
            kv("items", st.one_of(sub, listed)),
            kv("prefixItems", listed),
            kv("additionalItems", sub),
            kv("contains", sub),
            kv(["minContains", "maxContains", "minItems", "maxItems", "minLength", "maxLength",
                "minProperties", "maxProperties"], counts),
            kv("uniqueItems", st.booleans()),
            kv(["allOf", "anyOf", "oneOf"], listed),
            kv(["not", "if", "then", "else", "contentSchema"], sub),
            kv("enum", st.lists(json_values, max_size=5)),
            kv("const", json_values),
            kv(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "divisibleBy"],
               st.one_of(numbers, st.booleans())),
            kv("pattern", regexes),
            kv("format", formats),
            kv(["$ref", "$dynamicRef", "$recursiveRef"], refs),
            kv(["$anchor", "$dynamicAnchor"], st.sampled_from(["a", "meta", "x y", ""])),
            kv("$recursiveAnchor", st.booleans()),
            kv(["$id", "id"], st.sampled_from(["#a", "http://x.test/s", "s.json", "#", 3])),
            kv(["contentEncoding", "contentMediaType"], st.sampled_from(["base64", "application/json", "x"])),
            kv(["default", "examples", "title", "description", "x-rules", "nonsense"], json_values),
            kv(["extends", "disallow"], st.one_of(sub, types)),
        )  # fmt: skip

    def schema_of(sub: Any) -> Any:
        return st.one_of(
            st.booleans(),
            st.lists(keyword_values(sub), max_size=5).map(dict),
        )

    leaf = st.one_of(st.booleans(), st.lists(keyword_values(st.booleans()), max_size=3).map(dict))
    subschemas = st.recursive(leaf, schema_of, max_leaves=12)
    drafts = st.sampled_from(
        [None, "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
         "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#",
         "http://json-schema.org/draft-03/schema#", "https://example.com/custom-meta"]
    )  # fmt: skip

    @st.composite
    def schemas(draw: Any) -> str:
        root = draw(subschemas)
        if isinstance(root, dict):
            defs = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), subschemas, max_size=3))
            if defs:
                root[draw(st.sampled_from(["$defs", "definitions"]))] = defs
            dialect = draw(drafts)
            if dialect:
                root["$schema"] = dialect
        depth = draw(st.one_of(st.just(0), st.just(0), st.integers(0, 140)))
        for _ in range(depth):  # deep nesting, past the documented limit at times
            key = draw(st.sampled_from(["items", "not", "additionalProperties"]))
            root = {key: root}
        text = json.dumps(root, ensure_ascii=draw(st.booleans()))
        mangle = draw(st.sampled_from(["none"] * 20 + ["truncate", "byte", "bom", "trailing"]))
        if mangle == "truncate":
            text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
        elif mangle == "byte":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(["\x00", "\ufffd", "}", "\\", "\u2028"])) + text[at:]
        elif mangle == "bom":
            text = "\ufeff" + text
        elif mangle == "trailing":
            text += draw(st.sampled_from([",", " ", "\n{}", "garbage"]))
        return text

    documents = json_values.map(json.dumps)

    # GBNF: rules of sequences of literals, classes, references, groups and repetitions
    rule_names = st.sampled_from(["root", "a", "b", "item", "ws", "x-y", "undefined"])
    literal = st.text(alphabet='abc"\\n{}[]-', max_size=4).map(lambda s: json.dumps(s))
    char_class = st.sampled_from(
        ["[a-z]", '[^"\\\\]', "[0-9]", "[\\x00-\\x1F]", "[]", "[z-a]", "[\\u00e9]", "."]
    )
    quant = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "{3,1}", "{99999}"])

    def gbnf_expr(inner: Any) -> Any:
        return st.one_of(
            st.lists(inner, min_size=1, max_size=3).map(" ".join),
            st.lists(inner, min_size=2, max_size=3).map(" | ".join),
            st.tuples(inner, quant).map(lambda t: f"({t[0]}){t[1]}"),
        )

    atom = st.one_of(
        literal, char_class, rule_names, st.tuples(st.one_of(literal, char_class), quant).map("".join)
    )
    exprs = st.recursive(atom, gbnf_expr, max_leaves=8)

    @st.composite
    def gbnf_texts(draw: Any) -> str:
        rules = draw(st.lists(st.tuples(rule_names, exprs), min_size=1, max_size=5, unique_by=lambda r: r[0]))
        if draw(st.integers(0, 4)) and all(name != "root" for name, _ in rules):
            rules.insert(0, ("root", draw(exprs)))
        if draw(st.integers(0, 9)) == 0:  # a rule defined twice
            rules.append(rules[0])
        text = "".join(f"{name} ::= {body}\n" for name, body in rules)
        mangle = draw(st.sampled_from(["none"] * 12 + ["truncate", "insert", "comment", "crlf"]))
        if mangle == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif mangle == "insert":
            at = draw(st.integers(0, len(text)))
            text = (
                text[:at] + draw(st.sampled_from(["(", ")", '"', "::=", "\x00", "|", "#", "\\"])) + text[at:]
            )
        elif mangle == "comment":
            text = "# a comment\n" + text
        elif mangle == "crlf":
            text = text.replace("\n", "\r\n")
        return text

    # patches against generated files
    file_lines = st.lists(
        st.one_of(
            st.sampled_from(
                ["def f(x):", "    return x", "", "DEBUG = False", "# note", "\tindented", "x = 1"]
            ),
            st.text(alphabet="abc =()+-@*<>\t", max_size=12),
        ),
        min_size=0,
        max_size=12,
    )

    @st.composite
    def patches(draw: Any) -> tuple[dict[str, str], str]:
        files = {"a.py": "\n".join(draw(file_lines)) + draw(st.sampled_from(["\n", "", "\r\n"]))}
        if draw(st.booleans()):
            files["sub/b.txt"] = "\n".join(draw(file_lines)) + "\n"
        name = draw(st.sampled_from([*files, *files, *files, "missing.py", "../escape.py", "/abs.py", "sub"]))
        lines = files.get(name, "x\n").splitlines()
        start = draw(st.integers(0, len(lines)))
        old = lines[start : start + draw(st.integers(0, 3))]
        if draw(st.integers(0, 3)) == 0:  # a near miss: one old line that is not in the file
            old = [*old, draw(st.text(alphabet="abxyz ", max_size=6))]
        new = draw(file_lines)[:3]
        fmt = draw(st.sampled_from(["search-replace", "udiff", "apply-patch"] * 3 + ["garbage"]))
        if fmt == "search-replace":
            text = f"{name}\n```python\n<<<<<<< SEARCH\n" + "".join(f"{x}\n" for x in old)
            text += "=======\n" + "".join(f"{x}\n" for x in new) + ">>>>>>> REPLACE\n```\n"
        elif fmt == "udiff":
            n_old, n_new = len(old), len(new)
            text = f"--- a/{name}\n+++ b/{name}\n@@ -{start + 1},{n_old} +{start + 1},{n_new} @@\n"
            text += "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
        elif fmt == "apply-patch":
            verb = draw(st.sampled_from(["Update", "Add", "Delete"]))
            text = f"*** Begin Patch\n*** {verb} File: {name}\n"
            if verb == "Update":
                text += "@@\n" + "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
            elif verb == "Add":
                text += "".join(f"+{x}\n" for x in new)
            text += draw(st.sampled_from(["*** End Patch\n", "", "*** End of File\n*** End Patch\n"]))
        else:
            text = draw(st.text(max_size=80))
        mangle = draw(st.sampled_from(["none"] * 10 + ["truncate", "insert", "crlf", "fence"]))
        if mangle == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif mangle == "insert":
            at = draw(st.integers(0, len(text)))
            text = (
                text[:at]
                + draw(st.sampled_from(["=======\n", "@@ -1 +1 @@\n", "\x00", ">>>>>>> REPLACE\n", "***"]))
                + text[at:]
            )
        elif mangle == "crlf":
            text = text.replace("\n", "\r\n")
        elif mangle == "fence":
            text = "Here is the fix:\n```diff\n" + text + "```\nDone."
        return files, text

    return {
        "schema": st.tuples(schemas(), documents),
        "gbnf": st.tuples(gbnf_texts(), documents),
        "patch": patches(),
    }


# -- the campaign ---------------------------------------------------------------------------------


def _write(folder: Path, files: dict[str, str | bytes]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def feed(campaign: Campaign, w: Worker, kind: str, folder: Path) -> Callable[[Any], None]:
    """The function hypothesis calls with each generated input of ``kind``."""

    def schema(example: tuple[str, str]) -> None:
        text, doc = example
        _write(folder, {"s.json": text, "doc.json": doc})
        s, d = str(folder / "s.json"), str(folder / "doc.json")
        run_door(campaign, w, "lint", folder, ["lint", s, "--format", "json"], text)
        run_door(campaign, w, "compile", folder, ["compile", s], text)
        run_door(campaign, w, "check", folder, ["check", s, d], text + "\n--- document: " + doc)

    def gbnf(example: tuple[str, str]) -> None:
        text, doc = example
        _write(folder, {"g.gbnf": text, "doc.txt": doc})
        g, d = str(folder / "g.gbnf"), str(folder / "doc.txt")
        run_door(campaign, w, "compile", folder, ["compile", g], text, context_allowed=True)
        run_door(campaign, w, "check", folder, ["check", g, d], text, context_allowed=True)

    def patch(example: tuple[dict[str, str], str]) -> None:
        files, text = example
        _write(folder, {**files, "fix.patch": text})
        args = ["apply", str(folder / "fix.patch"), "--root", str(folder)]
        sample = text + "\n--- files: " + json.dumps(files)[:200]
        # the exact check, or (every other input) the tolerant matcher and the diff it would write
        if campaign.inputs["patch"] % 2:
            run_door(campaign, w, "patch", folder, [*args, "--check", "--format", "json"], sample)
        else:
            run_door(campaign, w, "patch", folder, [*args, "--dry-run", "--fuzzy"], sample)

    run = {"schema": schema, "gbnf": gbnf, "patch": patch}[kind]

    def counted(example: Any) -> None:
        campaign.inputs[kind] += 1
        campaign.distinct[kind].add(hashlib.sha256(repr(example).encode()).hexdigest())
        run(example)

    return counted


CHUNK = 1000  # inputs per job when the campaign runs in parallel (each job: its own worker, seed)


def run_chunk(kind: str, n: int, seed: int, limit_s: float) -> tuple[Campaign, int, float]:
    """``n`` inputs of ``kind`` through their doors in one worker: the counts, restarts, seconds."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    campaign = Campaign(limit_s)
    w = Worker()
    w.start()
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="gramwright-fuzz-") as tmp:
            call = feed(campaign, w, kind, Path(tmp) / kind)

            @hypothesis_seed(seed)
            @settings(
                max_examples=n,
                database=None,
                deadline=None,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(strategies()[kind])
            def drive(example: Any) -> None:
                call(example)

            drive()
    finally:
        w.close()
    return campaign, w.restarts, time.perf_counter() - t0


def merge(parts: list[Campaign]) -> Campaign:
    total = Campaign(parts[0].limit_s)
    for part in parts:
        total.inputs.update(part.inputs)
        for kind, hashes in part.distinct.items():
            total.distinct[kind] |= hashes
        for door, c in part.doors.items():
            t = total.doors[door]
            for name in ("runs", "results", "one_line_errors", "hangs", "tracebacks", "other_errors"):
                setattr(t, name, getattr(t, name) + getattr(c, name))
            t.files_changed += c.files_changed
            t.max_s = max(t.max_s, c.max_s)
            t.error_kinds.update(c.error_kinds)
        total.examples.extend(part.examples[: MAX_EXAMPLES - len(total.examples)])
    return total


def run_campaign(
    per_kind: dict[str, int], seed: int = 0, limit_s: float = LIMIT_S, jobs: int = 1, progress: bool = False
) -> dict[str, Any]:
    """The report over ``per_kind`` inputs; with ``jobs`` > 1, chunks of :data:`CHUNK` inputs run
    in parallel processes, each with its own worker and seed."""
    t0 = time.perf_counter()
    if jobs <= 1:
        chunks = [(kind, n, seed) for kind, n in per_kind.items() if n > 0]
    else:
        chunks = [
            (kind, min(CHUNK, n - start), seed + i)
            for kind, n in per_kind.items()
            for i, start in enumerate(range(0, n, CHUNK))
        ]
    parts: list[Campaign] = []
    restarts = 0
    if jobs <= 1:
        results = (run_chunk(kind, n, s, limit_s) for kind, n, s in chunks)
        for (kind, _, _), (part, r, _) in zip(chunks, results, strict=True):
            parts.append(part)
            restarts += r
            if progress:
                print(f"{kind}: {part.inputs[kind]} inputs, {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(jobs) as pool:
            futures = {pool.submit(run_chunk, kind, n, s, limit_s): (kind, n) for kind, n, s in chunks}
            for future in as_completed(futures):
                part, r, _ = future.result()
                parts.append(part)
                restarts += r
                if progress:
                    kind, n = futures[future]
                    done = sum(p.inputs.total() for p in parts)
                    print(
                        f"{kind} chunk of {n} done; {done} inputs, {time.perf_counter() - t0:.0f}s",
                        file=sys.stderr,
                    )
    return merge(parts).to_dict(time.perf_counter() - t0, restarts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--per-kind", type=int, default=0, help="inputs of each kind (default: the campaign)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="schema,gbnf,patch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=float, default=LIMIT_S, help="seconds per run before it is a hang")
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers (chunks of 1,000 inputs)")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    # the campaign: 20,000 inputs; schemas are the richest (three doors each)
    campaign_sizes = {"schema": 8000, "gbnf": 5000, "patch": 7000}
    kinds = [k for k in args.kinds.split(",") if k]
    per_kind = {k: (args.per_kind or campaign_sizes[k]) for k in kinds}
    report = run_campaign(per_kind, seed=args.seed, limit_s=args.limit, jobs=args.jobs, progress=True)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"{report['total_inputs']} inputs, {report['total_runs']} runs in {report['seconds']} s")
        for door, c in report["doors"].items():
            print(f"  {door:8} " + "  ".join(f"{k}={v}" for k, v in c.items()))
        for ex in report["examples"]:
            print(f"- {ex['door']}: {ex['what']}: {ex['args']}\n  {ex['stderr'][-300:]!r}")
    failed = report["hangs"] + report["tracebacks"] + report["other_errors"] + report["files_changed"]
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
