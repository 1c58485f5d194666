"""Soundness of the file-aware edit grammars by random constrained walks on real files.

Files: Python modules of this repository and the edit cases' originals (../shared/data, when
present), alone and in pairs, in both formats. Each walk draws tokens from the engine's masks
(SmolLM2 vocabulary): uniformly from the whole mask, or — with a probability rising from
``--finish`` to 1 over the budget — from the mask's tokens that carry the line on towards a
closing line (the markers, a hunk header), else that end the line, or EOS (half the time, else
another block), so that free REPLACE and ``+`` lines end within the budget; every token drawn is
one the mask allows, which is what is under test. Checked:

* no mask is ever empty;
* every walk that ends (EOS, or nothing more allowed) is accepting, and its output parses
  (udiff: after its ``@@`` headers are numbered), passes ``check_patch`` with every edit
  ``exact`` (no tolerant level), and applies (``apply_patch`` in a temporary copy), and the
  applied files equal the check's computed content.

    python -m bench.edit_soundness --json [--walks 2000] [--budget 160] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT.parent / "shared" / "data" / "edits" / "cases.jsonl"
# real modules of several sizes and shapes (blank lines, decorators, long strings, repeats)
REPO_FILES = (
    "editors/patch/model.py",
    "editors/patch/recount.py",
    "editors/patch/paths.py",
    "editors/patch/undo.py",
    "editors/patch/splice.py",
    "editors/patch/detect.py",
    "toolchain/engine/walks.py",
    "toolchain/engine/bitset.py",
    "toolchain/engine/byte_sets.py",
    "toolchain/grammar/utf8.py",
    "toolchain/errors.py",
    "toolchain/fsutil.py",
    "toolchain/pointer.py",
    "toolchain/positions.py",
    "toolchain/grammar/errors.py",
    "toolchain/engine/collector.py",
    "grammars/json.gbnf",
    "grammars/arithmetic.gbnf",
    "grammars/kv-config.gbnf",
    "Makefile",
)
# in order of preference: the marker that closes a block, the one that ends SEARCH, a new hunk
FINISH_TEXTS = (">>>>>>> REPLACE\n", "=======\n", "@@ ... @@\n", "\n")


def sources(case_limit: int) -> dict[str, bytes]:
    """Path → bytes of every file walked on."""
    out = {path: (ROOT / path).read_bytes() for path in REPO_FILES}
    if CASES.exists():
        rows = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
        for row in rows[:case_limit]:
            out[f"cases/{row['exercise']}/{row['file_path']}"] = row["original"].encode()
    return out


def run(
    walks: int,
    budget: int,
    seed: int = 0,
    finish: float = 0.35,
    case_limit: int = 34,
    debug: bool = False,
    max_new_lines: int | None = None,
) -> dict[str, Any]:
    import numpy as np

    from gramwright.editors import apply_patch, check_patch, parse_patch
    from gramwright.editors.generate.edit import build_edit_grammar
    from gramwright.editors.generate.grammar_udiff import number_hunks
    from gramwright.editors.patch.model import EditFormat
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.engine.matcher import EmptyMaskError, GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    usable = [bool(tb) and i not in vocab.special_ids for i, tb in enumerate(vocab.token_bytes)]
    closing = [t.encode() for t in FINISH_TEXTS]
    by_bytes: dict[bytes, int] = {}
    for i, tb in enumerate(vocab.token_bytes):
        if usable[i]:
            by_bytes.setdefault(tb, i)

    def closers(line: bytes) -> list[int]:
        """Tokens that carry the current line on towards a closing line, preferred text first,
        longest first (``>>>>`` then ``>>>`` …)."""
        out: list[int] = []
        for text in closing:
            if text.startswith(line):
                rest = text[len(line) :]
                out += [by_bytes[rest[:k]] for k in range(len(rest), 0, -1) if rest[:k] in by_bytes]
        return out

    ends = np.asarray([u and tb.endswith(b"\n") for u, tb in zip(usable, vocab.token_bytes, strict=True)])
    eos = np.asarray(sorted(vocab.eos_ids), dtype=np.int32)
    eos_mask = np.zeros(vocab.size, dtype=bool)
    eos_mask[eos] = True
    files = sources(case_limit)
    names = sorted(files)
    rng = random.Random(seed)
    # targets: every file alone, and a few pairs (two files in one patch)
    targets: list[tuple[str, ...]] = [(n,) for n in names]
    targets += [tuple(sorted(rng.sample(names, 2))) for _ in range(6)]
    engines: dict[tuple[tuple[str, ...], EditFormat], Any] = {}
    counts: Counter[str] = Counter()
    edits_per_patch: Counter[int] = Counter()
    failures: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "tree"
        for name, data in files.items():
            (base / name).parent.mkdir(parents=True, exist_ok=True)
            (base / name).write_bytes(data)
        for i in range(walks):
            target = targets[i % len(targets)]
            fmt = (EditFormat.SEARCH_REPLACE, EditFormat.UDIFF)[(i // len(targets)) % 2]
            key = (target, fmt)
            if key not in engines:
                snaps = [decode_file(n, files[n]) for n in target]
                eg = build_edit_grammar(snaps, fmt, max_replace_lines=max_new_lines)
                engines[key] = (eg, GrammarEngine(eg.grammar, vocab))
            eg, engine = engines[key]
            counts["walks"] += 1
            matcher = engine.matcher()
            ended = False
            try:
                for step in range(budget):
                    ids = matcher.allowed_token_ids()
                    pool = ids
                    # rising to 1 over the budget: late in a walk, close what is open
                    if rng.random() < finish + (1 - finish) * step / budget:
                        line = matcher.output[matcher.output.rfind(b"\n") + 1 :]
                        allowed = set(ids.tolist())
                        towards = [t for t in closers(line) if t in allowed]
                        stop = ids[eos_mask[ids]]
                        if stop.size and rng.random() < 0.5:  # else another block/hunk
                            pool = stop
                        elif towards:
                            # mostly the best: the closing marker's longest piece
                            pool = np.asarray(towards[:1] if rng.random() < 0.7 else towards)
                        else:
                            near = ids[ends[ids]]  # else end the line
                            if near.size:
                                pool = near
                    token = int(pool[rng.randrange(pool.size)])
                    matcher.consume(token)
                    if token in vocab.eos_ids or matcher.is_terminated():
                        ended = True
                        break
            except EmptyMaskError as exc:
                counts["empty_masks"] += 1
                failures.append(f"{target} {fmt.value}: {exc.one_line()}")
                continue
            if not ended:
                if debug:
                    failures.append(f"unfinished {target} {fmt.value}: {matcher.output[-120:]!r}")
                continue
            counts["ended"] += 1
            if not matcher.is_accepting():
                failures.append(f"{target} {fmt.value}: ended not accepting: {matcher.output[-80:]!r}")
                continue
            text = matcher.output.decode("utf-8")
            try:
                if fmt is EditFormat.UDIFF:
                    text = number_hunks(text, eg.lines)
                patch = parse_patch(text, fmt.value)
            except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                counts["parse_failed"] += 1
                failures.append(f"{target} {fmt.value}: not parsed: {exc}\n{text}")
                continue
            counts["parsed"] += 1
            report = check_patch(patch, base)
            if not report.ok or any(e.status != "exact" for e in report.edits):
                counts["check_failed"] += 1
                failures.append(f"{target} {fmt.value}: check failed: {report.feedback()}\n{text}")
                continue
            counts["checked_exact"] += 1
            edits_per_patch[len(report.edits)] += 1
            copy = Path(tmp) / f"apply{i}"
            shutil.copytree(base, copy)
            result = apply_patch(patch, copy)
            written = result.applied and all(
                (copy / c.path).read_bytes() == c.after for c in result.report.files if c.after is not None
            )
            shutil.rmtree(copy)
            if not written:
                counts["apply_failed"] += 1
                failures.append(f"{target} {fmt.value}: apply failed\n{text}")
                continue
            counts["applied"] += 1
    return {
        "walks": counts["walks"],
        "files": len(files),
        "targets": len(targets),
        "budget": budget,
        "finish_probability": finish,
        "empty_masks": counts["empty_masks"],
        "ended": counts["ended"],
        "parsed": counts["parsed"],
        "parse_failed": counts["parse_failed"],
        "checked_exact": counts["checked_exact"],
        "check_failed": counts["check_failed"],
        "applied": counts["applied"],
        "apply_failed": counts["apply_failed"],
        "edits_per_patch": dict(sorted(edits_per_patch.items())),
        "seconds": round(time.perf_counter() - t0, 1),
        "failures": failures[:10],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--walks", type=int, default=2000)
    ap.add_argument("--budget", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--finish", type=float, default=0.35)
    ap.add_argument("--max-new-lines", type=int, default=None, help="the grammars' --max-replace-lines")
    args = ap.parse_args(argv)
    result = run(args.walks, args.budget, args.seed, args.finish, max_new_lines=args.max_new_lines)
    result["max_new_lines"] = args.max_new_lines
    print(json.dumps(result, indent=2) if args.json else result)
    bad = result["empty_masks"] + result["parse_failed"] + result["check_failed"] + result["apply_failed"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
