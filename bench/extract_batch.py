"""`extract --batch N` on the embedded model: rows per second at each batch size, and every row's
result compared with the one-row pipeline's (``--batch 1``).

The purchase requests of tests/data (Chinese and English) → the purchase-order schema with its
x-runtime policy and rules file, greedy — what `gramwright extract --schema
docs/examples/purchase_order.json --rules docs/examples/purchase_order.rules.json --batch N`
runs per row. Batch 1 is the one-row pipeline (``pipeline.run`` per row, as `extract` without
--batch); batch N > 1 is ``pipeline.rounds.run_rows`` on ``GeneratorBackend(batch_size=N)``
(first attempts and retries in batched rounds), with the CLI's window (8 rows per slot). One
model and its engine are loaded once and warmed before anything is timed; the batch sizes are
interleaved over ``--repeat`` repetitions and the medians reported.

    python -m bench.extract_batch --json [--limit 8] [--batch 1,4,8] [--repeat 1] [--max-tokens 160]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = ROOT / "tests/data/purchase_requests.jsonl"
SCHEMA = ROOT / "docs/examples/purchase_order.json"
RULES = ROOT / "docs/examples/purchase_order.rules.json"
ROUND_ROWS = 8  # the CLI's rows in flight per batch slot (cli/pipeline_cmds.ROUND_ROWS)


def decided(result: Any) -> dict[str, Any]:
    """What greedy decoding decides for a row: every attempt's text and outcome, the value."""
    data = result.to_dict()
    keep = ("text", "finish_reason", "output_tokens", "max_tokens", "feedback")
    return {
        "status": data["status"],
        "value": data["value"],
        "cause": data["cause"],
        "attempts": [{k: a[k] for k in keep} for a in data["attempts"]],
    }


def run_size(size: int, prompts: list[str], generator: Any, source: Any, policy: Any, rules: Any) -> Any:
    from gramwright.pipeline import GeneratorBackend, run
    from gramwright.pipeline.rounds import Row, run_rows

    started = time.perf_counter()
    if size == 1:
        backend = GeneratorBackend(generator)
        results = [run(source, p, policy=policy, rules=rules, backend=backend) for p in prompts]
        rounds = None
    else:
        done = run_rows(
            source,
            [Row(str(i), p) for i, p in enumerate(prompts)],
            backend=GeneratorBackend(generator, batch_size=size),
            policy=policy,
            rules=rules,
            window=ROUND_ROWS * size,
        )
        results, rounds = done.results, done.attempts_per_round
    return results, time.perf_counter() - started, rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--limit", type=int, default=8, help="the first N purchase requests")
    parser.add_argument("--batch", default="1,4,8", help="batch sizes, comma-separated, run in this order")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved repetitions (medians)")
    parser.add_argument("--max-tokens", type=int, default=160, help="the first attempt's limit")
    parser.add_argument("--token-budget", type=int, default=480, help="output tokens per row")
    args = parser.parse_args()

    from gramwright.generation import Generator, SamplingOptions
    from gramwright.pipeline import Policy
    from gramwright.pipeline.rules import load_rules
    from gramwright.sources import load_source

    lines = REQUESTS.read_text(encoding="utf-8").splitlines()
    prompts = [json.loads(line)["prompt"] for line in lines if line.strip()][: args.limit]
    source = load_source(str(SCHEMA))
    rules = load_rules(RULES, schema=source.schema)
    policy = Policy.from_schema(source.schema).with_overrides(
        max_tokens=args.max_tokens, token_budget=args.token_budget
    )
    sizes = [int(s) for s in args.batch.split(",") if s]
    generator = Generator()
    # the model, the vocabulary tables and the engine: loaded and warmed before any timing
    generator.run(
        source.for_generation(policy.open_objects), prompts[0], sampling=SamplingOptions(args.max_tokens)
    )
    walls: dict[int, list[float]] = {s: [] for s in sizes}
    first: dict[int, tuple[list[Any], Any]] = {}
    for rep in range(args.repeat):
        for size in sizes:
            results, wall, rounds = run_size(size, prompts, generator, source, policy, rules)
            walls[size].append(wall)
            first.setdefault(size, (results, rounds))
            print(f"[rep {rep + 1} batch {size}] {wall:.1f}s", file=sys.stderr, flush=True)
    ref = 1 if 1 in first else sizes[0]  # what every size is compared with: the one-row pipeline
    base = [decided(r) for r in first[ref][0]]
    table = []
    for size in sizes:
        results, rounds = first[size]
        wall = statistics.median(walls[size])
        tokens = sum(r.output_tokens for r in results)
        same = [decided(r) == b for r, b in zip(results, base, strict=True)]
        table.append(
            {
                "batch": size,
                "rows": len(results),
                "wall_s": round(wall, 1),
                "walls_s": [round(w, 1) for w in walls[size]],
                "rows_per_s": round(len(results) / wall, 3),
                "output_tokens": tokens,
                "tokens_per_s": round(tokens / wall, 1),
                "attempts": sum(len(r.attempts) for r in results),
                "attempts_per_round": rounds,
                "statuses": {
                    s: sum(r.status == s for r in results) for s in ("ok", "partial", "degraded", "failed")
                },
                f"rows_identical_to_batch_{ref}": sum(same),
                f"speedup_vs_batch_{ref}": round(statistics.median(walls[ref]) / wall, 2),
            }
        )
    lm = generator.load_model()
    report = {
        "model": lm.name,
        "device": str(lm.device),
        "torch_threads": __import__("torch").get_num_threads(),
        "requests": len(prompts),
        "max_tokens": args.max_tokens,
        "token_budget": args.token_budget,
        "repeat": args.repeat,
        "sizes": table,
    }
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for row in table:
            print(row)


if __name__ == "__main__":
    main()
