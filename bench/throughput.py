"""Throughput of the batched generation loop (``decode/batch.py``): output tokens/s and latency
per request, constrained against unconstrained, on the embedded model, greedy.

Cases (``--kinds``): ``po`` the purchase-order schema with the seed's requests; ``mixed`` four
JSONSchemaBench Glaive schemas; ``edit`` the first edit case in SEARCH/REPLACE and in unified-diff
form (file-aware grammars); ``edits-sr`` the edit cases in SEARCH/REPLACE form (``--edit-limit``).
Each batch size runs ``max(batch, cases)`` requests (the cases in turn), all queued at once.

Modes (``--modes``), through the same loop, interleaved repetition by repetition:

* ``unconstrained`` — no masks;
* ``ours`` — our masks, fast-forward off, step by step; ``ours-ff`` — fast-forward appending
  forced tokens unverified (what sampled rows do); ``ours-spec`` — the library's greedy default:
  forced text and copies of the prompt and output drafted and verified (``decode/speculate.py``),
  the outputs of ``ours``; ``ours-spec-noff`` — copies only, forced text not drafted;
  ``unconstrained-spec`` — no masks, copy speculation (the other modes decode without it);
* ``llguidance``, ``xgrammar`` — the peers' masks written into the batch's bitset row by row
  (schema cases only: they compile the JSON Schema themselves; no budget).

Reported per batch size and mode: tokens/s (median over repetitions), p50/p95 latency per
request, time to first token (``ttft_s_*``: the prompt's prefill, the same work in every mode) and
the output rate after it (``decode_tokens_per_s``, 1 / inter-token latency), forward passes per
output token, the masks' share of the loop's time and how much of
the mask work the forward pass hid (``mask_overlapped``). Ratios to unconstrained per row, for the
whole run and for the decode steps with the batch full (``full_batch_*``): constrained outputs are
shorter and end at different steps, so the whole run's ratio also measures prefills spread over
fewer tokens and a draining batch; the full-batch ratio is the masks' cost at equal occupancy.

    python -m bench.throughput --json [--device auto|cpu|cuda] [--batch-sizes 1,4,16,32]
        [--reps 3] [--max-tokens 128] [--kinds po,mixed,edit] [--modes ...] [--threads N] [--dtype D]

On a GPU machine: ``python -m bench.throughput --json --device cuda --reps 5`` (the model loads in
its checkpoint's dtype there; the bitsets are unpacked on the GPU).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gramwright.models.threads import passive_waiting

passive_waiting()  # as the CLI does: before torch loads, its OpenMP threads told to sleep when waiting

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
MIXED = DATA / "jsonschemabench" / "Glaiveai2K"
MIXED_PROMPT = "Write one JSON object with realistic example values that follows the schema."
MODES = ("unconstrained", "ours", "ours-ff", "ours-spec", "llguidance", "xgrammar")  # the default run
ALL_MODES = (*MODES, "unconstrained-spec", "ours-spec-noff")


@dataclass
class Case:
    kind: str
    name: str
    prompt: str
    engine: Any  # GrammarEngine
    schema: Any = None  # the JSON Schema (the peers compile it), None for edits
    edit: tuple[Path, str] | None = None  # an edit case's directory and format


def build_cases(
    generator: Any, kinds: tuple[str, ...], *, max_tokens: int = 128, edit_limit: int = 34
) -> list[Case]:
    """The benchmark's prompts with their engines (``generator``: a ``Generator``)."""
    from bench.purchase_orders import REQUESTS
    from gramwright.sources import load_for_generation

    cases: list[Case] = []
    if "po" in kinds:
        source = load_for_generation(str(ROOT / "docs/examples/purchase_order.json"))
        engine = generator.engine_for(source)
        for i, request in enumerate(REQUESTS):
            prompt, _plan = generator.prompt_for(source, request, max_tokens=max_tokens)
            cases.append(Case("po", f"po-{i}", prompt, engine, source.schema))
    if "mixed" in kinds:
        for path in sorted(MIXED.glob("*.json"))[:4]:
            source = load_for_generation(str(path))
            engine = generator.engine_for(source)
            prompt, _plan = generator.prompt_for(source, MIXED_PROMPT, max_tokens=max_tokens)
            cases.append(Case("mixed", path.stem, prompt, engine, source.schema))
    if "edit" in kinds:
        rows = _edit_rows(1)
        for fmt in ("search-replace", "udiff"):
            cases.append(_edit_case(generator, rows[0], fmt, max_tokens))
    if "edits-sr" in kinds:
        for row in _edit_rows(edit_limit):
            cases.append(_edit_case(generator, row, "search-replace", max_tokens))
    return cases


def _edit_rows(limit: int) -> list[dict[str, Any]]:
    with (DATA / "edits" / "cases.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()][:limit]


def _edit_case(generator: Any, row: dict[str, Any], fmt: str, max_tokens: int) -> Case:
    from bench.edits import case_dir
    from gramwright.editors import EditFormat
    from gramwright.editors.generate.edit import build_edit_grammar, read_targets
    from gramwright.editors.generate.prompt import edit_system_prompt, edit_user_prompt
    from gramwright.sources import CompiledSource

    base = Path(tempfile.mkdtemp(prefix="throughput-"))
    d = case_dir(row, base)
    snaps = read_targets([d / row["file_path"]], d)
    grammar = build_edit_grammar(snaps, EditFormat(fmt))
    source = CompiledSource(
        grammar=grammar.grammar, kind="edit", name=f"<{fmt} grammar>", compile_ms=grammar.build_ms
    )
    engine = generator.engine_for(source, use_cache=False)
    prompt, _plan = generator.prompt_for(
        source,
        edit_user_prompt(snaps, row["prompt"]),
        max_tokens=max_tokens,
        system=edit_system_prompt(EditFormat(fmt)),
    )
    return Case("edit", f"{row['id'].rsplit('/', 1)[-1]}:{fmt}", prompt, engine, edit=(d, fmt))


def _applies(case: Case, text: str) -> bool:
    """Whether an edit case's output parses and applies to its file (checked, nothing written)."""
    from gramwright.editors import check_patch, parse_patch
    from gramwright.errors import GramwrightError

    assert case.edit is not None
    root, fmt = case.edit
    try:
        return check_patch(parse_patch(text, fmt), root).ok
    except GramwrightError:
        return False


class PeerRow:
    """An llguidance or XGrammar matcher as a row of the batched loop (``RowMasker``)."""

    def __init__(self, name: str, compiled: Any, peers: dict[str, Any]) -> None:
        self.name = name
        self.peer = peers[name]
        self.matcher = self.peer.matcher(compiled)

    def fill(self, words: npt.NDArray[np.int32], row: int) -> None:
        if self.name == "llguidance":
            import llguidance.numpy

            llguidance.numpy.fill_next_token_bitmask(self.matcher, words, row)
        else:
            import torch

            self.matcher.fill_next_token_bitmask(torch.from_numpy(words), row)

    def consume(self, token: int) -> None:
        self.peer.consume(self.matcher, token)

    def is_terminated(self) -> bool:
        if self.name == "llguidance":
            return bool(self.matcher.is_stopped())
        return bool(self.matcher.is_terminated())


def _requests(
    cases: list[Case],
    mode: str,
    count: int,
    max_tokens: int,
    peers: dict[str, Any],
    compiled: dict[tuple[str, str], Any],
) -> list[Any]:
    from gramwright.decode.batch import BatchRequest

    out = []
    for case in _cycle(usable_cases(cases, mode), count):
        if mode in ("unconstrained", "unconstrained-spec"):
            out.append(
                BatchRequest(case.prompt, None, max_tokens=max_tokens, speculate=mode.endswith("-spec"))
            )
        elif mode in ("ours", "ours-ff", "ours-spec", "ours-spec-noff"):
            out.append(
                BatchRequest(
                    case.prompt,
                    case.engine,
                    max_tokens=max_tokens,
                    fast_forward=mode in ("ours-ff", "ours-spec"),
                    speculate=mode.startswith("ours-spec"),
                )
            )
        else:
            key = (mode, case.name)
            if key not in compiled:
                compiled[key] = peers[mode].compile(case.schema)
            out.append(
                BatchRequest(
                    case.prompt, None, max_tokens=max_tokens, masker=PeerRow(mode, compiled[key], peers)
                )
            )
    return out


def usable_cases(cases: list[Case], mode: str) -> list[Case]:
    """The cases a mode runs: the peers' only where there is a JSON Schema to compile."""
    return [c for c in cases if mode not in ("llguidance", "xgrammar") or c.schema is not None]


def _cycle(cases: list[Case], count: int) -> list[Case]:
    return [cases[i % len(cases)] for i in range(count)]


def _sum_counts(counts: Any) -> dict[str, int]:
    total: Counter[str] = sum((Counter(one) for one in counts), Counter())
    return dict(sorted(total.items(), key=lambda kv: int(kv[0])))


def _decode_rate(run: Any) -> float:
    """Output tokens per second after each request's prefill (its first tokens), over the run's
    requests: the tokens after it over the seconds after it (1 / inter-token latency)."""
    tokens = seconds = 0.0
    for r in run.results:
        if "ttft_s" not in r.metrics:
            continue
        tokens += len(r.steps) - r.metrics["first_tokens"]
        seconds += r.metrics["elapsed_s"] - r.metrics["ttft_s"]
    return round(tokens / seconds, 2) if seconds > 0 else 0.0


# a run's output tokens/s three ways (``BatchRun``): the whole run, its full-batch steps, after
# each request's first token
RATES: dict[str, Callable[[Any], float]] = {
    "whole": lambda run: run.summary()["tokens_per_s"],
    "full": lambda run: run.full_batch_tokens_per_s(),
    "decode": _decode_rate,
}


def _ratio(value: float, base: float | None) -> float | None:
    return round(value / base, 3) if base else None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] if ordered else 0.0


def run(args: argparse.Namespace) -> dict[str, Any]:
    from gramwright.decode.batch import generate_batch
    from gramwright.generation import Generator

    generator = Generator(device=args.device, threads=args.threads or None, dtype=args.dtype)
    lm = generator.load_model()
    kinds = tuple(args.kinds.split(","))
    cases = build_cases(generator, kinds, max_tokens=args.max_tokens, edit_limit=args.edit_limit)
    modes = [m for m in args.modes.split(",") if m]
    unknown = sorted(set(modes) - set(ALL_MODES))
    if unknown:
        raise SystemExit(f"unknown mode(s) {', '.join(unknown)}: choose from {', '.join(ALL_MODES)}")
    peers: dict[str, Any] = {}
    for name in ("llguidance", "xgrammar"):
        if name in modes:
            from gramwright.serving.engines import mask_engine

            peers[name] = mask_engine(name, lm.tokenizer, generator.vocab)
    if not any(c.schema is not None for c in cases):
        modes = [m for m in modes if m not in peers]
    compiled: dict[tuple[str, str], Any] = {}
    eos = generator.vocab.eos_ids
    table: list[dict[str, Any]] = []
    differences: list[dict[str, Any]] = []
    speculation: list[dict[str, Any]] = []
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        count = max(batch, len(cases)) if args.requests == 0 else args.requests
        per_mode: dict[str, list[Any]] = {m: [] for m in modes}
        for rep in range(args.reps):
            for mode in modes:
                requests = _requests(cases, mode, count, args.max_tokens, peers, compiled)
                got = generate_batch(
                    lm.model,
                    lm.tokenizer,
                    requests,
                    batch_size=batch,
                    eos_ids=eos,
                    overlap=not args.no_overlap,
                )
                per_mode[mode].append(got)
                print(
                    f"batch {batch} rep {rep + 1} {mode}: {got.summary()['tokens_per_s']} tok/s, "
                    f"full batch {got.full_batch_tokens_per_s()} tok/s",
                    file=sys.stderr,
                )
        for plain, spec in (
            ("ours", "ours-spec"),
            ("ours", "ours-spec-noff"),
            ("unconstrained", "unconstrained-spec"),
        ):
            if plain in per_mode and spec in per_mode:
                # speculation must not change a greedy output: compared request by request (first rep)
                twins = list(zip(per_mode[plain][0].results, per_mode[spec][0].results, strict=True))
                speculation.append(
                    {
                        "batch": batch,
                        "modes": [plain, spec],
                        "requests": len(twins),
                        "token_ids_differ": sum(a.token_ids != b.token_ids for a, b in twins),
                    }
                )
        if "ours" in per_mode and "ours-ff" in per_mode:
            # fast-forward's outputs against step-by-step decoding, request by request (first rep)
            pairs = list(zip(per_mode["ours"][0].results, per_mode["ours-ff"][0].results, strict=True))
            differences.append(
                {
                    "batch": batch,
                    "requests": len(pairs),
                    "texts_differ": sum(a.text != b.text for a, b in pairs),
                    "token_ids_differ": sum(a.token_ids != b.token_ids for a, b in pairs),
                }
            )
        # the whole run's tokens/s, over the full-batch steps, after each request's first token:
        # per mode the median over repetitions, and unconstrained decoding's for the ratios
        free = per_mode.get("unconstrained")
        bases = {k: statistics.median(map(f, free)) for k, f in RATES.items()} if free else {}
        for mode, runs in per_mode.items():
            summaries = [r.summary() for r in runs]
            tps, full, decode = (round(statistics.median(map(f, runs)), 2) for f in RATES.values())
            latencies = [r.metrics["elapsed_s"] for one in runs for r in one.results]
            ttfts = [r.metrics["ttft_s"] for one in runs for r in one.results if "ttft_s" in r.metrics]
            steps = [len(r.steps) for one in runs for r in one.results]
            table.append(
                {
                    "batch": batch,
                    "mode": mode,
                    "requests": count,
                    "tokens_per_s": tps,
                    "vs_unconstrained": _ratio(tps, bases.get("whole")),
                    # the steps with every slot of the batch busy: the masks' cost at equal
                    # occupancy (the whole run's figure also carries the outputs' lengths)
                    "full_batch_tokens_per_s": full,
                    "full_batch_vs_unconstrained": _ratio(full, bases.get("full")),
                    "full_batch_steps": statistics.median(s["full_batch_steps"] for s in summaries),
                    "latency_s_p50": round(_percentile(latencies, 50), 3),
                    "latency_s_p95": round(_percentile(latencies, 95), 3),
                    # time to first token (the prompt's prefill: the same work in every mode) and
                    # the output rate after it, per request (serving benchmarks' TTFT and output
                    # tokens/s per user)
                    "ttft_s_p50": round(_percentile(ttfts, 50), 3),
                    "ttft_s_p95": round(_percentile(ttfts, 95), 3),
                    "decode_tokens_per_s": decode,
                    "decode_vs_unconstrained": _ratio(decode, bases.get("decode")),
                    "tokens_per_request_mean": round(sum(steps) / len(steps), 1),
                    "forward_passes_per_token": round(
                        statistics.median(s["forward_passes"] / max(s["tokens"], 1) for s in summaries), 3
                    ),
                    # forward passes per torch thread count, all repetitions (models/threads)
                    "passes_by_threads": _sum_counts(s["passes_by_threads"] for s in summaries),
                    "mask_share_of_step": statistics.median(s["mask_share_of_step"] for s in summaries),
                    "mask_overlapped": statistics.median(s["mask_overlapped"] for s in summaries),
                    "drafted_tokens": statistics.median(s["drafted_tokens"] for s in summaries),
                    "accepted_tokens": statistics.median(s["accepted_tokens"] for s in summaries),
                    "acceptance": statistics.median(s["acceptance"] for s in summaries),
                    "stop": sum(r.finish_reason == "stop" for one in runs for r in one.results),
                    # edit cases: outputs of the first repetition that apply to their files
                    "edits_apply": sum(
                        _applies(case, r.text)
                        for case, r in zip(
                            _cycle(usable_cases(cases, mode), count), runs[0].results, strict=True
                        )
                        if case.edit is not None
                    ),
                }
            )
    return {
        "fast_forward_differences": differences,
        "speculation_differences": speculation,
        "model": lm.name,
        "device": lm.device,
        "threads": lm.threads,
        "dtype": lm.dtype,
        "kinds": list(kinds),
        "cases": [c.name for c in cases],
        "max_tokens": args.max_tokens,
        "reps": args.reps,
        "overlap": not args.no_overlap,
        "table": table,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: the policy's)")
    parser.add_argument("--dtype", default="auto", help="auto | float32 | bfloat16 | float16 (models/loader)")
    parser.add_argument("--batch-sizes", default="1,4,16,32")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--kinds", default="po,mixed,edit")
    parser.add_argument("--edit-limit", type=int, default=34)
    parser.add_argument(
        "--requests", type=int, default=0, help="requests per batch size (0: max(batch, cases))"
    )
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--no-overlap", action="store_true", help="masks computed after the forward pass")
    args = parser.parse_args()
    summary = run(args)
    print(json.dumps(summary, ensure_ascii=False, indent=2) if args.json else summary)


if __name__ == "__main__":
    main()
