"""``bench/masks.py --fresh-process``: each schema replayed in its own new process, per engine.

A user's run is not a long benchmark process: its first masks are cold. Here every (schema,
engine) pair is a new interpreter that loads the tokenizer, prepares as the long replay does
(ours: the vocabulary tables; the peers: their tokenizer objects — untimed), compiles the schema
(timed apart) and replays the same token sequences, timing each mask. Ours runs twice: with the
tokenizer's mask store present (built beforehand by ``gramwright warm``'s schemas, never by the
replay's schemas, and not written by the replay) and absent. The texts replayed are chosen in the
parent (our grammar's accepted serialisation) and handed to every child.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.masks import LLGuidance, Ours, XGrammar, accepted_text, pick_cases, summary

ROOT = Path(__file__).resolve().parents[1]

MODES = ("ours_store", "ours_no_store", "llguidance", "xgrammar")


def child(mode: str, case_file: str) -> None:
    """One fresh process: replay the case's texts with one engine; print per-token µs as JSON."""
    case = json.loads(Path(case_file).read_text())
    from gramwright.engine.collector import freeze_after_cold_masks
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    freeze_after_cold_masks()  # as `gramwright generate` does
    hf_tok = load_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(hf_tok)
    engine: Any
    if mode.startswith("ours"):
        engine = Ours(vocab)
    elif mode == "llguidance":
        engine = LLGuidance(hf_tok)
    else:
        engine = XGrammar(hf_tok, vocab.size)
    t0 = time.perf_counter()
    if mode == "ours_store":
        from gramwright.engine.cache import load_engine
        from gramwright.schema import compile_schema

        compiled = load_engine(compile_schema(case["schema"]).grammar, vocab)
    else:
        compiled = engine.compile(case["schema"])
    compile_ms = (time.perf_counter() - t0) * 1000
    us: list[float] = []
    rejected = 0
    for text in case["texts"]:
        m = engine.matcher(compiled)
        for tid in hf_tok.encode(text, add_special_tokens=False):
            t1 = time.perf_counter()
            engine.mask(m)
            us.append((time.perf_counter() - t1) * 1e6)
            if not engine.consume(m, tid):
                rejected += 1
                break
    out = {"us": us, "compile_ms": compile_ms, "rejected": rejected}
    if mode == "ours_store":
        from gramwright.engine.cache import store_of

        store = store_of(vocab)
        out["store_hits"], out["store_misses"] = store.hits, store.misses
    print(json.dumps(out))


def _warm(cache: Path) -> float:
    """Build the store as `gramwright warm` does (its schemas only), in its own process."""
    t0 = time.perf_counter()
    env = {**os.environ, "GRAMWRIGHT_CACHE": str(cache)}
    subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", "warm"], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - t0


def run(splits: list[str], per_split: int, per_schema: int, modes: list[str]) -> dict[str, Any]:
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer
    from gramwright.schema import compile_schema

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    work = Path(tempfile.mkdtemp(prefix="gw-fresh-"))
    store, empty = work / "store", work / "empty"
    warm_s = _warm(store) if "ours_store" in modes else 0.0
    times: dict[str, list[float]] = {m: [] for m in modes}
    common: dict[str, list[float]] = {m: [] for m in modes}
    failures: dict[str, int] = {m: 0 for m in modes}
    compile_ms: dict[str, list[float]] = {m: [] for m in modes}
    hits = misses = 0
    cases = pick_cases(splits, per_split, per_schema)
    for i, (name, schema, instances) in enumerate(cases):
        try:
            engine = GrammarEngine(compile_schema(schema).grammar, vocab)
        except Exception:  # noqa: BLE001 - a schema we refuse is not replayed
            continue
        texts = [t for t in (accepted_text(engine, inst) for inst in instances) if t is not None]
        if not texts:
            continue
        print(f"[{i + 1}/{len(cases)}] {name}", file=sys.stderr)
        case_file = work / "case.json"
        case_file.write_text(json.dumps({"schema": schema, "texts": texts}))
        got: dict[str, dict[str, Any]] = {}
        for mode in modes:  # alternated per schema: load drifts hit every engine alike
            env = {**os.environ, "GRAMWRIGHT_CACHE": str(store if mode == "ours_store" else empty)}
            proc = subprocess.run(
                [sys.executable, "-m", "bench.masks_fresh", "--child", mode, str(case_file)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                failures[mode] += 1
                continue
            got[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
        for mode, res in got.items():
            times[mode] += res["us"]
            compile_ms[mode].append(res["compile_ms"])
            failures[mode] += res["rejected"]
            if len(got) == len(modes):
                common[mode] += res["us"]
            hits += res.get("store_hits", 0)
            misses += res.get("store_misses", 0)
    result: dict[str, Any] = {
        "fresh_process": True,
        "schemas": len(cases),
        "store_warm_s": round(warm_s, 1),
        "store_lookups": {"hits": hits, "misses": misses},
        "modes": {m: {**summary(times[m]), "failures": failures[m]} for m in modes},
        "compile_ms_p50": {m: round(sorted(v)[len(v) // 2], 1) if v else None for m, v in compile_ms.items()},
        "common": {m: summary(common[m]) for m in modes},
    }
    shutil.rmtree(work, ignore_errors=True)  # the store and the case files were this run's
    same = result["common"]
    for ours in ("ours_store", "ours_no_store"):
        for peer in ("llguidance", "xgrammar"):
            if ours in same and peer in same and same[peer].get("n"):
                result[f"{ours}_ratio_mean_vs_{peer}"] = round(
                    same[ours]["mean_us"] / same[peer]["mean_us"], 2
                )
                result[f"{ours}_ratio_p99_vs_{peer}"] = round(same[ours]["p99_us"] / same[peer]["p99_us"], 2)
    return result


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--child":
    child(sys.argv[2], sys.argv[3])
