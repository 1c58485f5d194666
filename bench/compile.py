"""Compile benchmark: our JSON Schema compiler on the JSONSchemaBench splits, beside the peers.

    python bench/compile.py --json                  # all splits, ours on every schema
    python bench/compile.py --splits Github_easy --peers-every 5 --json

For every schema: ``compile_schema`` time (the compile report included) and "ready" time (plus
the recognizer's ``compile_grammar``), refusals by keyword and errors/timeouts (10 s). Peers —
llguidance and XGrammar, benchmark-only dependencies — compile the same schemas and fill their
first token mask with the embedded SmolLM2 tokenizer; they run on a deterministic sample
(``--peers-every``), and ratios compare medians on exactly that sample. Absolute times on the
shared 2-core machines drift; ratios hold (see ../shared/docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsonschemabench"
SPLITS = (
    "Github_trivial",
    "Github_easy",
    "Github_medium",
    "Glaiveai2K",
    "JsonSchemaStore",
    "Kubernetes",
    "Snowplow",
)
TIMEOUT_S = 10.0


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}
    v = sorted(values)

    def at(p: float) -> float:
        return round(v[min(len(v) - 1, max(0, round(p * (len(v) - 1))))], 3)

    return {"n": len(v), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(v[-1], 3)}


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"over {seconds:g} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def sampled(name: str, every: int) -> bool:
    return every <= 1 or int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % every == 0


# -- ours --------------------------------------------------------------------------------------
def run_ours(schema: Any) -> dict[str, Any]:
    from toolchain.recognizer import compile_grammar
    from toolchain.schema import CompileOptions, SchemaCompileError, compile_schema

    t0 = time.perf_counter()
    try:
        with time_limit(TIMEOUT_S):
            compiled = compile_schema(schema, options=CompileOptions(timeout_s=TIMEOUT_S))
            compile_ms = (time.perf_counter() - t0) * 1000
            compile_grammar(compiled.grammar)
    except SchemaCompileError as exc:
        return {"status": "refused", "keyword": exc.keyword or "(schema)", "reason": exc.reason}
    except TimeoutError:
        return {"status": "timeout", "ms": (time.perf_counter() - t0) * 1000}
    except Exception as exc:  # noqa: BLE001 - a benchmark counts failures, it does not stop
        return {"status": "error", "reason": f"{type(exc).__name__}: {exc}"[:200]}
    ready_ms = (time.perf_counter() - t0) * 1000
    inexact = len(compiled.report.inexact())
    return {"status": "compiled", "compile_ms": compile_ms, "ready_ms": ready_ms, "inexact": inexact}


# -- peers ---------------------------------------------------------------------------------------
class Peers:
    """llguidance and XGrammar with one shared tokenizer; missing pieces are reported, not fatal."""

    def __init__(self) -> None:
        self.available: dict[str, Callable[[Any], dict[str, Any]]] = {}
        self.notes: list[str] = []
        try:
            from toolchain.models import load_tokenizer

            tokenizer = load_tokenizer()
        except Exception as exc:  # noqa: BLE001
            self.notes.append(f"peers skipped: no tokenizer ({type(exc).__name__}: {exc})")
            return
        self.vocab = len(tokenizer)
        try:
            import llguidance
            import llguidance.hf
            import llguidance.numpy

            self.ll_tok = llguidance.hf.from_tokenizer(tokenizer)
            self.ll = llguidance
            self.available["llguidance"] = self.llguidance
        except Exception as exc:  # noqa: BLE001
            self.notes.append(f"llguidance skipped: {type(exc).__name__}: {exc}")
        try:
            import xgrammar

            self.xgr = xgrammar
            info = xgrammar.TokenizerInfo.from_huggingface(tokenizer, vocab_size=self.vocab)
            # No cache: every schema is compiled cold, like ours.
            self.xgr_compiler = xgrammar.GrammarCompiler(info, max_threads=1, cache_enabled=False)
            self.available["xgrammar"] = self.xgrammar
        except Exception as exc:  # noqa: BLE001
            self.notes.append(f"xgrammar skipped: {type(exc).__name__}: {exc}")

    def llguidance(self, schema: Any) -> dict[str, Any]:
        import numpy as np

        t0 = time.perf_counter()
        try:
            with time_limit(TIMEOUT_S):
                grammar = self.ll.LLMatcher.grammar_from_json_schema(json.dumps(schema))
                matcher = self.ll.LLMatcher(self.ll_tok, grammar, log_level=0)
                if matcher.is_error():
                    return {"status": "refused", "reason": matcher.get_error()[:200]}
                mask = np.full(((self.vocab + 31) // 32,), -1, dtype=np.int32).reshape(1, -1)
                self.ll.numpy.fill_next_token_bitmask(matcher, mask)
        except TimeoutError:
            return {"status": "timeout"}
        except Exception as exc:  # noqa: BLE001
            return {"status": "refused", "reason": f"{type(exc).__name__}: {exc}"[:200]}
        return {"status": "compiled", "ms": (time.perf_counter() - t0) * 1000}

    def xgrammar(self, schema: Any) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            with time_limit(TIMEOUT_S):
                compiled = self.xgr_compiler.compile_json_schema(json.dumps(schema), any_whitespace=False)
                matcher = self.xgr.GrammarMatcher(compiled)
                bitmask = self.xgr.allocate_token_bitmask(1, self.vocab)
                matcher.fill_next_token_bitmask(bitmask)
        except TimeoutError:
            return {"status": "timeout"}
        except Exception as exc:  # noqa: BLE001
            return {"status": "refused", "reason": f"{type(exc).__name__}: {exc}"[:200]}
        return {"status": "compiled", "ms": (time.perf_counter() - t0) * 1000}


# -- driver ------------------------------------------------------------------------------------
def bench_split(split: str, peers: Peers | None, peers_every: int, limit: int) -> dict[str, Any]:
    files = sorted((DATA / split).glob("*.json"))
    if limit:
        files = files[:limit]
    ours_compile: list[float] = []
    ours_ready: list[float] = []
    statuses: Counter[str] = Counter()
    refused_by_keyword: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    inexact_schemas = 0
    peer_ms: dict[str, list[float]] = {}
    peer_status: dict[str, Counter[str]] = {}
    ours_on_sample: list[float] = []
    for f in files:
        schema = json.loads(f.read_text(encoding="utf-8"))["schema"]
        r = run_ours(schema)
        statuses[r["status"]] += 1
        if r["status"] == "compiled":
            ours_compile.append(r["compile_ms"])
            ours_ready.append(r["ready_ms"])
            inexact_schemas += 1 if r["inexact"] else 0
        elif r["status"] == "refused":
            refused_by_keyword[r["keyword"]] += 1
        elif r["status"] == "error":
            errors[r["reason"][:80]] += 1
        if peers is None or not peers.available or not sampled(f"{split}/{f.stem}", peers_every):
            continue
        if r["status"] == "compiled":
            ours_on_sample.append(r["compile_ms"])
        for name, fn in peers.available.items():
            pr = fn(schema)
            peer_status.setdefault(name, Counter())[pr["status"]] += 1
            if pr["status"] == "compiled" and r["status"] == "compiled":
                peer_ms.setdefault(name, []).append(pr["ms"])
    out: dict[str, Any] = {
        "schemas": len(files),
        "compiled": statuses["compiled"],
        "compiled_share": round(statuses["compiled"] / len(files), 4) if files else 0.0,
        "refused": statuses["refused"],
        "errors": statuses["error"],
        "timeouts": statuses["timeout"],
        "with_inexact_keywords": inexact_schemas,
        "compile_ms": percentiles(ours_compile),
        "ready_ms": percentiles(ours_ready),
        "refused_by_keyword": dict(refused_by_keyword.most_common()),
        "errors_by_reason": dict(errors.most_common(10)),
    }
    if peer_status:
        out["peers"] = {
            name: {
                "status": dict(peer_status[name]),
                "compile_first_mask_ms": percentiles(peer_ms.get(name, [])),
            }
            for name in peer_status
        }
        out["ours_on_peer_sample_ms"] = percentiles(ours_on_sample)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--splits", default=",".join(SPLITS), help="comma-separated split names")
    ap.add_argument("--peers-every", type=int, default=10, help="run peers on 1 in N schemas (0: no peers)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many schemas per split")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"no data at {DATA}", file=sys.stderr)
        return 2
    from toolchain.schema import compile_schema

    compile_schema({"type": "string", "pattern": "^a+$", "format": "date"})  # imports and tables, once
    peers = Peers() if args.peers_every > 0 else None
    for note in peers.notes if peers else []:
        print(note, file=sys.stderr)
    result: dict[str, Any] = {"splits": {}, "timeout_s": TIMEOUT_S}
    all_compile: list[float] = []
    for split in [s for s in args.splits.split(",") if s]:
        print(f"{split} …", file=sys.stderr)
        result["splits"][split] = r = bench_split(split, peers, args.peers_every, args.limit)
        all_compile.extend([r["compile_ms"]["p50"]])
    times: list[float] = []
    peer_times: dict[str, list[float]] = {}
    ours_sample: list[float] = []
    for r in result["splits"].values():
        times.append(r["compile_ms"]["p50"])
        for name, pr in r.get("peers", {}).items():
            peer_times.setdefault(name, []).append(pr["compile_first_mask_ms"]["p50"])
        if "ours_on_peer_sample_ms" in r:
            ours_sample.append(r["ours_on_peer_sample_ms"]["p50"])
    if peer_times and ours_sample:
        ours_med = sorted(ours_sample)[len(ours_sample) // 2]
        result["ratios_ours_over_peer_p50"] = {
            name: round(ours_med / max(sorted(v)[len(v) // 2], 1e-9), 3) for name, v in peer_times.items()
        }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for split, r in result["splits"].items():
            c = r["compile_ms"]
            print(
                f"{split:16} compiled {r['compiled']}/{r['schemas']}  p50 {c['p50']} ms  p90 {c['p90']}"
                f"  p99 {c['p99']}  max {c['max']}  timeouts {r['timeouts']}  errors {r['errors']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
