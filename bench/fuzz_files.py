"""The second fuzz campaign: files that reference files, outputs that are not plain files, patch
trees with links, endless and huge inputs, and every command's flags at their edges.

    python -m bench.fuzz_files --json                        # the campaign: 20,000 inputs
    python -m bench.fuzz_files --per-family 50 --json        # a quick slice
    python -m bench.fuzz_files --families outputs,links --per-family 500 --seed 7

Each input (``bench.fuzz_files_cases``) is laid out in a fresh temporary folder — regular files,
character device nodes made with ``os.mknod`` (null, zero, full: never a path under ``/dev``),
FIFOs, symlinks, read-only folders — and its command runs in the first campaign's long-lived
worker (``bench.fuzz``: one interpreter, killed and restarted past the time limit). A FIFO the
command reads is fed by a writer thread and one it writes is drained by a reader thread; both are
stopped after the run. Per input: no hang (the limit), no traceback, a result (exit 0/1) or a
one-line error (exit 2), and the folder — every entry's type, size, content, link target and
device number, links not followed — the same before and after except for what the case says a
successful command writes (its output, or a patch's files and journal). A special file or a link
that stops being what it was is always a fault.

The report counts per family: inputs, results, one-line errors, hangs, tracebacks, other errors,
files changed, and the failing variants with one example each.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import select
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fuzz import Worker, verdict
from bench.fuzz_files_cases import FAMILIES, MAKERS, Case

LIMIT_S = 15.0
MAX_EXAMPLES = 40
# the campaign: 20,000 inputs (an endless input that is not refused costs its whole limit and a
# worker restart, so that family is the smallest)
CAMPAIGN = {"refs": 6000, "outputs": 5000, "links": 4000, "endless": 200, "flags": 4800}


# -- laying out a case -----------------------------------------------------------------------------


class Feeders:
    """The threads on a case's FIFOs: writers that fill input FIFOs until stopped, readers that
    drain output FIFOs; :meth:`stop` ends both, also when the command never opened its FIFO."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.threads: list[tuple[threading.Thread, Path, str]] = []
        self.drained = 0

    def feed(self, path: Path) -> None:
        def run() -> None:
            chunk = b"[" + b"1," * 32767
            with contextlib.suppress(OSError), open(path, "wb", buffering=0) as out:
                while not self.stopping.is_set():
                    out.write(chunk)

        self._start(run, path, "feed")

    def drain(self, path: Path) -> None:
        # the read end is opened here, at once (a non-blocking open needs no writer), so the
        # command's open for writing never waits, and a command that replaces the FIFO leaves
        # no thread blocked in open()
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)

        def run() -> None:
            try:
                while not self.stopping.is_set():
                    ready, _, _ = select.select([fd], [], [], 0.05)
                    if ready:
                        with contextlib.suppress(BlockingIOError):
                            self.drained += len(os.read(fd, 65536))
            finally:
                os.close(fd)

        self._start(run, path, "drain")

    def _start(self, run: Any, path: Path, kind: str) -> None:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append((thread, path, kind))

    def stop(self) -> None:
        self.stopping.set()
        for thread, path, kind in self.threads:
            # a writer still blocked in open(): open the other end once so that it returns
            for _ in range(50):
                if not thread.is_alive():
                    break
                if kind == "feed":
                    with contextlib.suppress(OSError):
                        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                        with contextlib.suppress(OSError):  # take what is in flight; then EPIPE
                            os.read(fd, 1 << 20)
                        os.close(fd)
                thread.join(0.05)


def lay_out(case: Case, folder: Path) -> Feeders:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            # "{T}" in a text (a file:// ref) is the case folder
            path.write_text(content.replace("{T}", str(folder)), encoding="utf-8", newline="")
    feeders = Feeders()
    for name, kind in case.special:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind.startswith("chr:"):
            _, major, minor = kind.split(":")
            # a node of our own in the temporary folder: never a path under /dev (the campaign
            # may run as root, where a command that replaced it would replace a real device)
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(int(major), int(minor)))
        elif kind.startswith("link:"):
            os.symlink(kind[5:], path)
        else:
            os.mkfifo(path)
            (feeders.feed if kind == "fifo-feed" else feeders.drain)(path)
    for name in case.readonly:
        (folder / name).chmod(0o555)
    return feeders


def snapshot(folder: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``folder`` (links not followed): type, size, mode, device, link target
    and a digest of a regular file's bytes."""
    entries: dict[str, tuple[Any, ...]] = {}
    for here, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(here) / name
            st = path.lstat()
            kind = stat.S_IFMT(st.st_mode)
            extra: Any = None
            if stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                with open(path, "rb") as f:
                    while block := f.read(1 << 20):
                        h.update(block)
                extra = h.hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                extra = os.readlink(path)
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                extra = st.st_rdev
            size = st.st_size if stat.S_ISREG(st.st_mode) else 0
            entries[str(path.relative_to(folder))] = (kind, size, stat.S_IMODE(st.st_mode), extra)
    return entries


def changes(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def unexplained(case: Case, code: int | None, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The changed paths the case does not allow: any on a run that did not succeed; on a success,
    those outside ``may_write`` and any entry that was not a regular file (or absent) before."""
    out = []
    for path in changes(before, after):
        was = before.get(path)
        allowed = code == 0 and any(path == p or path.startswith(p.rstrip("/") + "/") for p in case.may_write)
        special_replaced = was is not None and not stat.S_ISREG(was[0]) and not stat.S_ISDIR(was[0])
        if special_replaced or not allowed:
            out.append(path)
    return out


# -- the campaign ----------------------------------------------------------------------------------


@dataclass
class FamilyCounts:
    inputs: int = 0
    results: int = 0
    one_line_errors: int = 0
    hangs: int = 0
    tracebacks: int = 0
    other_errors: int = 0
    files_changed: int = 0
    max_s: float = 0.0
    # failing variants (the case's label) → count; and one example per variant
    faults: Counter[str] = field(default_factory=Counter)
    doors: Counter[str] = field(default_factory=Counter)

    def failures(self) -> int:
        return self.hangs + self.tracebacks + self.other_errors + self.files_changed


@dataclass
class Report:
    limit_s: float
    families: dict[str, FamilyCounts] = field(default_factory=lambda: {f: FamilyCounts() for f in FAMILIES})
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)
    restarts: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def to_dict(self, seconds: float) -> dict[str, Any]:
        fams = {
            name: vars(c)
            | {"max_s": round(c.max_s, 3), "faults": dict(c.faults.most_common()), "doors": dict(c.doors)}
            for name, c in self.families.items()
            if c.inputs
        }
        total = [c for c in self.families.values()]
        return {
            "total_inputs": sum(c.inputs for c in total),
            "families": fams,
            "hangs": sum(c.hangs for c in total),
            "tracebacks": sum(c.tracebacks for c in total),
            "other_errors": sum(c.other_errors for c in total),
            "files_changed": sum(c.files_changed for c in total),
            "skipped": dict(self.skipped),
            "limit_s": self.limit_s,
            "worker_restarts": self.restarts,
            "seconds": round(seconds, 1),
            "examples": list(self.examples.values())[:MAX_EXAMPLES],
        }


def run_case(report: Report, w: Worker, case: Case, folder: Path) -> str:
    """Lay out, snapshot, run, stop the feeders, snapshot again, judge; the verdict."""
    try:
        feeders = lay_out(case, folder)
    except PermissionError as exc:  # mknod needs privileges: the case cannot be laid out here
        report.skipped[f"{case.family}: {type(exc).__name__}"] += 1
        return "skipped"
    before = snapshot(folder)
    args = [a.replace("{T}", str(folder)) for a in case.args]
    t0 = time.perf_counter()
    answer = w.run(args, case.limit_s or report.limit_s)
    took = time.perf_counter() - t0
    feeders.stop()
    changed = unexplained(case, answer["code"] if answer else None, before, snapshot(folder))
    what = verdict(answer, context_allowed=False)
    c = report.families[case.family]
    c.inputs += 1
    c.doors[case.door] += 1
    c.max_s = max(c.max_s, took)
    counter = {"hang": "hangs", "traceback": "tracebacks", "result": "results", "one-line": "one_line_errors"}
    name = counter.get(what, "other_errors")
    setattr(c, name, getattr(c, name) + 1)
    if changed:
        c.files_changed += 1
    if what in ("hang", "traceback", "other") or changed:
        fault = what + (" +files changed" if changed else "")
        key = f"{case.family}: {case.label}: {fault}"
        c.faults[f"{case.label}: {fault}"] += 1
        if key not in report.examples:
            report.examples[key] = {
                "family": case.family,
                "what": fault,
                "label": case.label,
                "args": [a.replace(str(folder), "T") for a in args],
                "changed": changed[:5],
                "stderr": (answer or {}).get("stderr", "")[-400:].replace(str(folder), "T"),
                "exception": (answer or {}).get("exception"),
            }
    return what


def run_family(family: str, n: int, seed: int, limit_s: float, progress: bool = False) -> Report:
    report = Report(limit_s)
    rng = random.Random(f"{family}:{seed}")
    w = Worker()
    w.start()
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="gramwright-fuzz2-") as tmp:
            for i in range(n):
                case = MAKERS[family](rng)
                folder = Path(tmp) / "case"
                run_case(report, w, case, folder)
                with contextlib.suppress(OSError):  # read-only folders must go with the rest
                    for here, dirs, _ in os.walk(folder):
                        for d in dirs:
                            os.chmod(os.path.join(here, d), 0o755)
                if progress and (i + 1) % 500 == 0:
                    print(f"{family}: {i + 1}/{n}, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    finally:
        w.close()
    report.restarts = w.restarts
    return report


def merge(parts: list[Report]) -> Report:
    total = Report(parts[0].limit_s)
    for part in parts:
        for name, c in part.families.items():
            t = total.families[name]
            for key in (
                "inputs",
                "results",
                "one_line_errors",
                "hangs",
                "tracebacks",
                "other_errors",
                "files_changed",
            ):
                setattr(t, key, getattr(t, key) + getattr(c, key))
            t.max_s = max(t.max_s, c.max_s)
            t.faults.update(c.faults)
            t.doors.update(c.doors)
        for key, ex in part.examples.items():
            total.examples.setdefault(key, ex)
        total.restarts += part.restarts
        total.skipped.update(part.skipped)
    return total


def run_campaign(
    per_family: dict[str, int], seed: int = 0, limit_s: float = LIMIT_S, jobs: int = 1, progress: bool = False
) -> dict[str, Any]:
    """The report over ``per_family`` inputs; with ``jobs`` > 1 the families (in chunks of 1,000)
    run in parallel processes, each with its own worker and seed."""
    t0 = time.perf_counter()
    chunks = [
        (family, min(1000, n - start), seed + i)
        for family, n in per_family.items()
        for i, start in enumerate(range(0, n, 1000))
    ]
    if jobs <= 1:
        parts = [run_family(f, n, s, limit_s, progress) for f, n, s in chunks]
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(run_family, *zip(*chunks, strict=True), [limit_s] * len(chunks)))
    return merge(parts).to_dict(time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-family", type=int, default=0, help="inputs per family (default: the campaign)")
    parser.add_argument("--families", default=",".join(FAMILIES), help=",".join(FAMILIES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=float, default=LIMIT_S, help="seconds per run before it is a hang")
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers (chunks of 1,000 inputs)")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args()
    families = [f for f in args.families.split(",") if f]
    per = {f: (args.per_family or CAMPAIGN[f]) for f in families}
    report = run_campaign(per, seed=args.seed, limit_s=args.limit, jobs=args.jobs, progress=True)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"{report['total_inputs']} inputs in {report['seconds']} s")
        for name, c in report["families"].items():
            print(
                f"  {name:8} " + "  ".join(f"{k}={v}" for k, v in c.items() if k not in ("faults", "doors"))
            )
            for label, n in list(c["faults"].items())[:10]:
                print(f"      {n:5}  {label}")
    failed = report["hangs"] + report["tracebacks"] + report["other_errors"] + report["files_changed"]
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
