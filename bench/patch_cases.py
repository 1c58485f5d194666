"""The differential generator shared by tests/editors/patch/test_differential.py and bench/apply.py.

A case is an original tree, an edited tree and the tree the patch is applied to (the original, or
the original with one mutation, so that some patches do not apply). The patch is written by the
real ``git diff --no-index``; ``gramwright`` and the real ``git apply`` apply it to copies of the
target tree, and must end with identical trees or both refuse. The generator takes a
``draw(lo, hi)`` integer source, so hypothesis (CI) and a seeded ``random.Random`` (the benchmark)
run the very same code.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from gramwright.editors import apply_patch, parse_patch
from gramwright.errors import PatchError

T = TypeVar("T")
Draw = Callable[[int, int], int]

NAMES = ("a.txt", "src/b.py", "src/deep/c.md", "d e.txt")
# few distinct lines, so repeated lines (and ambiguous context) are common
LINES = (
    "",
    "a",
    "b",
    "x = 1",
    "\tindented",
    "    spaced",
    "def f():",
    "    return x",
    "é ü 中 ✓",
    "end  ",
    "x\ry",
)
ENDINGS = ("\n", "\r\n")
MUTATIONS = (
    "none",
    "none",
    "none",
    "none",
    "none",
    "change",
    "insert-top",
    "insert",
    "delete",
    "append",
    "flip-eol",
    "remove",
)


@dataclass(frozen=True)
class Case:
    original: dict[str, bytes]
    edited: dict[str, bytes]
    target: dict[str, bytes]
    mutation: str


def _pick(draw: Draw, items: Sequence[T]) -> T:
    return items[draw(0, len(items) - 1)]


def _text(draw: Draw) -> list[str]:
    style = draw(0, 2)  # LF, CRLF, or mixed line by line
    lines = []
    for _ in range(draw(0, 20)):
        ending = ENDINGS[style] if style < 2 else _pick(draw, ENDINGS)
        lines.append(_pick(draw, LINES) + ending)
    if lines and draw(0, 3) == 0:  # no newline at the end of the file
        lines[-1] = lines[-1].rstrip("\r\n")
    return lines


def _edit(draw: Draw, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(draw(1, 3)):
        op = draw(0, 4)
        at = draw(0, len(out))
        ending = out[at - 1][len(out[at - 1].rstrip("\r\n")) :] if at and out else "\n"
        ending = ending or "\n"
        if op == 0 and at < len(out):  # replace a line
            out[at] = _pick(draw, LINES) + "!" + (out[at][len(out[at].rstrip("\r\n")) :])
        elif op == 1:  # insert lines
            out[at:at] = [_pick(draw, LINES) + "+" + ending for _ in range(draw(1, 3))]
        elif op == 2 and at < len(out):  # delete a run
            del out[at : at + draw(1, 3)]
        elif op == 3 and at < len(out):  # change one line's terminator
            body = out[at].rstrip("\r\n")
            out[at] = body + ("\n" if out[at].endswith("\r\n") else "\r\n")
        elif op == 4 and out:  # toggle the final newline
            last = out[-1]
            out[-1] = last.rstrip("\r\n") if last.endswith("\n") else last + "\n"
    if out and not out[-1].endswith("\n") and any(not line.endswith("\n") for line in out[:-1]):
        out = [line if line.endswith("\n") else line + "\n" for line in out[:-1]] + out[-1:]
    return out


def _mutate(draw: Draw, files: dict[str, bytes], kind: str) -> dict[str, bytes]:
    out = dict(files)
    if kind == "none" or not out:
        return out
    name = _pick(draw, sorted(out))
    if kind == "remove":
        del out[name]
        return out
    lines = out[name].decode("utf-8").splitlines(keepends=True)
    at = draw(0, max(0, len(lines) - 1))
    if kind == "change" and lines:
        lines[at] = "mutated" + lines[at][len(lines[at].rstrip("\r\n")) :]
    elif kind == "insert-top":
        lines.insert(0, "inserted\n")
    elif kind == "insert":
        lines.insert(at, _pick(draw, LINES) + "\n")
    elif kind == "delete" and lines:
        del lines[at]
    elif kind == "append":
        lines.append("appended\n" if not lines or lines[-1].endswith("\n") else "\nappended")
    elif kind == "flip-eol" and lines and lines[at].endswith("\n"):
        body = lines[at].rstrip("\r\n")
        lines[at] = body + ("\n" if lines[at].endswith("\r\n") else "\r\n")
    out[name] = "".join(lines).encode("utf-8")
    return out


def generate(draw: Draw) -> Case:
    """One case: 1–3 files edited, created or deleted, and a target tree (maybe mutated)."""
    names = [n for n in NAMES if draw(0, 1)] or [NAMES[0]]
    original: dict[str, bytes] = {}
    edited: dict[str, bytes] = {}
    for name in names:
        fate = draw(0, 5)  # 0: created, 1: deleted, else edited
        lines = _text(draw)
        if fate != 0:
            original[name] = "".join(lines).encode("utf-8")
        if fate != 1:
            edited[name] = "".join(_edit(draw, lines) if fate != 0 else lines).encode("utf-8")
    mutation = _pick(draw, MUTATIONS)
    return Case(original, edited, _mutate(draw, original, mutation), mutation)


# --- running a case ------------------------------------------------------------------------

_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
}
_GIT = ["git", "-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "diff.noprefix=false"]
# header lines name "a/orig/x" and "b/new/x"; the trees to patch have "x" at their root
_PREFIX = re.compile(r"(?<![^ ])([ab])/(?:orig|new)/")


def _write(root: Path, files: dict[str, bytes]) -> None:
    root.mkdir(parents=True)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def read_tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and directory under ``root`` (the journal excluded) with its bytes and mode."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] != ".gramwright":
            out[rel] = (path.read_bytes() if path.is_file() else b"", path.stat().st_mode & 0o777)
    return out


def git_diff(work: Path, case: Case) -> str:
    """The patch from original to edited, as ``git diff --no-index`` writes it, with -p1 paths."""
    _write(work / "orig", case.original)
    _write(work / "new", case.edited)
    run = subprocess.run(
        [*_GIT, "diff", "--no-index", "--no-color", "--no-renames", "--no-ext-diff", "orig", "new"],
        cwd=work,
        env=_ENV,
        capture_output=True,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    out = []
    header = True
    for line in run.stdout.decode("utf-8").splitlines(keepends=True):
        if line.startswith("diff --git "):
            header = True
        elif line.startswith("@@"):
            header = False
        out.append(_PREFIX.sub(r"\1/", line) if header else line)
    return "".join(out)


@dataclass(frozen=True)
class Outcome:
    patch: str
    git_applied: bool
    ours_applied: bool
    git_tree: dict[str, tuple[bytes, int]]
    our_tree: dict[str, tuple[bytes, int]]
    git_error: str
    our_error: str
    crashed: bool = False
    our_reasons: tuple[str, ...] = ()
    our_normalised: bool = False  # an edit matched exactly but for LF vs CRLF
    git_seconds: float = 0.0
    our_seconds: float = 0.0

    @property
    def agree(self) -> bool:
        if self.crashed or self.git_applied != self.ours_applied:
            return False
        return not self.git_applied or self.git_tree == self.our_tree

    @property
    def documented(self) -> str | None:
        """The documented difference (docs/patches.md) this disagreement is, if it is one.

        ``eof-marker``: the diff marks a line "\\ No newline at end of file" but the file goes on
        after it; git apply joins that line to the next one, we refuse. ``syntax``: the patched
        file parsed before and would not after; git writes it, we refuse. ``line-endings``: the
        diff's lines differ from the file's in LF vs CRLF alone; git (``core.autocrlf=false``)
        refuses, we apply keeping the file's endings.
        """
        if self.agree or self.crashed:
            return None
        if self.ours_applied and not self.git_applied and self.our_normalised:
            return "line-endings"
        # a patch over several files can meet both refusals, one file each
        reasons = set(self.our_reasons)
        if self.git_applied and not self.ours_applied and reasons and reasons <= {"syntax", "eof-marker"}:
            return "+".join(sorted(reasons))
        return None


def run_case(case: Case) -> Outcome:
    """Apply the case's patch with git apply and with gramwright, each on its own copy."""
    with tempfile.TemporaryDirectory(prefix="gw-diff-") as tmp:
        work = Path(tmp)
        patch = git_diff(work, case)
        _write(work / "git", case.target)
        _write(work / "ours", case.target)
        (work / "p.diff").write_text(patch, encoding="utf-8", newline="")
        env = {**_ENV, "GIT_CEILING_DIRECTORIES": str(work)}
        started = time.perf_counter()
        git = subprocess.run(
            [*_GIT, "apply", "--whitespace=nowarn", str(work / "p.diff")],
            cwd=work / "git",
            env=env,
            capture_output=True,
            check=False,
        )
        git_seconds = time.perf_counter() - started
        our_error, crashed, reasons, normalised = "", False, (), False
        started = time.perf_counter()
        try:
            result = apply_patch(parse_patch(patch), work / "ours")
            ours = result.applied
            if not ours:
                our_error = result.report.feedback()
                reasons = tuple(e.location.reason for e in result.report.edits if e.status == "failed")
                reasons += tuple(p.reason or "problem" for p in result.report.problems)
            normalised = any(e.location.match and e.location.match.eol for e in result.report.edits)
        except PatchError as exc:
            ours, our_error = False, exc.one_line()
        except Exception as exc:  # noqa: BLE001 - a crash is reported as a disagreement, not raised
            ours, our_error, crashed = False, f"{type(exc).__name__}: {exc}", True
        our_seconds = time.perf_counter() - started
        return Outcome(
            patch=patch,
            git_applied=git.returncode == 0,
            ours_applied=ours,
            git_tree=read_tree(work / "git"),
            our_tree=read_tree(work / "ours"),
            git_error=git.stderr.decode("utf-8", "replace"),
            our_error=our_error,
            crashed=crashed,
            our_reasons=reasons,
            our_normalised=normalised,
            git_seconds=git_seconds,
            our_seconds=our_seconds,
        )
