"""Compile benchmark: our JSON Schema compiler on the JSONSchemaBench splits, beside the peers.

    python -m bench.compile --json                  # all splits, ours on every schema
    python -m bench.compile --splits Github_easy --peers-every 5 --json

For every schema: ``compile_ms`` is ``compile_schema`` (the compile report included) and
``ready_ms`` adds the recognizer's ``compile_grammar`` (what a request needs before its first
mask); refusals by keyword and errors/timeouts (10 s) are counted, timeouts are never folded into
the percentiles. Every schema is compiled *cold*: before each one (outside the timed region) the
grammar and regex caches are cleared and a garbage collection is run, so one schema is not billed
for the caches or the garbage of the ones before it (the built-in tables — formats, the shared
JSON rules, the tokenizer — stay warm, as after the first call in any process).

Peers — llguidance and XGrammar, benchmark-only dependencies, through the adapters in
``gramwright.serving.engines`` — compile the same schemas (compact JSON, as ours) and fill their
first token mask with the embedded SmolLM2 tokenizer, on a
deterministic sample (``--peers-every N``: the schemas whose name hashes to 0 mod N). On that
sample ours is timed the same way: ``compile_schema`` + ``compile_grammar`` + the first token
mask (our token engine, no disk cache, and without the masks it shares between grammars unless
``--shared-masks``). Ratios (ours / peer) compare p50 and p99 over the sampled
schemas that both compiled, pooled over the splits. Absolute times on the shared 2-core machines
drift; ratios hold (see ../shared/docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from typing import Any

from bench.masks import DATA, SPLITS
from gramwright.schema.conformance import time_limit
from gramwright.serving.engines import MaskEngine, mask_engine

TIMEOUT_S = 10.0


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}
    v = sorted(values)

    def at(p: float) -> float:
        return round(v[min(len(v) - 1, max(0, round(p * (len(v) - 1))))], 3)

    return {"n": len(v), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(v[-1], 3)}


def sampled(name: str, every: int) -> bool:
    return every <= 1 or int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % every == 0


# -- ours --------------------------------------------------------------------------------------
def cold() -> None:
    """Forget what earlier schemas left behind (outside every timed region)."""
    import gc

    from gramwright.recognizer.recognizer import clear_compile_cache
    from gramwright.schema.compiler import strings

    clear_compile_cache()
    strings._translate.cache_clear()  # the regex translation memo
    gc.collect()


def run_ours(schema: Any) -> dict[str, Any]:
    from gramwright.recognizer import compile_grammar
    from gramwright.schema import CompileOptions, SchemaCompileError, compile_schema

    t0 = time.perf_counter()
    try:
        with time_limit(TIMEOUT_S):
            compiled = compile_schema(schema, options=CompileOptions(timeout_s=TIMEOUT_S))
            compile_ms = (time.perf_counter() - t0) * 1000
            recognizer = compile_grammar(compiled.grammar)
    except SchemaCompileError as exc:
        return {"status": "refused", "keyword": exc.keyword or "(schema)", "reason": exc.reason}
    except TimeoutError:
        return {"status": "timeout", "ms": (time.perf_counter() - t0) * 1000}
    except Exception as exc:  # noqa: BLE001 - a benchmark counts failures, it does not stop
        return {"status": "error", "reason": f"{type(exc).__name__}: {exc}"[:200]}
    ready_ms = (time.perf_counter() - t0) * 1000
    inexact = len(compiled.report.inexact())
    return {
        "status": "compiled",
        "compile_ms": compile_ms,
        "ready_ms": ready_ms,
        "inexact": inexact,
        "recognizer": recognizer,
    }


def ours_first_mask(vocab: Any, recognizer: Any, ready_ms: float) -> dict[str, Any]:
    """Our first token mask for an already compiled schema (``ms`` includes ``ready_ms``)."""
    from gramwright.engine.matcher import GrammarEngine

    t0 = time.perf_counter()
    try:
        with time_limit(max(TIMEOUT_S - ready_ms / 1000, 0.001)):
            engine = GrammarEngine(recognizer, vocab)
            engine.bitmask(engine.matcher().config)
    except TimeoutError:
        return {"status": "timeout"}
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "reason": f"{type(exc).__name__}: {exc}"[:200]}
    return {"status": "compiled", "ms": ready_ms + (time.perf_counter() - t0) * 1000}


# -- peers ---------------------------------------------------------------------------------------
class Peers:
    """llguidance and XGrammar through :mod:`gramwright.serving.engines` on one shared tokenizer;
    missing pieces are reported, not fatal."""

    def __init__(self) -> None:
        self.engines: dict[str, MaskEngine] = {}
        self.notes: list[str] = []
        self.vocab: Any = None
        try:
            from gramwright.engine.vocab import TokenVocabulary
            from gramwright.models import load_tokenizer

            tokenizer = load_tokenizer()
            self.vocab = TokenVocabulary.from_tokenizer(tokenizer)
            # per-tokenizer preparation, as the peers' tokenizer objects do
            self.vocab.tables.trie()
            self.vocab.tables.tail_sets()
        except Exception as exc:  # noqa: BLE001
            self.notes.append(f"peers skipped: no tokenizer ({type(exc).__name__}: {exc})")
            return
        for name in ("llguidance", "xgrammar"):
            try:
                # XGrammar on one compiler thread and without its cache: every schema cold, like ours
                self.engines[name] = mask_engine(name, tokenizer, self.vocab, max_threads=1)
            except Exception as exc:  # noqa: BLE001
                self.notes.append(f"{name} skipped: {type(exc).__name__}: {exc}")

    def forget_shared_masks(self) -> None:
        """Our token engine shares masks between grammars on one tokenizer (by content
        signature); a cold first mask starts without them, as the peers' do."""
        self.vocab.tables.forget_shared()

    def first_mask(self, name: str, schema: Any) -> dict[str, Any]:
        """Peer ``name`` compiles ``schema`` and fills its first token mask, timed as a whole."""
        engine = self.engines[name]
        t0 = time.perf_counter()
        try:
            with time_limit(TIMEOUT_S):
                engine.mask(engine.matcher(engine.compile(schema)))
        except TimeoutError:
            return {"status": "timeout"}
        except Exception as exc:  # noqa: BLE001 - a refusal, whatever the engine raises
            return {"status": "refused", "reason": f"{type(exc).__name__}: {exc}"[:200]}
        return {"status": "compiled", "ms": (time.perf_counter() - t0) * 1000}


# -- driver ------------------------------------------------------------------------------------
def compare(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """Per engine on the peer sample: statuses, and ours vs that peer where both compiled."""
    out: dict[str, Any] = {"sampled": len(rows), "ours": {"status": dict(Counter(r["ours"] for r in rows))}}
    ours_ms = [r["ours_ms"] for r in rows if r["ours"] == "compiled"]
    out["ours"]["compile_first_mask_ms"] = percentiles(ours_ms)
    for name in names:
        both = [r for r in rows if r["ours"] == "compiled" and r[name]["status"] == "compiled"]
        peer = percentiles([r[name]["ms"] for r in both])
        mine = percentiles([r["ours_ms"] for r in both])
        out[name] = {
            "status": dict(Counter(r[name]["status"] for r in rows)),
            "compile_first_mask_ms": percentiles(
                [r[name]["ms"] for r in rows if r[name]["status"] == "compiled"]
            ),
            "both_compiled": len(both),
            "ours_on_both_ms": mine,
            "peer_on_both_ms": peer,
            "ratio_ours_over_peer": {
                q: round(mine[q] / max(peer[q], 1e-9), 3) if both else None for q in ("p50", "p90", "p99")
            },
        }
    return out


def bench_split(
    split: str,
    peers: Peers | None,
    peers_every: int,
    limit: int,
    sample: list[dict[str, Any]],
    shared_masks: bool = False,
) -> dict[str, Any]:
    files = sorted((DATA / split).glob("*.json"))
    if limit:
        files = files[:limit]
    ours_compile: list[tuple[float, str]] = []
    ours_ready: list[float] = []
    statuses: Counter[str] = Counter()
    refused_by_keyword: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    timeouts: list[str] = []
    inexact_schemas = 0
    rows: list[dict[str, Any]] = []
    for f in files:
        schema = json.loads(f.read_text(encoding="utf-8"))["schema"]
        cold()
        r = run_ours(schema)
        recognizer = r.pop("recognizer", None)
        statuses[r["status"]] += 1
        if r["status"] == "compiled":
            ours_compile.append((r["compile_ms"], f.name))
            ours_ready.append(r["ready_ms"])
            inexact_schemas += 1 if r["inexact"] else 0
        elif r["status"] == "refused":
            refused_by_keyword[r["keyword"]] += 1
        elif r["status"] == "error":
            errors[r["reason"][:80]] += 1
        elif r["status"] == "timeout":
            timeouts.append(f.name)
        if peers is None or not peers.engines or not sampled(f"{split}/{f.stem}", peers_every):
            continue
        row: dict[str, Any] = {"split": split, "schema": f.name, "ours": r["status"]}
        if r["status"] == "compiled":
            if not shared_masks:
                peers.forget_shared_masks()
            m = ours_first_mask(peers.vocab, recognizer, r["ready_ms"])
            row["ours"], row["ours_ms"] = m["status"], m.get("ms")
        del recognizer
        for name in peers.engines:
            cold()
            row[name] = peers.first_mask(name, schema)
        rows.append(row)
    sample.extend(rows)
    slowest = sorted(ours_compile, reverse=True)[:5]
    out: dict[str, Any] = {
        "schemas": len(files),
        "compiled": statuses["compiled"],
        "compiled_share": round(statuses["compiled"] / len(files), 4) if files else 0.0,
        "refused": statuses["refused"],
        "errors": statuses["error"],
        "timeouts": statuses["timeout"],
        "timed_out": timeouts,
        "with_inexact_keywords": inexact_schemas,
        "compile_ms": percentiles([ms for ms, _ in ours_compile]),
        "ready_ms": percentiles(ours_ready),
        "slowest_compile": {name: round(ms, 1) for ms, name in slowest},
        "refused_by_keyword": dict(refused_by_keyword.most_common()),
        "errors_by_reason": dict(errors.most_common(10)),
    }
    if rows and peers is not None:
        out["peer_sample"] = compare(rows, list(peers.engines))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--splits", default=",".join(SPLITS), help="comma-separated split names")
    ap.add_argument("--peers-every", type=int, default=10, help="run peers on 1 in N schemas (0: no peers)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many schemas per split")
    ap.add_argument(
        "--shared-masks",
        action="store_true",
        help="our first masks may reuse masks shared by earlier schemas (default: every one cold)",
    )
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"no data at {DATA}", file=sys.stderr)
        return 2
    from gramwright.schema import compile_schema

    compile_schema({"type": "string", "pattern": "^a+$", "format": "date"})  # imports and tables, once
    peers = Peers() if args.peers_every > 0 else None
    for note in peers.notes if peers else []:
        print(note, file=sys.stderr)
    result: dict[str, Any] = {
        "splits": {},
        "timeout_s": TIMEOUT_S,
        "peers_every": args.peers_every,
        "shared_masks": args.shared_masks,
    }
    sample: list[dict[str, Any]] = []
    for split in [s for s in args.splits.split(",") if s]:
        print(f"{split} …", file=sys.stderr)
        result["splits"][split] = bench_split(
            split, peers, args.peers_every, args.limit, sample, args.shared_masks
        )
    if sample and peers is not None:
        result["peer_sample"] = compare(sample, list(peers.engines))
        result["peer_sample"]["schemas"] = [f"{r['split']}/{r['schema']}" for r in sample]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for split, r in result["splits"].items():
            c, rd = r["compile_ms"], r["ready_ms"]
            print(
                f"{split:16} compiled {r['compiled']}/{r['schemas']}  compile p50 {c['p50']} p90 {c['p90']}"
                f" p99 {c['p99']} max {c['max']} ms  ready p50 {rd['p50']} p99 {rd['p99']} max {rd['max']} ms"
                f"  timeouts {r['timeouts']}  errors {r['errors']}"
            )
        for name, pr in result.get("peer_sample", {}).items():
            if isinstance(pr, dict) and "ratio_ours_over_peer" in pr:
                print(f"ours / {name}: {pr['ratio_ours_over_peer']} on {pr['both_compiled']} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
