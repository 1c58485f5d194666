"""One decode step of the embedded model (a one-token forward with the KV cache) under different
torch intra-op thread counts, interleaved in one process so that the machine's load hits each alike.

Each repetition prefills the prompt (not timed), then times ``--steps`` greedy decode steps per
thread count, the counts in turn, and the prefill of a ``--prefill-tokens`` prompt (an edit's
size). Reported: the median and p90 ms per step and the median ms per prefill per count, whether
OpenMP's waiting threads sleep (``models/threads.passive_waiting``; run with
``OMP_WAIT_POLICY=active`` to see spinning ones), and the load average when the run started and
ended (a loaded machine is said, not hidden).

    python -m bench.threads --json [--threads 1,2] [--reps 5] [--steps 16] [--prefill-tokens 1000]
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

PROMPT = (
    "Extract the purchase order as JSON: supplier ACME Tools Ltd, requested by the operations "
    "department, urgent; two cordless drills at 129.00 each and one box of 200 wood screws at 8.50."
)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@torch.inference_mode()
def _steps(model: Any, input_ids: torch.Tensor, steps: int, cache_arg: str) -> list[float]:
    out = model(input_ids=input_ids, use_cache=True)
    past = getattr(out, cache_arg)
    token = int(out.logits[0, -1].argmax())
    times: list[float] = []
    for _ in range(steps):
        t0 = time.perf_counter()
        out = model(input_ids=torch.tensor([[token]]), use_cache=True, **{cache_arg: past})
        times.append(time.perf_counter() - t0)
        past = getattr(out, cache_arg)
        token = int(out.logits[0, -1].argmax())
    return times


@torch.inference_mode()
def _prefill(model: Any, input_ids: torch.Tensor) -> float:
    t0 = time.perf_counter()
    model(input_ids=input_ids, use_cache=True, logits_to_keep=1)
    return time.perf_counter() - t0


def run(threads: list[int], reps: int, steps: int, prefill_tokens: int = 1000) -> dict[str, Any]:
    from gramwright.decode.generate import _cache_argument
    from gramwright.models.loader import apply_chat_template, load_model

    load_before = os.getloadavg()
    lm = load_model(device="cpu")
    text = apply_chat_template(lm.tokenizer, None, PROMPT)
    input_ids = lm.tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
    cache_arg = _cache_argument(lm.model)
    # a long prompt, as an edit's (a file and its instructions), for the prefill's time
    long_ids = lm.tokenizer(PROMPT * 40, return_tensors="pt", add_special_tokens=False).input_ids
    long_ids = long_ids[:, :prefill_tokens]
    times: dict[int, list[float]] = {n: [] for n in threads}
    prefills: dict[int, list[float]] = {n: [] for n in threads}
    before = torch.get_num_threads()
    try:
        for _ in range(reps):
            for n in threads:
                torch.set_num_threads(n)
                times[n].extend(_steps(lm.model, input_ids, steps, cache_arg))
                if prefill_tokens:
                    prefills[n].append(_prefill(lm.model, long_ids))
    finally:
        torch.set_num_threads(before)
    return {
        "model": lm.name,
        "prompt_tokens": int(input_ids.shape[-1]),
        "reps": reps,
        "steps_per_rep": steps,
        "cpu_count": os.cpu_count(),
        "omp_wait_policy": "passive" if passive_waiting() else "not passive (threads spin while waiting)",
        "loadavg_1m_before": round(load_before[0], 2),
        "loadavg_1m_after": round(os.getloadavg()[0], 2),
        "ms_per_step": {
            str(n): {
                "median": round(1000 * statistics.median(v), 1),
                "p90": round(1000 * _percentile(v, 90), 1),
            }
            for n, v in times.items()
        },
        "prefill_tokens": int(long_ids.shape[-1]) if prefill_tokens else 0,
        "ms_per_prefill": {str(n): round(1000 * statistics.median(v), 1) for n, v in prefills.items() if v},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--threads", default="1,2", help="thread counts to compare, comma separated")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--prefill-tokens", type=int, default=1000, help="prefill timed (0: none)")
    args = parser.parse_args()
    summary = run([int(n) for n in args.threads.split(",")], args.reps, args.steps, args.prefill_tokens)
    print(json.dumps(summary, indent=2) if args.json else summary)


if __name__ == "__main__":
    main()
