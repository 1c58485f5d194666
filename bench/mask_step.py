"""The decode loop's mask step per token, without a model: new state → mask tensor → clipped mass →
masked logits, on a logits row of the vocabulary's width (49,152 for SmolLM2).

Two ways, interleaved token by token in one process so that drift of the machine hits both alike:

* ``ids`` — the loop before the engine/decode split: the matcher's allowed ids per step (the
  bitset unpacked into an id list, EOS merged), a bool row per state built by scatter and cached,
  ``probs[allowed]`` for the clipped mass and ``masked_fill(~allowed)`` (an inversion per step);
* ``bitset`` — ``gramwright.decode.masking``: the engine's cached bitset, a blocked-token tensor
  per (state, device, width) unpacked from it on first use, ``clipped_mass``/``apply_mask`` on it.

The engine's own masks are computed before timing (a first replay), so only the conversion and
the application are compared. Pass 1 meets every state's tensor for the first time; later passes
find them cached. Reported: median and p99 µs per token, per pass kind, and the two parts
(``mask``: until the tensor is ready, ``apply``: clipped mass + masked logits).

    python -m bench.mask_step --json [--reps 20] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = {
    "supplier": "联想（北京）有限公司",
    "apply_dept": "行政部",
    "urgency": "加急",
    "total_amount": 11998,
    "items": [
        {"name": "ThinkPad X1 Carbon 笔记本电脑", "spec": "i7/16GB/512GB", "qty": 2, "unit_price": 5999},
        {"name": "USB-C 扩展坞", "qty": 2, "unit_price": 0},
    ],
}


class IdsStep:
    """The pre-split loop's step (allowed ids → cached bool row → inverted at application)."""

    def __init__(self) -> None:
        self.rows: dict[int, torch.Tensor] = {}

    def mask(self, matcher: Any, width: int) -> torch.Tensor:
        ids = matcher.allowed_token_ids()
        got = self.rows.get(matcher.config)
        if got is None:
            got = torch.zeros(width, dtype=torch.bool)
            got[torch.from_numpy(ids[ids < width].astype(np.int64))] = True
            self.rows[matcher.config] = got
        return got

    @staticmethod
    def apply(logits: torch.Tensor, allowed: torch.Tensor) -> tuple[float, torch.Tensor]:
        mass = float(1.0 - torch.softmax(logits.float(), dim=-1)[allowed].sum())
        return mass, logits.masked_fill(~allowed, -1e9)


class BitsetStep:
    def __init__(self) -> None:
        from gramwright.decode.masking import TensorMasks

        self.masks = TensorMasks()

    def mask(self, matcher: Any, width: int) -> torch.Tensor:
        return self.masks.blocked(matcher, width, torch.device("cpu"))

    @staticmethod
    def apply(logits: torch.Tensor, blocked: torch.Tensor) -> tuple[float, torch.Tensor]:
        from gramwright.decode.sampling import apply_mask, clipped_mass

        return clipped_mass(logits, blocked), apply_mask(logits, blocked)


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values), q)), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reps", type=int, default=20, help="passes over the document (pass 1 is cold)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: as on a busy machine)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer
    from gramwright.schema import compile_schema

    tokenizer = load_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    schema = json.loads((ROOT / "docs/examples/purchase_order.json").read_text())
    engine = GrammarEngine(compile_schema(schema).grammar, vocab)
    text = json.dumps(DOCUMENT, ensure_ascii=False, separators=(",", ":"))
    ids = tokenizer.encode(text, add_special_tokens=False)
    warm = engine.matcher()
    for tid in ids:  # the engine's masks, computed before any timing
        warm.bitmask()
        warm.consume(tid)
    width = vocab.size
    logits = torch.randn(width, generator=torch.Generator().manual_seed(0))
    steps: dict[str, IdsStep | BitsetStep] = {"ids": IdsStep(), "bitset": BitsetStep()}
    times: dict[str, dict[str, list[float]]] = {
        name: {part: [] for part in ("cold_total", "warm_total", "warm_mask", "warm_apply")} for name in steps
    }
    for rep in range(args.reps):
        matchers = {name: engine.matcher() for name in steps}
        for tid in ids:
            for name, step in steps.items():
                m = matchers[name]
                t0 = time.perf_counter()
                tensor = step.mask(m, width)
                t1 = time.perf_counter()
                step.apply(logits, tensor)
                t2 = time.perf_counter()
                kind = "cold" if rep == 0 else "warm"
                times[name][f"{kind}_total"].append((t2 - t0) * 1e6)
                if kind == "warm":
                    times[name]["warm_mask"].append((t1 - t0) * 1e6)
                    times[name]["warm_apply"].append((t2 - t1) * 1e6)
                m.consume(tid)
    result: dict[str, Any] = {
        "tokens": len(ids),
        "width": width,
        "reps": args.reps,
        "torch_threads": torch.get_num_threads(),
    }
    for name, parts in times.items():
        result[name] = {
            part: {"median_us": round(statistics.median(v), 1), "p99_us": _pct(v, 99)}
            for part, v in parts.items()
        }
    result["speedup_warm_total_median"] = round(
        result["ids"]["warm_total"]["median_us"] / result["bitset"]["warm_total"]["median_us"], 2
    )
    print(json.dumps(result, indent=2) if args.json else result)


if __name__ == "__main__":
    main()
