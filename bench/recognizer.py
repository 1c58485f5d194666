"""Recognizer throughput: feed a 1 MB JSON document byte by byte into the recognizer for json.gbnf.

Two documents, both exactly 1,000,000 bytes or a little more:
* ``records``: an array of API-like records (the common shape of real JSON);
* ``nested``: random values nested up to 7 levels (many distinct parser stacks: the adversarial case).

Each is fed twice through one compiled grammar: ``cold`` (memo tables empty, every new parser
configuration is derived) and ``warm`` (all transitions memoised). One process, one core.

    python -m bench.recognizer --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from gramwright.grammar.bundled import load_bundled
from gramwright.recognizer import CompiledGrammar, Recognizer


def records_document(size: int) -> bytes:
    rows = []
    total = 2
    i = 0
    while total < size:
        row = json.dumps(
            {
                "id": i,
                "name": f"user {i}",
                "email": f"u{i}@example.com",
                "tags": ["alpha", "beta"][: i % 3],
                "address": {"city": "Zürich", "zip": f"80{i % 100:02d}"},
                "score": i * 1.5,
                "active": i % 2 == 0,
                "note": None,
            },
            ensure_ascii=False,
        )
        rows.append(row)
        total += len(row.encode()) + 1
        i += 1
    return ("[" + ",".join(rows) + "]").encode()


def nested_document(size: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)

    def value(depth: int) -> Any:
        r = rng.random()
        if depth > 6 or r < 0.3:
            return rng.choice([1, -2.5e10, 'héllo "x"\n 😀', True, None, 0, "待客户确认"])
        if r < 0.65:
            return [value(depth + 1) for _ in range(rng.randint(0, 5))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randint(0, 5))}

    parts: list[str] = []
    total = 2
    while total < size:
        part = json.dumps(value(0), ensure_ascii=False)
        parts.append(part)
        total += len(part.encode()) + 1
    return ("[" + ",".join(parts) + "]").encode()


def feed_rate(compiled: CompiledGrammar, doc: bytes) -> dict[str, float]:
    rec = Recognizer(compiled)
    feed_byte = rec.feed_byte
    t0 = time.perf_counter()
    for b in doc:
        if not feed_byte(b):
            raise SystemExit(f"document rejected at byte {rec.position}")
    elapsed = time.perf_counter() - t0
    if not rec.is_accepting():
        raise SystemExit("document incomplete")
    return {"seconds": round(elapsed, 3), "mb_per_s": round(len(doc) / elapsed / 1e6, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--size", type=int, default=1_000_000)
    args = parser.parse_args()
    grammar = load_bundled("json")
    results: dict[str, Any] = {"grammar": "json.gbnf", "mode": "feed_byte per byte"}
    for name, doc in (("records", records_document(args.size)), ("nested", nested_document(args.size))):
        compiled = CompiledGrammar(grammar)
        cold = feed_rate(compiled, doc)
        warm = feed_rate(compiled, doc)
        results[name] = {
            "bytes": len(doc),
            "cold": cold,
            "warm": warm,
            "configurations": compiled.num_configs,
        }
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    else:
        for name in ("records", "nested"):
            r = results[name]
            print(
                f"{name:8s} {r['bytes']:>9,d} B  cold {r['cold']['mb_per_s']:.2f} MB/s  "
                f"warm {r['warm']['mb_per_s']:.2f} MB/s  ({r['configurations']:,} configurations)"
            )


if __name__ == "__main__":
    main()
