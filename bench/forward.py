"""What one forward pass of the embedded model costs over a KV cache, by the number of positions it
feeds (1: a decode step; more: forced text or a draft being verified), with transformers' defaults
and with what gramwright's loop uses on a CPU: a cache that appends in place
(``decode/kv_rows.GrowingLayer``) and attention that broadcasts the shared key/value heads
(``models/attention.gqa_sdpa``). Both give the same logits bit for bit (checked here per pass).

Each repetition prefills ``--cache`` random tokens (not timed) per setup, then times ``--passes``
passes per chunk length, each followed by a crop as a rejected draft would be, the setups in
turn so that the machine's load hits each alike. Reported: median ms per pass per setup and
chunk length, and the ratio.

    python -m bench.forward --json [--cache 1500] [--chunks 1,2,4,8,16] [--reps 3] [--passes 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

from gramwright.models.threads import passive_waiting

passive_waiting()  # as the CLI does: before torch loads, its OpenMP threads told to sleep when waiting

import torch  # noqa: E402


def _passes(model: Any, arg: str, cache: Any, chunk: int, passes: int, gen: torch.Generator) -> list[Any]:
    """``passes`` forward passes of ``chunk`` positions over ``cache``; each is cropped away after
    (a rejected draft). Returns (seconds, logits) per pass."""
    out = []
    for _ in range(passes):
        ids = torch.randint(100, 40000, (1, chunk), generator=gen)
        t0 = time.perf_counter()
        got = model(input_ids=ids, use_cache=True, logits_to_keep=chunk, **{arg: cache})
        out.append((time.perf_counter() - t0, got.logits))
        cache = getattr(got, arg)
        cache.crop(-chunk)
    return out


@torch.inference_mode()
def run(cache_len: int, chunks: list[int], reps: int, passes: int) -> dict[str, Any]:
    from gramwright.decode.generate import _cache_argument
    from gramwright.decode.kv_rows import growing_cache
    from gramwright.models.attention import NAME
    from gramwright.models.loader import load_model

    load = os.getloadavg()[0]
    lm = load_model(device="cpu")
    model = lm.model
    arg = _cache_argument(model)
    setups = {"transformers": "sdpa", "gramwright": NAME}
    times: dict[tuple[str, int], list[float]] = {}
    differ = 0
    try:
        for rep in range(reps):
            prompt = torch.randint(100, 40000, (1, cache_len), generator=torch.Generator().manual_seed(rep))
            logits: dict[str, list[Any]] = {}
            for setup, attention in setups.items():
                model.set_attn_implementation(attention)
                extra = {arg: growing_cache(model.config)} if setup == "gramwright" else {}
                cache = getattr(model(input_ids=prompt, use_cache=True, logits_to_keep=1, **extra), arg)
                gen = torch.Generator().manual_seed(1000 + rep)
                for chunk in chunks:
                    got = _passes(model, arg, cache, chunk, passes, gen)
                    times.setdefault((setup, chunk), []).extend(s for s, _ in got[1:])  # first: warm-up
                    logits.setdefault(setup, []).extend(x for _, x in got)
            pairs = zip(logits["transformers"], logits["gramwright"], strict=True)
            differ += sum(not torch.equal(a, b) for a, b in pairs)
    finally:
        model.set_attn_implementation(NAME)
    table = []
    for chunk in chunks:
        base = statistics.median(times[("transformers", chunk)])
        ours = statistics.median(times[("gramwright", chunk)])
        table.append(
            {
                "positions": chunk,
                "transformers_ms": round(1000 * base, 1),
                "gramwright_ms": round(1000 * ours, 1),
                "ratio": round(ours / base, 3),
            }
        )
    return {
        "model": lm.name,
        "threads": lm.threads,
        "dtype": lm.dtype,
        "cached_tokens": cache_len,
        "reps": reps,
        "passes_per_chunk": passes,
        "loadavg_1m_before": round(load, 2),
        "loadavg_1m_after": round(os.getloadavg()[0], 2),
        "passes_with_different_logits": differ,
        "table": table,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cache", type=int, default=1500, help="tokens in the cache before the passes")
    parser.add_argument("--chunks", default="1,2,4,8,16", help="positions per pass")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--passes", type=int, default=6)
    args = parser.parse_args()
    out = run(args.cache, [int(c) for c in args.chunks.split(",")], args.reps, args.passes)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for row in out["table"]:
            print(
                f"{row['positions']:>3} positions: transformers {row['transformers_ms']} ms, "
                f"gramwright {row['gramwright_ms']} ms ({row['ratio']}x)"
            )
        print(f"passes with different logits: {out['passes_with_different_logits']}")


if __name__ == "__main__":
    main()
