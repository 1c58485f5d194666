"""``generate_edit``: a model writes a patch for real files under a grammar built from those files.

Files → snapshots → the format's file-aware grammar (``grammar_search_replace`` / ``grammar_udiff``)
→ the one generation entry point (``gramwright.generation.Generator``) with the edit prompt →
the output parsed by the patch parser → ``check_patch`` → (``apply``) ``apply_patch`` with its
backup. The check is not skipped because the grammar made the patch applicable: a checker that
cannot fail is not a check, and it must simply never fail on constrained output.

``constrain=False`` runs the same prompt without the mask (the baseline); its output goes through
the same parse and check, and its failures are the checker's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gramwright.editors.generate.grammar_search_replace import is_marker_line, search_replace_grammar
from gramwright.editors.generate.grammar_udiff import number_hunks, udiff_grammar
from gramwright.editors.generate.lines import FileLines, file_lines
from gramwright.editors.generate.prompt import edit_system_prompt, edit_user_prompt
from gramwright.editors.patch.apply import ApplyResult, apply_checked
from gramwright.editors.patch.check import check_patch
from gramwright.editors.patch.detect import parse_patch
from gramwright.editors.patch.model import EditFormat, Patch
from gramwright.editors.patch.paths import find_root, resolve_path
from gramwright.editors.patch.preview import preview_diff
from gramwright.editors.patch.report import CheckReport
from gramwright.editors.patch.snapshot import FileSnapshot, read_snapshot
from gramwright.errors import GramwrightError, PatchError
from gramwright.grammar.analysis import prepare
from gramwright.grammar.ir import Grammar

if TYPE_CHECKING:
    from gramwright.decode.generate import StepTrace
    from gramwright.generation import Generation, Generator, SamplingOptions

__all__ = ["EditGrammar", "EditResult", "build_edit_grammar", "generate_edit", "read_targets"]

SCHEMA = "gramwright.edit-result/1"
Mode = Literal["check", "dry-run", "apply"]


@dataclass(frozen=True)
class EditGrammar:
    """The grammar for one request and what it was built from."""

    format: EditFormat
    grammar: Grammar  # prepared
    lines: dict[str, FileLines]
    build_ms: float


def read_targets(paths: Sequence[str | Path], root: Path) -> list[FileSnapshot]:
    """Snapshots of the files to edit, named relative to ``root`` (binary or undecodable files
    are refused in one line by the snapshot reader)."""
    snaps: list[FileSnapshot] = []
    for given in paths:
        real = Path(given).resolve()
        try:
            rel = real.relative_to(root).as_posix()
        except ValueError:
            raise PatchError(
                "is outside the root", where=str(given), hint=f"give files under {root} (or --root)"
            ) from None
        resolved = resolve_path(root, rel, 0)
        _within_limit(resolved.real, str(given))
        snaps.append(read_snapshot(resolved.path, resolved.real))
    return snaps


def _within_limit(real: Path, where: str) -> None:
    """A file to edit is held whole (its lines become the grammar): one past the input limit is
    refused before it is read (``gramwright.readlimit``; a special file is the reader's refusal)."""
    from gramwright.readlimit import InputTooLarge, input_limit

    try:
        size = real.stat().st_size
    except OSError:
        return  # the snapshot reader says what is wrong with it
    if size > input_limit():
        raise InputTooLarge(where, input_limit(), "file to edit")


def build_edit_grammar(
    snapshots: Sequence[FileSnapshot],
    fmt: EditFormat,
    new_files: Sequence[str] = (),
    max_replace_lines: int | None = None,
) -> EditGrammar:
    """The file-aware grammar of ``fmt`` for ``snapshots`` (a file no run of whose lines is
    unique — an empty one — cannot be located by any edit: refused). ``max_replace_lines``
    bounds a SEARCH/REPLACE block's new lines, or a diff's ``+`` lines in a row."""
    t0 = time.perf_counter()
    udiff = fmt is EditFormat.UDIFF
    if fmt not in (EditFormat.UDIFF, EditFormat.SEARCH_REPLACE):
        raise PatchError(f"no file-aware grammar for {fmt.value}", hint="use search-replace or udiff")
    lines: dict[str, FileLines] = {}
    for snap in snapshots:
        if not udiff and any(ch.isspace() for ch in snap.path):
            raise PatchError(
                "a SEARCH/REPLACE path line cannot hold whitespace",
                where=snap.path,
                hint="use --edit-format udiff for this file",
            )
        fl = file_lines(snap, exact_eol=udiff, barrier=(lambda _c: False) if udiff else is_marker_line)
        if not any(fl.run_ok(i) for i in range(fl.count)):
            raise PatchError(
                "no run of its lines occurs only once, so no edit could be located in it",
                where=snap.path,
                hint="an empty file or one of one repeated line: rewrite it whole instead",
            )
        lines[snap.path] = fl
    targets = list(lines.values())
    if udiff:
        built = udiff_grammar(targets, new_files, max_replace_lines)
    else:
        built = search_replace_grammar(targets, new_files, max_replace_lines)
    grammar = prepare(built)
    return EditGrammar(fmt, grammar, lines, (time.perf_counter() - t0) * 1000.0)


@dataclass
class EditResult:
    """One edit request: what the model wrote, what it parsed to, whether it applies (or did)."""

    format: EditFormat
    constrained: bool
    root: str
    files: tuple[str, ...]
    generation: Generation
    patch_text: str  # the output as parsed (udiff: its @@ headers numbered)
    patch: Patch | None
    parse_error: str | None
    report: CheckReport | None
    applied: ApplyResult | None = None
    grammar_ms: float = 0.0
    engine_ms: float = 0.0
    diff: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    # the blocks (hunks) the token budget closed early: 1-based, in patch order, with their file
    # and patch line; their REPLACE text (+ lines) may be cut short (``cut_blocks``)
    cut: list[dict[str, Any]] = field(default_factory=list)
    refused: str | None = None  # why ``apply`` wrote nothing although the patch applies
    # the blocks (runs of + lines) whose new lines reached ``max_replace_lines``: the bound, not
    # the model, may have closed them, so their new text may be cut (``bound_reached``)
    at_bound: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finish_reason(self) -> str:
        return self.generation.finish_reason

    @property
    def closed_by_budget(self) -> bool:
        return self.generation.closed_by_budget

    @property
    def applicable(self) -> bool:
        """The patch checks clean *and* the model finished: a truncated output is never applied
        (``--apply`` refuses it), so it is never called applicable either."""
        return self.report is not None and self.report.ok and self.finish_reason == "stop"

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "format": self.format.value,
            "constrained": self.constrained,
            "root": self.root,
            "files": list(self.files),
            "finish_reason": self.finish_reason,
            "tokens": self.generation.tokens,
            "text": self.generation.text,
            "patch_text": self.patch_text,
            "parse_error": self.parse_error,
            "applicable": self.applicable,
            "check": self.report.as_dict() if self.report is not None else None,
            "closed_by_budget": self.closed_by_budget,
            "cut": list(self.cut),
            "refused": self.refused,
            "at_bound": list(self.at_bound),
            "applied": bool(self.applied and self.applied.applied),
            "backup_id": self.applied.entry_id if self.applied else None,
            "diff": self.diff,
            "grammar_ms": round(self.grammar_ms, 1),
            "engine_ms": round(self.engine_ms, 1),
            "metrics": {**self.generation.metrics, **self.metrics},
            "model": self.generation.model,
            "device": self.generation.device,
        }


def cut_blocks(patch: Patch, text: str, offset: int) -> list[dict[str, Any]]:
    """The blocks (hunks, file creations) of ``patch`` still being written at character
    ``offset`` of the output ``text`` or begun after it: those the budget's close may have cut
    short (a udiff's numbered headers keep its lines where they were)."""
    line = text.count("\n", 0, offset) + 1  # the 1-based patch line the close began on
    parts = sorted(
        [(e.patch_line, e.path) for e in patch.edits] + [(c.patch_line, c.path) for c in patch.creates]
    )
    starts = [i for i, (at, _) in enumerate(parts) if at <= line]
    first = starts[-1] if starts else 0
    return [
        {"block": i + 1, "path": path, "patch_line": at} for i, (at, path) in enumerate(parts) if i >= first
    ]


def bound_reached(text: str, fmt: EditFormat, bound: int | None) -> list[dict[str, Any]]:
    """The blocks of a patch ``text`` whose new lines number exactly ``bound`` (a SEARCH/REPLACE
    block's REPLACE section; a diff's run of ``+`` lines): the grammar closes a block there
    whatever the model would have written next, so a line it meant to keep may be missing.
    1-based blocks (diff: runs) with their file and patch line."""
    if not bound:
        return []
    found: list[dict[str, Any]] = []
    path, state, count, head = "", "", 0, 0
    lines = text.splitlines()
    udiff = fmt is EditFormat.UDIFF
    for number, line in enumerate([*lines, ""], start=1):
        if udiff:
            if line.startswith("+++ "):
                path = line[4:].removeprefix("b/")
            elif line.startswith("+") and not line.startswith("+++ "):
                head = head or number
                count += 1
                continue
            if count == bound:
                found.append({"block": len(found) + 1, "path": path, "patch_line": head})
            count, head = 0, 0
        elif state == "replace":
            if line.startswith(">>>>>>> REPLACE") or line.startswith("======="):
                if count == bound:
                    found.append({"block": len(found) + 1, "path": path, "patch_line": head})
                state = ""
            else:
                count += 1
        elif line.startswith("<<<<<<< SEARCH"):
            state, head = "search", number - 1
        elif state == "search" and line.startswith("======="):
            state, count = "replace", 0
        elif not state and line:
            path = line
    return found


def _parse(
    text: str, grammar: EditGrammar, constrained: bool, finished: bool
) -> tuple[str, Patch | None, str | None]:
    """Parse the output; a constrained diff gets its ``@@`` headers numbered first, except a
    truncated one (its last line may be cut, so its last hunk has no place: the parser, which
    recounts numberless headers itself, then says what is missing)."""
    patch_text = text
    try:
        if grammar.format is EditFormat.UDIFF and constrained and finished:
            patch_text = number_hunks(text, grammar.lines)
        return patch_text, parse_patch(patch_text, fmt=grammar.format), None
    except GramwrightError as exc:
        return patch_text, None, exc.one_line()


def generate_edit(
    files: Sequence[str | Path],
    instruction: str,
    *,
    model: str | None = None,
    fmt: EditFormat = EditFormat.SEARCH_REPLACE,
    root: Path | str | None = None,
    constrain: bool = True,
    mode: Mode = "dry-run",
    sampling: SamplingOptions | None = None,
    new_files: Sequence[str] = (),
    max_replace_lines: int | None = None,
    generator: Generator | None = None,
    progress: Callable[[str], None] = lambda _m: None,
    allow_broken_syntax: bool = False,
    accept_budget_close: bool = False,
    fast_forward: bool = True,
    on_token: Callable[[StepTrace], None] | None = None,
) -> EditResult:
    """Generate a patch of ``fmt`` for ``files`` doing ``instruction``; check it (``mode``
    ``check``), also preview its diff (``dry-run``) or apply it with a backup (``apply``, only
    when it applies and the model finished). A constrained output always ends within
    ``sampling.max_tokens`` (the masks close it); one the budget closed early applies, but its
    last blocks' new text may be cut, so ``apply`` writes it only with ``accept_budget_close``.
    A patch that leaves a file unparseable in its language does not apply unless
    ``allow_broken_syntax`` (the check of :func:`check_patch`). ``generator`` keeps a loaded
    model between calls (the benchmark's). ``fast_forward``: the text the grammar forces (most
    of a SEARCH block's lines) is appended without sampling (``decode/forced``). ``on_token``
    sees each step as it is sampled or forced (the TUI streams them); an exception it raises
    stops the generation and propagates (a cancel)."""
    from gramwright.engine.collector import cold_work
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import CompiledSource

    base = Path(root).resolve() if root is not None else find_root()
    snaps = read_targets(files, base)
    with cold_work():  # ~10 rules and a literal per file line: the collector would scan them all
        grammar = build_edit_grammar(snaps, fmt, new_files, max_replace_lines)
    source = CompiledSource(
        grammar=grammar.grammar, kind="edit", name=f"<{fmt.value} grammar>", compile_ms=grammar.build_ms
    )
    gen = generator or Generator(model)
    engine_ms = 0.0
    if constrain:  # a budget below the shortest patch: refused before the model loads
        gen.check_budget(source, (sampling or SamplingOptions()).max_tokens, progress)
        gen.load_model(progress)  # not part of the engine's time
        t0 = time.perf_counter()
        with cold_work():  # the collector pauses only where the application opted in (the CLI)
            gen.engine_for(source, progress, use_cache=False)
        engine_ms = (time.perf_counter() - t0) * 1000.0
    masks: list[float] = []

    def on_step(step: StepTrace) -> None:
        if step.mask_us is not None:
            masks.append(step.mask_us)
        if on_token is not None:
            on_token(step)

    generation = gen.run(
        source,
        edit_user_prompt(snaps, instruction, new_files),
        sampling=sampling,
        constrain=constrain,
        on_token=on_step,
        progress=progress,
        system=edit_system_prompt(fmt),
        use_cache=False,
        fast_forward=fast_forward,
    )
    finished = generation.finish_reason == "stop"
    patch_text, patch, parse_error = _parse(generation.text, grammar, constrain, finished)
    result = EditResult(
        format=fmt,
        constrained=constrain,
        root=str(base),
        files=tuple(s.path for s in snaps),
        generation=generation,
        patch_text=patch_text,
        patch=patch,
        parse_error=parse_error,
        report=None,
        grammar_ms=grammar.build_ms,
        engine_ms=engine_ms,
    )
    if masks:
        forward = float(generation.metrics.get("forward_ms_median") or 0.0)
        mean_ms = sum(masks) / len(masks) / 1000.0
        result.metrics["mask_ms_mean"] = round(mean_ms, 3)
        if forward:
            result.metrics["mask_share_of_forward"] = round(mean_ms / forward, 4)
    if patch is None:
        return result
    result.at_bound = bound_reached(generation.text, fmt, max_replace_lines)
    if generation.closing_offset is not None:
        result.cut = cut_blocks(patch, generation.text, generation.closing_offset)
    # the files as read for the grammar: each is read once (the apply re-checks their hashes)
    result.report = check_patch(
        patch,
        base,
        snapshots={snap.path: snap for snap in snaps},
        allow_broken_syntax=allow_broken_syntax,
    )
    if mode == "dry-run" and result.report.ok:
        result.diff = preview_diff(result.report)
    if mode == "apply" and result.report.ok and finished and result.cut and not accept_budget_close:
        where = ", ".join(
            f"block {c['block']} ({c['path']}, patch line {c['patch_line']})" for c in result.cut
        )
        result.refused = (
            f"the token budget closed {where} early: its new text may be cut short; not applied "
            "(raise --max-tokens, or --accept-budget-close to write it as it is)"
        )
        return result
    if mode == "apply" and result.report.ok and finished:
        # a truncated output is never written, even where what it has so far would apply
        result.applied = apply_checked(result.report, patch)
    return result
