"""End to end on the embedded model: ms/token unconstrained vs constrained (ours and each peer).

Same prompts, greedy, fixed max tokens. Runs are interleaved (one prompt: unconstrained, ours,
llguidance, xgrammar; next prompt: …) so that drift of this shared machine hits every variant
alike; we report the median over repetitions of each variant's ms/token and the overhead versus
unconstrained. The loop is the same for every variant: forward → (mask → apply) → argmax.

    python -m bench.e2e --json [--schema docs/examples/purchase_order.json] [--reps 3]
    python -m bench.e2e --json --fresh-process [--schemas 6] [--max-tokens 96]   # as a user runs it
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

from gramwright.serving.engines import EngineMissing, LLGuidanceMasks, XGrammarMasks, mask_engine

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = [
    "请为行政部生成一份采购申请：向联想采购2台笔记本电脑，每台5999元，加急。",
    "采购申请：从得力文具采购A4复印纸50包，每包25元，普通。",
    "Purchase request: 3 office chairs from IKEA at 899 each, urgent.",
]


def run(model: Any, prompt_ids: torch.Tensor, max_tokens: int, masker: Any) -> tuple[float, int, float]:
    """Greedy decode; returns (seconds, tokens, seconds spent in the masker: mask, apply, consume).
    ``masker`` is None or an object with ``apply(logits)`` and ``consume(token) -> bool``."""
    from gramwright.decode.generate import _cache_argument

    cache_arg = _cache_argument(model)
    past = None
    nxt = prompt_ids
    n = 0
    engine_s = 0.0
    t0 = time.perf_counter()
    with torch.inference_mode():
        for _ in range(max_tokens):
            out = model(input_ids=nxt, use_cache=True, **{cache_arg: past})
            past = getattr(out, cache_arg)
            logits = out.logits[0, -1]
            if masker is not None:
                e0 = time.perf_counter()
                logits = masker.apply(logits)
                engine_s += time.perf_counter() - e0
            tid = int(torch.argmax(logits))
            n += 1
            if masker is not None:
                e0 = time.perf_counter()
                go_on = masker.consume(tid)
                engine_s += time.perf_counter() - e0
                if not go_on:
                    break
            if masker is None and tid == 2:
                break
            nxt = torch.tensor([[tid]])
    return time.perf_counter() - t0, n, engine_s


class OursMasker:
    def __init__(self, engine: Any) -> None:
        from gramwright.decode.masking import tensor_masks

        self.masks = tensor_masks(engine)  # the decode loop's: per engine, kept across requests
        self.m = engine.matcher()

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        blocked = self.masks.blocked(self.m, logits.shape[-1], logits.device)
        return logits.masked_fill(blocked, -1e9)

    def consume(self, tid: int) -> bool:
        self.m.consume(tid)
        return not self.m.is_terminated()


class PeerMasker:
    """A peer through :mod:`gramwright.serving.engines` in the decode loop: its mask filled, then
    applied to the logits with the peer's own kernel; the token consumed."""

    def __init__(self, engine: LLGuidanceMasks | XGrammarMasks, compiled: Any) -> None:
        self.engine = engine
        self.m = engine.matcher(compiled)

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        self.engine.mask(self.m)
        logits = logits.unsqueeze(0).clone()
        self.engine.apply(logits)
        return logits[0]

    def consume(self, tid: int) -> bool:
        self.engine.consume(self.m, tid)
        return not self.engine.finished(self.m)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--schema", default=str(ROOT / "docs/examples/purchase_order.json"))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument(
        "--threads", type=int, default=0, help="torch threads (0: torch's default; 1 on a busy machine)"
    )
    parser.add_argument(
        "--fresh-process",
        action="store_true",
        help="`gramwright generate` in new processes, the peers replaying its tokens (bench/e2e_fresh.py)",
    )
    parser.add_argument("--schemas", type=int, default=6, help="with --fresh-process: how many schemas")
    args = parser.parse_args()
    if args.fresh_process:
        from bench.e2e_fresh import run as run_fresh

        fresh = run_fresh(args.schemas, args.max_tokens)
        print(json.dumps(fresh, indent=2) if args.json else fresh)
        return
    if args.threads:
        torch.set_num_threads(args.threads)

    from gramwright.decode.prompt import system_prompt
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.models.loader import apply_chat_template, load_model
    from gramwright.models.vocabulary import vocabulary_of_loaded
    from gramwright.schema import compile_schema

    schema = json.loads(Path(args.schema).read_text())
    lm = load_model(None, device="cpu")
    vocab = vocabulary_of_loaded(lm)
    grammar = compile_schema(schema).grammar
    variants: dict[str, Any] = {"unconstrained": lambda: None}
    shared_engine = GrammarEngine(grammar, vocab)  # ours keeps its caches across requests, as in serving
    variants["ours"] = lambda: OursMasker(shared_engine)
    for peer in ("llguidance", "xgrammar"):
        try:
            engine = mask_engine(peer, lm.tokenizer, vocab)
        except EngineMissing:
            print(f"{peer} not installed (bench extra)", file=sys.stderr)
            continue
        assert isinstance(engine, LLGuidanceMasks | XGrammarMasks)
        compiled = engine.compile(schema)
        variants[peer] = lambda engine=engine, compiled=compiled: PeerMasker(engine, compiled)

    system = system_prompt(schema=schema)
    per_variant: dict[str, list[float]] = {name: [] for name in variants}
    engine_ms: dict[str, list[float]] = {name: [] for name in variants}
    for rep in range(args.reps):
        for prompt in PROMPTS:
            text = apply_chat_template(lm.tokenizer, system, prompt)
            ids = lm.tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
            for name, make in variants.items():
                seconds, n, engine_s = run(lm.model, ids, args.max_tokens, make())
                per_variant[name].append(1000 * seconds / max(n, 1))
                engine_ms[name].append(1000 * engine_s / max(n, 1))
                print(
                    f"rep {rep} {name:13s} {n:3d} tokens {1000 * seconds / max(n, 1):7.1f} ms/token",
                    file=sys.stderr,
                )
    med = {name: round(statistics.median(v), 2) for name, v in per_variant.items()}
    base = med["unconstrained"]
    result = {
        "model": lm.name,
        "device": lm.device,
        "prompts": len(PROMPTS),
        "reps": args.reps,
        "max_tokens": args.max_tokens,
        "torch_threads": torch.get_num_threads(),
        "ms_per_token_median": med,
        "overhead_pct": {k: round(100 * (v / base - 1), 1) for k, v in med.items() if k != "unconstrained"},
        # The masker's own time per token (mask + apply + consume), measured inside the same runs:
        # unlike the difference of two noisy wall-clock medians, this does not drown in drift.
        "engine_ms_per_token_median": {
            k: round(statistics.median(v), 3) for k, v in engine_ms.items() if k != "unconstrained"
        },
        "engine_share_pct": {
            k: round(100 * statistics.median(v) / base, 2)
            for k, v in engine_ms.items()
            if k != "unconstrained"
        },
    }
    print(json.dumps(result, indent=2) if args.json else result)


if __name__ == "__main__":
    main()
