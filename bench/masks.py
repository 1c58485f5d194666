"""Mask latency: replay valid instances token by token, ours beside llguidance and XGrammar.

For a deterministic sample of schemas from the JSONSchemaBench splits in ../shared/data, every
valid test instance is serialised in a form our grammar accepts (compact, schema member order),
tokenized with the real SmolLM2 tokenizer, and replayed: before each token, each engine produces
the mask for the current state as an int32 bitset (the peers' layout); only that production is
timed (applying it to logits is a separate, engine-independent cost). Every engine gets a fresh
compiled grammar per schema, so first-time (cold) work is included, as in MaskBench. What
persists between schemas is per-tokenizer preparation (ours: the vocabulary trie and byte
tables, built before timing, as the peers build theirs in their tokenizer objects) and, for
ours, masks named by content signature, shared by every grammar in the process — a schema's
string bodies reuse walks made for earlier schemas, as in a server process. Ratios compare the
tokens of the schemas that every engine compiled ("common"); each engine's own totals are
reported as well. Like ``gramwright generate``, the replay opts in to pausing the garbage collector
during cold masks and freezing what survives (``engine/collector.py``); ``--no-gc-freeze`` measures
a library's default instead.

    python -m bench.masks --json [--per-split 8] [--splits Github_easy,Kubernetes]
    python -m bench.masks --json --fresh-process --per-split 2   # a new process per schema
    python -m bench.masks --json --per-split 2 --per-schema 2 --peers '' --digest   # same masks?

``--digest`` adds the sha256 of our masks (the int32 bitmask rows, in replay order; the first 16
hex digits): a change to the engine must leave it as it was (docs/dev/benchmarks.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from gramwright.serving.engines import EngineMissing, MaskEngine, OursMasks, mask_engine

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsonschemabench"
SPLITS = [
    "Github_trivial",
    "Github_easy",
    "Github_medium",
    "Glaiveai2K",
    "JsonSchemaStore",
    "Kubernetes",
    "Snowplow",
]


def summary(us: list[float]) -> dict[str, float]:
    if not us:
        return {"n": 0}
    arr = np.asarray(us)
    return {
        "n": len(us),
        "mean_us": round(float(arr.mean()), 1),
        "p50_us": round(float(np.percentile(arr, 50)), 1),
        "p99_us": round(float(np.percentile(arr, 99)), 1),
        "max_us": round(float(arr.max()), 1),
        "over_1ms": round(float((arr > 1000).mean()), 4),
    }


def pick_cases(splits: list[str], per_split: int, per_schema: int) -> list[tuple[str, Any, list[Any]]]:
    cases = []
    for split in splits:
        folder = DATA / split
        if not folder.is_dir():
            continue
        taken = 0
        for path in sorted(folder.glob("*.json")):
            doc = json.loads(path.read_text())
            valid = [t["data"] for t in doc.get("tests", []) if t.get("valid")][:per_schema]
            if not valid:
                continue
            cases.append((f"{split}/{path.stem}", doc["schema"], valid))
            taken += 1
            if taken >= per_split:
                break
    return cases


def accepted_text(engine: Any, instance: Any, member_orders: Any = None) -> str | None:
    """The serialisation of ``instance`` that our grammar accepts (schema member order), if any.
    ``member_orders`` (the compile result's) lets the first try put members in schema order."""
    from gramwright.recognizer import Recognizer
    from gramwright.schema.canonical import KeyOrder, is_text_of, recorded_text

    key_order = KeyOrder(member_orders) if member_orders is not None else None
    try:
        found = recorded_text(Recognizer(engine.compiled), instance, key_order=key_order)
    except Exception:  # noqa: BLE001 - an instance with no JSON text or too many orders is skipped
        return None
    if found is None:
        return None
    text = found.decode()
    # guard the recording itself: the text must be the instance and accepted from the start
    if not is_text_of(Recognizer(engine.compiled), found, instance):
        raise AssertionError(f"recorded text is not an accepted serialisation: {text[:80]!r}")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--splits", default=",".join(SPLITS))
    parser.add_argument("--per-split", type=int, default=8)
    parser.add_argument("--per-schema", type=int, default=3)
    parser.add_argument("--peers", default="llguidance,xgrammar")
    parser.add_argument(
        "--isolated", action="store_true", help="ours shares no masks between schemas (every engine cold)"
    )
    parser.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="leave the garbage collector alone (a library's default); by default the replay opts in "
        "to pausing it during cold masks and freezing afterwards, as `gramwright generate` does",
    )
    parser.add_argument(
        "--digest", action="store_true", help="add the sha256 of our masks in replay order (same masks?)"
    )
    parser.add_argument(
        "--fresh-process",
        action="store_true",
        help="replay each schema in its own new process per engine, ours with the mask store "
        "present and absent (bench/masks_fresh.py)",
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f"no benchmark data at {DATA}")
    if args.fresh_process:
        from bench.masks_fresh import MODES, run

        peers = set(filter(None, args.peers.split(",")))
        modes = [m for m in MODES if m.startswith("ours") or m in peers]
        fresh = run(args.splits.split(","), args.per_split, args.per_schema, modes)
        print(json.dumps(fresh, indent=2) if args.json else fresh)
        return
    if not args.no_gc_freeze:
        from gramwright.engine.collector import freeze_after_cold_masks

        freeze_after_cold_masks()

    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    hf_tok = load_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(hf_tok)
    engines: list[MaskEngine] = [OursMasks(vocab, isolated=args.isolated)]
    for peer in filter(None, args.peers.split(",")):
        try:
            engines.append(mask_engine(peer, hf_tok, vocab))
        except EngineMissing as exc:
            print(f"skipping {peer}: {exc.one_line()}", file=sys.stderr)

    times: dict[str, list[float]] = {e.name: [] for e in engines}
    # the same tokens for every engine: schemas that every engine compiled (ratios use these)
    common: dict[str, list[float]] = {e.name: [] for e in engines}
    compile_ms: dict[str, list[float]] = {e.name: [] for e in engines}
    failures: dict[str, dict[str, int]] = {e.name: {"compile": 0, "rejected_token": 0} for e in engines}
    tokens = 0
    replayed = 0
    digest = hashlib.sha256()
    digested = 0
    cases = pick_cases(args.splits.split(","), args.per_split, args.per_schema)
    for i, (name, schema, instances) in enumerate(cases):
        print(f"[{i + 1}/{len(cases)}] {name}", file=sys.stderr)
        compiled: dict[str, Any] = {}
        for e in engines:
            t0 = time.perf_counter()
            try:
                compiled[e.name] = e.compile(schema)
            except Exception:  # noqa: BLE001 - a refusal counts, whatever the engine raises
                failures[e.name]["compile"] += 1
            compile_ms[e.name].append((time.perf_counter() - t0) * 1000)
        if "ours" not in compiled:
            continue
        everyone = len(compiled) == len(engines)
        for instance in instances:
            text = accepted_text(compiled["ours"], instance)
            if text is None:
                continue
            ids = hf_tok.encode(text, add_special_tokens=False)
            replayed += 1
            tokens += len(ids)
            for e in engines:
                if e.name not in compiled:
                    continue
                m = e.matcher(compiled[e.name])
                for tid in ids:
                    t0 = time.perf_counter()
                    e.mask(m)
                    us = (time.perf_counter() - t0) * 1e6
                    times[e.name].append(us)
                    if args.digest and e.name == "ours":  # outside the timed region
                        digest.update(np.asarray(e.bitmask).tobytes())
                        digested += 1
                    if everyone:
                        common[e.name].append(us)
                    if not e.consume(m, tid):
                        failures[e.name]["rejected_token"] += 1
                        break
    result: dict[str, Any] = {
        "schemas": len(cases),
        "instances": replayed,
        "tokens": tokens,
        "tokenizer": "SmolLM2-135M-Instruct (49,152 tokens)",
        "ours_shares_masks_between_schemas": not args.isolated,
        "ours_gc_freeze_after_cold_masks": not args.no_gc_freeze,
    }
    for e in engines:
        result[e.name] = {
            **summary(times[e.name]),
            "compile_ms_p50": round(statistics.median(compile_ms[e.name]), 2),
            "failures": failures[e.name],
        }
    result["common"] = {e.name: summary(common[e.name]) for e in engines}
    if args.digest:
        result["digest"] = digest.hexdigest()[:16]
        result["digested_masks"] = digested
    same = result["common"]
    for peer in ("llguidance", "xgrammar"):
        if peer in same and same[peer].get("n"):
            result[f"ratio_mean_vs_{peer}"] = round(same["ours"]["mean_us"] / same[peer]["mean_us"], 2)
            result[f"ratio_p99_vs_{peer}"] = round(same["ours"]["p99_us"] / same[peer]["p99_us"], 2)
    print(json.dumps(result, indent=2) if args.json else result)


if __name__ == "__main__":
    main()
