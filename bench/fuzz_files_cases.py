"""The inputs of the second fuzz campaign (``bench.fuzz_files``): one case per input, each a small
tree to lay out, the command line to run on it and what that command may change.

Five families, drawn from a seeded ``random.Random`` (the same seed lays the same cases):

* ``refs``: schemas that ``$ref`` other files — relative, ``file://`` absolute, cycles across
  files, missing files, a directory, a file that is not JSON, fragments that miss — through
  ``lint``, ``compile`` and ``check``.
* ``outputs``: ``compile -o``, ``lint --baseline … --update-baseline`` and ``snapshot --dir``
  aimed at character devices (nodes made here with ``os.mknod``: null, zero, full; never a path
  under ``/dev``), FIFOs drained by a reader thread, symlinks (in the tree, out of it,
  dangling), directories, read-only folders and a path under a regular file.
* ``links``: patch trees whose files are symlinks into the root and out of it, through
  ``apply --check``, ``apply --dry-run`` and ``apply`` (which writes, with its journal).
* ``endless``: documents, schemas and patches that never end (a FIFO fed by a writer thread
  until the run is over; a zero device) or are large (megabytes of whitespace or nesting).
* ``flags``: every command's flags at their edges (0, negative, huge, empty, unknown choices,
  a directory or missing file where a file goes) — only runs that end before a model would load.

A case's ``may_write`` lists the tree paths its command may change when it exits 0 (the output
it reports writing); anything else that changes, and any special file or link that stops being
what it was, is a fault.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

FAMILIES = ("refs", "outputs", "links", "endless", "flags")

# a special node to make: kind is "chr:MAJ:MIN" (a character device), "fifo-read" (an output
# FIFO a thread drains), "fifo-feed" (an input FIFO a thread fills until the run ends) or
# "link:TARGET" (a symlink); paths are relative to the case folder
Special = tuple[str, str]


@dataclass
class Case:
    family: str
    door: str  # the command it runs (lint, compile, check, snapshot, apply, validate, …)
    args: list[str]  # "{T}" stands for the case folder
    files: dict[str, str | bytes] = field(default_factory=dict)
    special: list[Special] = field(default_factory=list)
    readonly: list[str] = field(default_factory=list)  # folders made 0o555
    may_write: list[str] = field(default_factory=list)  # prefixes under the case folder
    limit_s: float | None = None  # a shorter limit (the endless family)
    label: str = ""  # the variant, for counts by variant

    def describe(self) -> str:
        return json.dumps({"label": self.label, "args": self.args, "special": self.special})[:600]


SCHEMAS = [
    {"type": "string", "maxLength": 8},
    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "maxItems": 3},
    {"enum": ["a", "b", 1, None]},
]
DEVICES = {"null": "chr:1:3", "zero": "chr:1:5", "full": "chr:1:7"}


def _schema(rng: random.Random) -> str:
    return json.dumps(rng.choice(SCHEMAS))


# -- refs ------------------------------------------------------------------------------------------


def refs(rng: random.Random) -> Case:
    target = rng.choice(
        ["b.json", "sub/c.json", "b.json#/$defs/x", "b.json#/$defs/missing", "missing.json",
         "sub/", "notjson.txt", "file://{T}/tree/b.json", "file://{T}/tree/sub/c.json#/$defs/x",
         "file://{T}/tree/missing.json", "file://{T}/tree/cycle1.json", "../outside.json", "b.json#",
         "a.json", "cycle1.json", "b.json#/properties/t", "sub/../b.json", "%62.json"]
    )  # fmt: skip
    inner = rng.choice(SCHEMAS)
    files: dict[str, str | bytes] = {
        "b.json": json.dumps(
            {
                "$defs": {"x": inner},
                "type": "object",
                "properties": {"t": {"$ref": rng.choice(["c1.json", "#/$defs/x"])}},
            }
        ),
        "c1.json": json.dumps({"$ref": rng.choice(["b.json", "c1.json", "sub/c.json"])}),
        "sub/c.json": json.dumps(
            {"$defs": {"x": {"$ref": rng.choice(["../b.json", "c.json", "../c1.json"])}}}
        ),
        "cycle1.json": json.dumps({"$ref": "cycle2.json"}),
        "cycle2.json": json.dumps({"anyOf": [{"$ref": "cycle1.json"}, {"type": "null"}]}),
        "notjson.txt": rng.choice(["not json", "", "\xff\xfe", "[1,"]),
    }
    if rng.random() < 0.5:
        files["sub/c.json"] = json.dumps({"$defs": {"x": inner}, "items": {"$ref": "#/$defs/x"}})
    schema: dict[str, Any] = {"type": "object", "properties": {"t": {"$ref": target}}, "required": ["t"]}
    if rng.random() < 0.3:
        schema = {"allOf": [{"$ref": target}, {"$ref": rng.choice(["b.json", "cycle1.json"])}]}
    files["a.json"] = json.dumps(schema)  # "{T}" (file:// refs) becomes the case folder when laid out
    doc = rng.choice(['{"t": "x"}', '{"t": 1}', "{}", '{"t": {"n": 2}}', "[]", '"x"'])
    files["doc.json"] = doc
    files["outside.json"] = json.dumps(inner)  # beside the tree: a ../ ref reaches it
    door = rng.choice(["lint", "compile", "check"])
    a = "{T}/tree/a.json"
    args = {
        "lint": ["lint", a, "--format", rng.choice(["json", "human", "sarif"])],
        "compile": ["compile", a],
        "check": ["check", a, "{T}/tree/doc.json"],
    }[door]
    tree = {f"tree/{k}": v for k, v in files.items() if k != "outside.json"}
    tree["outside.json"] = files["outside.json"]
    return Case("refs", door, args, files=tree, label=f"ref {target.replace('{T}', 'T')}")


# -- outputs ---------------------------------------------------------------------------------------


def outputs(rng: random.Random) -> Case:
    kind = rng.choice(
        ["dev-null", "dev-zero", "dev-full", "fifo", "link-in", "link-out", "link-dangling", "link-dev",
         "dir", "readonly-dir", "under-file", "missing-parent", "new", "existing"]
    )  # fmt: skip
    special: list[Special] = []
    readonly: list[str] = []
    out = "out/target"
    files: dict[str, str | bytes] = {
        "s.json": _schema(rng),
        "out/keep.txt": "keep\n",
        "outside/secret.txt": "s\n",
    }
    may: list[str] = []
    if kind.startswith("dev-"):
        special.append((out, DEVICES[kind[4:]]))
    elif kind == "fifo":
        special.append((out, "fifo-read"))
    elif kind == "link-in":
        files["out/real.txt"] = "old\n"
        special.append((out, "link:real.txt"))
        may = ["out/real.txt"]
    elif kind == "link-out":
        special.append((out, "link:../outside/secret.txt"))
    elif kind == "link-dangling":
        special.append((out, "link:nowhere/x"))
    elif kind == "link-dev":
        special.append(("out/dev", DEVICES["null"]))
        special.append((out, "link:dev"))
    elif kind == "dir":
        files["out/target/inner.txt"] = "x\n"
    elif kind == "readonly-dir":
        out = "ro/target"
        files["ro/keep.txt"] = "k\n"
        readonly.append("ro")
        may = ["ro/target"]  # root ignores the mode bits: a write there is allowed, if reported
    elif kind == "under-file":
        out = "out/keep.txt/target"
    elif kind == "missing-parent":
        out = "out/no/such/target"
    elif kind in ("new", "existing"):
        if kind == "existing":
            files[out] = "old\n"
        may = [out]
    if kind.startswith("dev-") or kind == "fifo" or kind == "link-dev":
        may = []  # a stream: written, never replaced (the node itself must stay)
    door = rng.choice(["compile", "compile", "lint", "snapshot"])
    o = "{T}/" + out
    s = "{T}/s.json"
    if door == "compile":
        args = ["compile", s, "-o", o, *rng.choice([[], ["--format", "json"], ["--format", "gbnf"]])]
    elif door == "lint":
        args = ["lint", s, "--baseline", o, *rng.choice([["--update-baseline"], [], ["--format", "json"]])]
        if "--update-baseline" not in args:
            may = []
    else:
        args = ["snapshot", s, "--dir", o, *rng.choice([["--update"], [], ["--ci"]])]
        # a snapshot folder is a folder: --update may create it (parents too) and write in it
        folder_ok = kind in ("dir", "missing-parent", "new", "readonly-dir")
        may = [out] if "--update" in args and folder_ok else []
    return Case("outputs", door, args, files=files, special=special, readonly=readonly, may_write=may,
                label=f"{door} -> {kind}")  # fmt: skip


# -- links -----------------------------------------------------------------------------------------


def links(rng: random.Random) -> Case:
    files: dict[str, str | bytes] = {
        "root/app.py": "a = 1\nb = 2\n",
        "root/lib/util.py": "x = 1\n",
        "outside/secret.py": "a = 1\nb = 2\n",
        "outside/dir/s.py": "x = 1\n",
    }
    special: list[Special] = [
        ("root/in_link.py", "link:app.py"),
        ("root/out_link.py", "link:../outside/secret.py"),
        ("root/out_dir", "link:../outside/dir"),
        ("root/dangling.py", "link:gone.py"),
        ("root/loop.py", "link:loop.py"),
    ]
    path = rng.choice(
        ["app.py", "in_link.py", "out_link.py", "out_dir/s.py", "dangling.py", "loop.py", "lib/util.py",
         "../outside/secret.py", "lib/../app.py", "new.py", "out_dir/new.py", "lib"]
    )  # fmt: skip
    old, new = rng.choice([("a = 1", "a = 3"), ("x = 1", "x = 9"), ("", "created = 1"), ("b = 2", "")])
    fmt = rng.choice(["sr", "udiff", "codex"])
    if fmt == "sr":
        text = f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"
    elif fmt == "udiff":
        text = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"
    else:
        text = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
    files["fix.patch"] = text
    mode = rng.choice([["--check"], ["--dry-run"], [], ["--format", "json"]])
    args = ["apply", "{T}/fix.patch", "--root", "{T}/root", *mode]
    writes = "--check" not in mode and "--dry-run" not in mode
    # a successful apply may write the regular files inside the root and its journal, nothing else
    may = ["root/app.py", "root/lib/util.py", "root/new.py", "root/.gramwright"] if writes else []
    if writes and path == "in_link.py":
        may.append("root/app.py")
    return Case(
        "links", "apply", args, files=files, special=special, may_write=may, label=f"{fmt} {path} {mode}"
    )


# -- endless and huge ------------------------------------------------------------------------------


def endless(rng: random.Random) -> Case:
    kind = rng.choice(
        ["fifo-doc", "fifo-schema", "fifo-patch", "zero-doc", "huge-space", "huge-nest", "huge-string"]
    )
    files: dict[str, str | bytes] = {"s.json": json.dumps({"type": "array", "items": {"type": "integer"}})}
    special: list[Special] = []
    target = "{T}/in"
    if kind.startswith("fifo"):
        special.append(("in", "fifo-feed"))
    elif kind == "zero-doc":
        special.append(("in", DEVICES["zero"]))
    elif kind == "huge-space":
        files["in"] = b"[" + b" " * rng.choice([1 << 20, 8 << 20, 24 << 20]) + b"1]"
    elif kind == "huge-nest":
        depth = rng.choice([10_000, 100_000, 1_000_000])
        files["in"] = b"[" * depth + b"]" * depth
    else:
        files["in"] = b'["' + b"a" * rng.choice([1 << 20, 16 << 20]) + b'"]'
    if kind == "fifo-schema":
        door, args = rng.choice([("lint", ["lint", target]), ("compile", ["compile", target])])
    elif kind == "fifo-patch":
        files["root/a.py"] = "a = 1\n"
        door, args = "apply", ["apply", target, "--root", "{T}/root", "--check"]
    else:
        door, args = rng.choice(
            [
                ("check", ["check", "{T}/s.json", target]),
                ("validate", ["validate", "--schema", "{T}/s.json", target]),
            ]
        )
    return Case("endless", door, args, files=files, special=special, limit_s=5.0, label=f"{door} {kind}")


# -- flags at their edges --------------------------------------------------------------------------

EDGE_INTS = ["0", "-1", "1", "999999999999999999999", "1e3", "", "nan", " 3"]


def flags(rng: random.Random) -> Case:
    files: dict[str, str | bytes] = {"s.json": _schema(rng), "doc.json": '"ab"', "g.gbnf": 'root ::= "a"\n'}
    s, d = "{T}/s.json", "{T}/doc.json"
    edge = rng.choice(EDGE_INTS)
    word = rng.choice(["", "bogus", "JSON", "-", "--", "human,json"])
    where = rng.choice(["{T}", "{T}/missing.json", "", "{T}/g.gbnf", "{T}/doc.json"])
    table: list[tuple[str, list[str]]] = [
        ("lint", ["lint", s, "--max-tokens", edge]),
        ("lint", ["lint", s, "--fail-on", word]),
        ("lint", ["lint", s, "--format", word]),
        ("lint", ["lint", s, "--ignore", word]),
        ("lint", ["lint", s, "--profile", word]),
        ("lint", ["lint", where]),
        ("lint", ["lint", s, "--source", where]),
        ("compile", ["compile", where]),
        ("compile", ["compile", s, "--format", word]),
        ("compile", ["compile", s, "--whitespace", word]),
        ("check", ["check", s, where]),
        ("check", ["check", where, d]),
        ("check", ["check", s, d, "--whitespace", word]),
        ("check", ["check", s, d, "--format", word]),
        ("snapshot", ["snapshot", where, "--ci", "--targets", word]),
        ("validate", ["validate", "--schema", s, where]),
        ("validate", ["validate", "--schema", s, d, "--finish-reason", word]),
        ("validate", ["validate", "--schema", s, d, "--fallback", word]),
        ("validate", ["validate", "--schema", where, d]),
        (
            "generate",
            ["generate", "--schema", s, "--max-tokens", edge, "--prompt", "hi", "--server", "notaurl"],
        ),
        (
            "generate",
            ["generate", "--schema", where, "--max-tokens", "1", "--prompt", "hi", "--server", "notaurl"],
        ),
        ("generate", ["generate", "--schema", s, "--temperature", "-" + edge.strip("-"), "--server", "x"]),
        ("edit", ["edit", where, "-i", "x", "--max-tokens", edge, "--check", "--apply"]),
        ("edit", ["edit", "{T}/doc.json", "-i", "x", "--max-replace-lines", "-1"]),
        ("apply", ["apply", where, "--check"]),
        ("apply", ["apply", where, "--root", "{T}/missing", "--check"]),
        ("undo", ["undo", "--root", where or "{T}/missing"]),
        ("history", ["history", "--root", where or "{T}/missing"]),
        ("report", ["report", where]),
        ("cache", ["cache", rng.choice(["", "bogus", "--help"])]),
        ("conformance", ["conformance", where, "--format", word]),
    ]
    door, args = rng.choice(table)
    args = [a for a in args if a != ""] if rng.random() < 0.5 else args
    return Case(
        "flags",
        door,
        args,
        files=files,
        label=" ".join(args[:1] + [a for a in args[1:] if a.startswith("-")]),
    )


MAKERS = {"refs": refs, "outputs": outputs, "links": links, "endless": endless, "flags": flags}
