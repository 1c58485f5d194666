"""Conformance runner: compile each schema, ask the recognizer about each test instance.

Inputs: a JSON-Schema-Test-Suite draft folder (``tests/draft2020-12``; core files, plus
``optional/`` when asked) or a JSONSchemaBench split folder (files with ``schema`` + ``tests``),
or a single file of either kind.

Per case (instance): ``pass`` (valid and accepted, or invalid and rejected), ``false_negative``
(valid, rejected — always a bug), ``false_positive_reported`` (invalid, accepted, and the compile
report lists an approximated/discarded keyword on the instance's failure path: python-jsonschema's
error for it — or one of its ``context`` errors — sits at or below a reported keyword, or contains
one), ``false_positive_silent`` (invalid, accepted, nothing reported on its path — always a bug),
``refused`` (the compiler refused the schema with a reason; a schema it proves unsatisfiable is
no refusal: every instance is rejected, so an invalid one passes and a valid one is a false
negative), ``error`` (crash, timeout, or an
invalid instance whose member-order search ran out of budget: undecided, so not counted as a pass).

Instances are serialised canonically (:mod:`gramwright.schema.canonical`); an instance with no
canonical text (a lone surrogate, a non-finite number) counts as rejected, so a valid one is a
false negative — nothing is hidden.

Format semantics follow the suite: core files treat ``format`` as an annotation (the 2020-12
default), ``optional/format`` files assert it; JSONSchemaBench asserts formats.
"""

from __future__ import annotations

import hashlib
import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import FormatChecker

from gramwright.pointer import join_pointer
from gramwright.schema.api import compile_schema
from gramwright.schema.compiler.core import validator_classes
from gramwright.schema.compiler.options import CompileOptions
from gramwright.schema.errors import SchemaCompileError, UnsatisfiableSchema
from gramwright.schema.report import CompileReport
from gramwright.schema.resolve import TEST_SUITE_REMOTE, Loc, SchemaRegistry

CATEGORIES = (
    "pass",
    "false_negative",
    "false_positive_reported",
    "false_positive_silent",
    "refused",
    "error",
)
SUITE_DRAFTS = {
    "draft4": 4,
    "draft6": 6,
    "draft7": 7,
    "draft2019-09": 2019,
    "draft2020-12": 2020,
    "latest": 2020,
}


@dataclass
class TestCase:
    id: str
    data: Any
    valid: bool
    description: str = ""


@dataclass
class SchemaGroup:
    id: str
    schema: Any
    tests: list[TestCase]
    draft: int = 2020
    formats: str = "assert"
    remotes: dict[str, Path] = field(default_factory=dict)


@dataclass
class CaseResult:
    id: str
    category: str
    detail: str = ""


@dataclass
class GroupResult:
    id: str
    status: str  # "compiled" | "unsatisfiable" | "refused" | "error"
    compile_ms: float = 0.0  # compile_schema (what the compile benchmark reports)
    ready_ms: float = 0.0  # plus the recognizer's compile_grammar
    reason: str = ""
    keyword: str = ""
    cases: list[CaseResult] = field(default_factory=list)


@dataclass
class ConformanceResult:
    groups: list[GroupResult] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(case.category for g in self.groups for case in g.cases)
        return {k: c.get(k, 0) for k in CATEGORIES}

    def summary(self) -> dict[str, Any]:
        refused_by_keyword: Counter[str] = Counter()
        for g in self.groups:
            if g.status == "refused":
                refused_by_keyword[g.keyword or "(schema)"] += 1
        compiled = sum(1 for g in self.groups if g.status == "compiled")
        times = sorted(g.compile_ms for g in self.groups if g.status == "compiled")
        out: dict[str, Any] = {
            "schemas": len(self.groups),
            "cases": sum(len(g.cases) for g in self.groups),
            **self.counts,
            "refused_by_keyword": dict(refused_by_keyword.most_common()),
            "schemas_compiled": compiled,
            "schemas_refused": sum(1 for g in self.groups if g.status == "refused"),
            # proven to accept nothing: their instances are judged (rejected), not refused
            "schemas_unsatisfiable": sum(1 for g in self.groups if g.status == "unsatisfiable"),
            "schemas_error": sum(1 for g in self.groups if g.status == "error"),
            "compile_ms": {
                "p50": _pct(times, 50),
                "p90": _pct(times, 90),
                "p99": _pct(times, 99),
                "max": round(times[-1], 2) if times else 0.0,
            },
        }
        return out

    def case_categories(self) -> dict[str, str]:
        return {case.id: case.category for g in self.groups for case in g.cases}


def _pct(values: list[float], p: int) -> float:
    if not values:
        return 0.0
    i = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return round(values[i], 2)


# -- discovery -----------------------------------------------------------------------------------
def _suite_root(path: Path) -> Path | None:
    for p in [path, *path.parents]:
        if (p / "remotes").is_dir() and (p / "tests").is_dir():
            return p
    return None


def discover(path: Path, *, optional: bool = False) -> list[SchemaGroup]:
    """The schema groups under ``path`` (a suite draft folder, a bench split, or one file)."""
    path = path.resolve()
    files = [path] if path.is_file() else sorted(path.rglob("*.json"))
    root = _suite_root(path)
    remotes = {TEST_SUITE_REMOTE: root / "remotes"} if root else {}
    groups: list[SchemaGroup] = []
    base = path if path.is_dir() else path.parent
    for f in files:
        rel = f.relative_to(base).as_posix() if f.is_relative_to(base) else f.name
        if root is not None and not optional and "optional" in f.relative_to(root).parts:
            continue
        data = json.loads(f.read_text(encoding="utf-8"))
        if isinstance(data, list):  # the test suite: a list of groups
            draft = _draft_of(f)
            formats = "assert" if "format" in f.relative_to(root or base).parts[:-1] else "annotate"
            for gi, g in enumerate(data):
                tests = [
                    TestCase(f"{rel}#{gi}/{ti}", t["data"], bool(t["valid"]), t.get("description", ""))
                    for ti, t in enumerate(g.get("tests", []))
                ]
                groups.append(SchemaGroup(f"{rel}#{gi}", g["schema"], tests, draft, formats, remotes))
        elif isinstance(data, dict) and "schema" in data:  # JSONSchemaBench
            split = f.parent.name
            gid = f"{split}/{f.stem}"
            tests = [
                TestCase(f"{gid}#{ti}", t["data"], bool(t["valid"]), t.get("description", ""))
                for ti, t in enumerate(data.get("tests", []))
            ]
            groups.append(SchemaGroup(gid, data["schema"], tests, 2020, "assert", remotes))
    return groups


def _draft_of(path: Path) -> int:
    for part in reversed(path.parts):
        if part in SUITE_DRAFTS:
            return SUITE_DRAFTS[part]
    return 2020


def sample(groups: list[SchemaGroup], every: int) -> list[SchemaGroup]:
    """A deterministic sample: the groups whose id hashes into 1 of ``every`` buckets."""
    if every <= 1:
        return groups
    return [g for g in groups if int(hashlib.sha1(g.id.encode()).hexdigest()[:8], 16) % every == 0]


# -- running -------------------------------------------------------------------------------------
@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """A hard time limit (SIGALRM) when running on the main thread; the compiler also checks one."""
    if (
        seconds <= 0
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "SIGALRM")
    ):
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"over {seconds:g} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_group(group: SchemaGroup, *, timeout_s: float = 10.0, case_budget: int = 50_000) -> GroupResult:
    from gramwright.grammar.errors import GrammarError
    from gramwright.recognizer import Recognizer, compile_grammar
    from gramwright.schema.canonical import KeyOrder, SearchBudgetExceeded, accepts

    options = CompileOptions(
        formats="assert" if group.formats == "assert" else "annotate",
        default_draft=group.draft,
        remotes=group.remotes,
        timeout_s=timeout_s,
    )
    res = GroupResult(group.id, "compiled")
    t0 = time.perf_counter()
    try:
        with time_limit(timeout_s * 1.5):
            registry = SchemaRegistry(group.schema, default_draft=group.draft, remotes=group.remotes)
            compiled = compile_schema(group.schema, options=options, registry=registry)
            cg = compile_grammar(compiled.grammar)
    except UnsatisfiableSchema as exc:
        # A proof that no value satisfies the schema is a verdict on every instance: each is
        # rejected (`check` says so too). A valid one would prove the proof wrong.
        res.status, res.reason, res.keyword = "unsatisfiable", exc.reason, exc.keyword
        res.cases = [
            CaseResult(t.id, "false_negative", f"valid instance, but {exc.one_line()}")
            if t.valid
            else CaseResult(t.id, "pass", f"rejected: {exc.one_line()}")
            for t in group.tests
        ]
        return res
    except SchemaCompileError as exc:
        res.status, res.reason, res.keyword = "refused", exc.reason, exc.keyword
        res.cases = [CaseResult(t.id, "refused", exc.one_line()) for t in group.tests]
        return res
    except (TimeoutError, RecursionError, GrammarError, Exception) as exc:  # noqa: BLE001 - counted, not hidden
        res.status, res.reason = "error", f"{type(exc).__name__}: {exc}"
        res.cases = [CaseResult(t.id, "error", res.reason) for t in group.tests]
        return res
    res.compile_ms = compiled.compile_ms
    res.ready_ms = (time.perf_counter() - t0) * 1000.0
    rec = Recognizer(cg)
    key_order = KeyOrder(compiled.member_orders)
    attribution: _Attribution | None = None
    for t in group.tests:
        try:
            with time_limit(timeout_s):
                ok = accepts(
                    rec, t.data, budget=case_budget, draft4=registry.root_draft <= 4, key_order=key_order
                )
            detail = ""
        except (SearchBudgetExceeded, TimeoutError):
            if not t.valid:
                # Not found in the budget is not "rejected": no order was found, but not every
                # order was tried either. Counted as undecided, not as a pass.
                res.cases.append(CaseResult(t.id, "error", "undecided: member-order search budget exceeded"))
                rec.reset()
                continue
            ok, detail = False, "member-order search budget exceeded"
        except (ValueError, TypeError) as exc:
            ok, detail = False, f"no canonical text: {exc}"
        except Exception as exc:  # noqa: BLE001
            res.cases.append(CaseResult(t.id, "error", f"{type(exc).__name__}: {exc}"))
            continue
        rec.reset()
        if ok == t.valid:
            res.cases.append(CaseResult(t.id, "pass"))
        elif t.valid:
            res.cases.append(CaseResult(t.id, "false_negative", detail or "valid instance rejected"))
        else:
            if attribution is None:
                attribution = _Attribution(
                    registry, compiled.report, group.draft, options.formats == "assert"
                )
            where = attribution.explain(t.data)
            if where:
                res.cases.append(CaseResult(t.id, "false_positive_reported", where))
            else:
                res.cases.append(
                    CaseResult(t.id, "false_positive_silent", "accepted; nothing reported on its path")
                )
    return res


class _Attribution:
    """Maps python-jsonschema's errors for an instance to the compile report's pointers."""

    def __init__(self, registry: SchemaRegistry, report: CompileReport, draft: int, formats: bool) -> None:
        self.registry = registry
        self.inexact = [(e.pointer, e) for e in report.inexact()]
        cls = validator_classes()[registry.root_draft]
        # Every known format, whatever the draft: the grammar compiles them all.
        checker = FormatChecker() if formats else None
        self.validator = cls(registry.root, registry=registry.registry, format_checker=checker)

    def explain(self, instance: Any) -> str:
        """The reported keyword(s) on the instance's failure path, or "" when none is."""
        found: list[str] = []
        for final, visited in self._error_paths(instance):
            for rp, entry in self.inexact:
                # The reported keyword encloses the failing one (or a location on the way to
                # it, through $refs), or lies inside the failing keyword (e.g. an anyOf branch).
                if any(v == rp or v.startswith(rp + "/") for v in visited) or rp.startswith(final + "/"):
                    found.append(f"{entry.pointer} ({entry.status}: {entry.reason})")
        return "; ".join(dict.fromkeys(found))

    def _error_paths(self, instance: Any) -> Iterator[tuple[str, list[str]]]:
        stack = list(self.validator.iter_errors(instance))
        seen = 0
        while stack and seen < 2000:
            err = stack.pop()
            seen += 1
            visited = self._walk(list(err.absolute_schema_path))
            final = visited[-1]
            if isinstance(err.schema, dict) and err.validator is not None:
                info = self.registry.info(err.schema)
                if info is not None:
                    final = join_pointer(info[0], str(err.validator))
                    visited.append(final)
            yield final, visited
            stack.extend(err.context or ())

    def _walk(self, path: list[Any]) -> list[str]:
        """The locations a schema path passes through from the root, stepping through $refs
        (which python-jsonschema leaves out of its paths)."""
        loc: Loc = self.registry.root_loc()
        visited = [loc.pointer]
        try:
            for seg in path:
                if (
                    seg in ("$dynamicRef", "$recursiveRef")
                    and isinstance(loc.schema, dict)
                    and seg in loc.schema
                ):
                    loc = self.registry.lookup(loc, seg)
                    visited.append(loc.pointer)
                    continue
                for _ in range(16):
                    s = loc.schema
                    if (isinstance(s, dict) and seg in s) or (isinstance(s, list) and isinstance(seg, int)):
                        break
                    if isinstance(s, dict) and "$ref" in s:
                        loc = self.registry.lookup(loc, "$ref")
                        visited.append(loc.pointer)
                        continue
                    return visited
                if isinstance(loc.schema, list):
                    loc = Loc(loc.schema[seg], f"{loc.pointer}/{seg}", loc.resolver, loc.draft)
                else:
                    loc = self.registry.child(loc, seg)
                visited.append(loc.pointer)
        except (SchemaCompileError, IndexError, KeyError, TypeError):
            pass
        return visited


def _related(a: str, b: str) -> bool:
    """One pointer is the other or lies inside it (segment-wise)."""
    return a == b or b.startswith(a + "/") or a.startswith(b + "/")


def run_conformance(
    path: Path,
    *,
    optional: bool = False,
    timeout_s: float = 10.0,
    every: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ConformanceResult:
    from gramwright.recognizer import clear_compile_cache

    groups = sample(discover(path, optional=optional), every)
    result = ConformanceResult()
    for i, g in enumerate(groups):
        result.groups.append(run_group(g, timeout_s=timeout_s))
        # Each group is another schema: keeping the last 64 compiled grammars (and their memo
        # tables) alive only makes every full garbage collection slower, up to the time limits.
        clear_compile_cache()
        if progress is not None:
            progress(i + 1, len(groups))
    return result
